import { associateType } from './associate/associate.js';
import type { BaseQuestion, QuestionTypeDefinition } from './definition.js';
import type { MessageKey } from '../../../platform/i18n/catalogue.js';
import { multipleChoiceType } from './multiple-choice/multiple-choice.js';
import { essayType } from './essay/essay.js';
import { fileUploadType } from './file-upload/file-upload.js';
import { numericType } from './numeric/numeric.js';
import { selectPointType } from './select-point/select-point.js';
import { hotTextType } from './hot-text/hot-text.js';
import { sliderType } from './slider/slider.js';
import { graphicOrderType } from './graphic-order/graphic-order.js';
import { hotspotType } from './hotspot/hotspot.js';
import { matchingType } from './matching/matching.js';
import { orderingType } from './ordering/ordering.js';
import { fillBlanksType } from './fill-blanks/fill-blanks.js';
import { singleChoiceType } from './single-choice/single-choice.js';
import { shortTextType } from './short-text/short-text.js';

/**
 * Every question type, in the order the API's schema and the editor's type
 * menu list them. Adding a type is its folder and one line here
 * (docs/architecture.md, "Adding a question type").
 */
export const QUESTION_TYPES = [
  singleChoiceType,
  multipleChoiceType,
  shortTextType,
  numericType,
  essayType,
  matchingType,
  orderingType,
  fillBlanksType,
  hotspotType,
  selectPointType,
  graphicOrderType,
  hotTextType,
  sliderType,
  associateType,
  fileUploadType,
] as const satisfies ReadonlyArray<QuestionTypeDefinition<any>>;

const byType = new Map<string, QuestionTypeDefinition<BaseQuestion>>(
  (QUESTION_TYPES as ReadonlyArray<QuestionTypeDefinition<any>>).map((d) => [d.type, d]),
);

/** The definition of a registered type; undefined for a type not (yet) in the registry. */
export function questionType(type: string): QuestionTypeDefinition<BaseQuestion> | undefined {
  return byType.get(type);
}

/** The registered types' names. */
export function questionTypeNames(): string[] {
  return [...byType.keys()];
}

/** The registered types' browser scripts of one kind (`student`: the test page's parts; `editor`: the form editor's), in registry order. */
export function questionTypeScripts(kind: 'student' | 'editor'): URL[] {
  return [...byType.values()].flatMap((d) => (d.scripts[kind] ? [d.scripts[kind]] : []));
}

/** The message keys the browser scripts of the given types format (each once): what a test page with those types sends. */
export function questionTypeClientMessages(types: Iterable<string>): MessageKey[] {
  return [...new Set([...types].flatMap((type) => byType.get(type)?.clientMessages ?? []))];
}

/** The message keys every registered type's editor part formats (each once): what the editor page, which loads them all, sends. */
export function questionTypeEditorMessages(): MessageKey[] {
  return [...new Set([...byType.values()].flatMap((d) => d.editorMessages ?? []))];
}

/** The registered types' style sheets of one kind (`student`: the test page's; `portal`: the staff's), each once, in registry order. */
export function questionTypeStyles(kind: 'student' | 'portal'): URL[] {
  const sheets = [...byType.values()].flatMap((d) => (d.styles?.[kind] ? [d.styles[kind]] : []));
  return [...new Map(sheets.map((u) => [u.href, u])).values()];
}

/** The registered type that reads a QTI interaction element (its `qti.interactions` name it); undefined when none does. */
export function questionTypeForInteraction(name: string): QuestionTypeDefinition<BaseQuestion> | undefined {
  return [...byType.values()].find((d) => d.qti?.interactions.includes(name));
}

/** The types still handled by the layers' own code, with the word staff views use for each. */
const BUILT_IN_LABELS: Record<string, string> = {
  composite: 'Composite',
};

/** The word staff views use for a question type ("Single choice"); the type's own name, readable, for one nobody knows. */
export function questionTypeLabel(type: string): string {
  return byType.get(type)?.label ?? BUILT_IN_LABELS[type] ?? type.replace(/_/g, ' ');
}
