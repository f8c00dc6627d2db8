import type { AnswerValue } from '../../attempts/answer-values.js';
import type { Question } from '../../catalog/schemas.js';
import { partQuestion, type CompositeQuestion } from '../../catalog/composite.js';
import { formatPoints, html, SafeHtml } from '../../../platform/web/html.js';
import type { PageTexts } from './page-content.js';

/**
 * The fields of composite questions.
 * Each is operable by keyboard alone (selects, text fields, buttons);
 * student.js reads and restores the same markup. `id` is the
 * question's field prefix (`q<n>`).
 */

type Of<T extends Question['type']> = Extract<Question, { type: T }>;

/** A file the student uploaded, as the page state carries it (so a reload can say "Your file: …"); the question types' own. */
export type { UploadedFile } from '../../catalog/question-types/definition.js';

// The file_upload type's words (catalog/question-types/file-upload), named here as before.
export { acceptedTypesText, formatBytes } from '../../catalog/question-types/file-upload/file-text.js';

/**
 * A composite question's parts after its prompt, each a fieldset named
 * "Part 1", "Part 2", … (its points beside the name, except under kept
 * QTI processing, which marks the parts together), its own prompt
 * describing the group, then the part's controls as its type draws them
 * (`field`, the test page's). student.js reads each part's fields by the
 * part's `data-type` and saves `{ partId: value }`.
 */
export function compositeInput(
  q: CompositeQuestion,
  id: string,
  where: string,
  value: AnswerValue,
  texts: PageTexts,
  field: (part: Question, id: string, where: string, value: AnswerValue) => SafeHtml,
): SafeHtml {
  const given = value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Readonly<Record<string, AnswerValue>>) : {};
  return html`<div class="parts">${q.parts.map((part, k) => {
    const shown = partQuestion(q, part);
    const partId = `${id}-p${k + 1}`;
    const prompt = texts.block(`${shown.id}.prompt`, part.prompt);
    const { t } = texts;
    return html`<fieldset class="part" id="${partId}" data-part-id="${part.id}" data-type="${part.type}" aria-describedby="${partId}-prompt">
<legend class="part-legend">${t.t('test.part', { n: k + 1 })}${q.scoring ? '' : html` <span class="question-points">${t.t('test.points', { points: Number(formatPoints(part.points)) })}</span>`}</legend>
${texts.markdown ? html`<div class="prompt part-prompt content" id="${partId}-prompt">${prompt}</div>` : html`<p class="prompt part-prompt" id="${partId}-prompt">${prompt}</p>`}
${field(shown, partId, t.t('test.wherePart', { question: where, n: k + 1 }), given[part.id] ?? null)}
</fieldset>`;
  })}</div>`;
}
