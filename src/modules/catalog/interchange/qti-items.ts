import type { QuestionInput } from '../schemas.js';
import { questionTypeForInteraction } from '../question-types/registry.js';
import { readNumeric } from '../question-types/numeric/qti.js';
import { readStringEntry } from '../question-types/short-text/qti.js';
import { singleChoiceInteraction } from '../question-types/choice-qti.js';
import { readMultipleChoice } from '../question-types/multiple-choice/qti.js';
import { readSingleChoice } from '../question-types/single-choice/qti.js';
import { readDeclarations, readProcessing, maxScore } from './response-processing.js';
import { descendants, elements, first, textOf, type XElement } from './xml.js';
import { INLINE, declOf, isInteraction, promptOf, type Ctx } from './qti-item-context.js';
import { readBlanks, readGapMatch } from '../question-types/fill-blanks/qti.js';
import { feedbackNote, unshownOutcomesNote } from './qti-feedback.js';
import { withItemScoring } from './qti-scoring-import.js';
import { compositeItem, SPLIT_REASON } from './qti-composite.js';
import { readTemplate, type ItemTemplate } from '../question-types/parameters/qti-template.js';

/** An image's alternative text: `alt` on an img; on a QTI 2 `object`, its content (what shows when the object cannot), as graphic interactions write it. */
const altOf = (e: XElement): string => e.attrs['alt'] ?? (e.name === 'object' ? textOf(e).replace(/\s+/g, ' ').trim().slice(0, 1_000) : '');

/**
 * One QTI item (3.0, or 2.x read as 3.0 names by xml.ts) to one Assay
 * question, or a reason it is skipped. The mapping is the product's
 * (docs/import-export.md has it as a table). An item is
 * mapped whole or not at all: when Assay's marking could not give the points
 * the item's response processing gives, it is skipped, naming why.
 */
export type ItemMapping =
  | { ok: true; question: QuestionInput; interaction: string; notes: string[]; images: ImageRef[] }
  | { ok: false; interaction: string; reason: string };

/** An image an item's body shows: the package path (resolved against the item file) and its alt text. */
export interface ImageRef {
  href: string;
  alt: string;
}


const HARMLESS: Record<string, string> = {
  'qti-stylesheet': 'stylesheets are not imported',
  'qti-companion-materials-info': 'companion materials are not imported',
  'qti-catalog-info': 'catalogs (accessibility alternatives) are not imported',
  'qti-template-processing': 'template processing is not imported',
};


/** `markdown`: the package is read as a Markdown test (qti-package.ts), so texts keep their formatting and MathML. */
export function mapItem(item: XElement, opts: { imageText?: (img: ImageRef) => string; markdown?: boolean } = {}): ItemMapping {
  // A template item (question-types/parameters/qti-template.ts) is read as the item it describes, then given its variables.
  let template: ItemTemplate | null = null;
  if (elements(item, 'qti-template-declaration').length > 0) {
    const read = readTemplate(item);
    if (typeof read === 'string') return { ok: false, interaction: 'template', reason: read };
    template = read;
    item = read.item;
  }
  const body = first(item, 'qti-item-body');
  const notes: string[] = [];
  for (const el of [...elements(item), ...descendants(item)]) {
    const why = template && el.name === 'qti-template-processing' ? undefined : HARMLESS[el.name];
    if (why && !notes.includes(why)) notes.push(why);
  }
  const feedback = feedbackNote(item);
  if (feedback) notes.unshift(feedback);
  if (!body) return { ok: false, interaction: 'none', reason: 'the item has no item body' };
  const interactions = descendants(body).filter(isInteraction);
  const kinds = [...new Set(interactions.map((i) => i.name))];
  const label = kinds.map((k) => k.replace(/^qti-/, '')).join('+') || 'none';
  if (interactions.length === 0) return { ok: false, interaction: 'none', reason: 'the item has no interaction' };
  const markdown = opts.markdown ?? false;
  if (!markdown && descendants(body).some((e) => e.name === 'math')) notes.push('MathML is kept as its text');
  const images = descendants(body)
    .filter((e) => e.name === 'img' || (e.name === 'object' && (e.attrs['type'] ?? '').startsWith('image/')))
    .map((e) => ({ href: e.attrs['src'] ?? e.attrs['data'] ?? '', alt: altOf(e) }));
  const decls = readDeclarations(item);
  const set = { dropped: [] as string[] };
  const rp = readProcessing(item, [...decls.keys()].filter((k) => k !== ''), set);
  const unshown = unshownOutcomesNote(item, set.dropped);
  if (unshown) notes.push(unshown);
  const max = maxScore(item);
  const title = item.attrs['title']?.trim() ?? '';
  const imageInline = (e: XElement): string | undefined =>
    opts.imageText && (e.name === 'img' || e.name === 'object') ? opts.imageText({ href: e.attrs['src'] ?? e.attrs['data'] ?? '', alt: altOf(e) }) : undefined;
  const imageRef = (e: XElement): { src: string; alt: string } | undefined => {
    if (e.name !== 'img' && e.name !== 'object') return undefined;
    const href = e.attrs['src'] ?? e.attrs['data'] ?? '';
    const alt = altOf(e);
    if (!opts.imageText) return { src: href, alt };
    // The stored image as the Markdown reference the asset sink gave it: a field takes its asset: reference.
    const placed = /\]\((asset:[A-Za-z0-9_-]+)\)$/.exec(opts.imageText({ href, alt }));
    return placed ? { src: placed[1]!, alt } : { src: href, alt };
  };
  const ctx: Ctx = { item, body, decls, rp, max, title, notes, imageInline, imageRef, markdown, problems: [] };

  const skip = (reason: string): ItemMapping => ({ ok: false, interaction: label, reason });
  let result: QuestionInput | string;
  // Several interactions not all inline: a composite question, whose parts' rules are split out of the item's processing (qti-composite.ts), or which keeps it.
  const composite = interactions.length > 1 && !interactions.every((i) => INLINE.has(i.name));
  if (rp.kind === 'custom' && !composite) {
    // Processing no native rule expresses: the question is built from the declared correct responses, and keeps the processing to be run.
    const keyed = questionOf({ ...ctx, rp: { kind: 'match_correct' }, keyOnly: true }, interactions, kinds);
    if (keyed === null) return skip(`the ${interactions[0]!.name.replace(/^qti-/, '')} is not supported`);
    result = typeof keyed === 'string' || keyed.type === 'essay' || keyed.type === 'file_upload' ? keyed : withItemScoring(ctx, keyed, interactions);
  } else {
    const native = questionOf(ctx, interactions, kinds);
    if (native === null) return skip(`the ${interactions[0]!.name.replace(/^qti-/, '')} is not supported`);
    result = typeof native === 'string' && !composite && rp.kind !== 'none' ? keptInstead(ctx, interactions, kinds, native) : native;
    if (composite && typeof native === 'string') {
      // Processing that does not split by part (or a part no native rule marks): the parts from the declared correct responses, the processing kept.
      const keyed = compositeItem({ ...ctx, rp: { kind: 'match_correct' }, keyOnly: true }, interactions, standalone);
      const kept = typeof keyed === 'string' ? keyed : withItemScoring(ctx, keyed, interactions);
      if (typeof kept !== 'string' || native === SPLIT_REASON) result = kept;
    }
  }
  if (typeof result === 'string') return skip(result);
  if (ctx.problems.length > 0) return skip(ctx.problems[0]!);
  if (template) {
    if (result.type !== 'numeric' || 'scoring' in result) return skip('template variables are imported on a numeric text entry marked by its correct response only');
    const { answer: _standIn, ...rest } = result;
    result = { ...rest, ...template.fields };
  }
  const points = result.points ?? 0;
  if (!(points > 0)) return skip('the item is worth no points');
  if (points > 10_000) return skip(`the item is worth ${points} points; Assay allows at most 10000`);
  return { ok: true, question: result, interaction: label, notes, images };
}

/**
 * A standard rule whose weights the native question cannot hold (unequal
 * points per choice, pair or gap; all or nothing across blanks; an
 * asymmetric tolerance): the item keeps its processing, run as written,
 * when it can; else the native rule's reason stands.
 */
function keptInstead(ctx: Ctx, interactions: XElement[], kinds: string[], reason: string): QuestionInput | string {
  const keyed = questionOf({ ...ctx, rp: { kind: 'match_correct' }, keyOnly: true }, interactions, kinds);
  if (keyed === null || typeof keyed === 'string' || keyed.type === 'essay' || keyed.type === 'file_upload') return reason;
  const kept = withItemScoring(ctx, keyed, interactions);
  return typeof kept === 'string' ? reason : kept;
}

/** The question the item's interactions make under `ctx`'s processing, a reason it cannot, or null for an unsupported interaction. */
function questionOf(ctx: Ctx, interactions: XElement[], kinds: string[]): QuestionInput | string | null {
  const rp = ctx.rp;
  let result: QuestionInput | string;
  if (interactions.every((i) => INLINE.has(i.name)) && (interactions.length > 1 || kinds.includes('qti-inline-choice-interaction') || rp.kind === 'sum_map')) {
    // Inline interactions together are one fill_blanks question, and so is a lone gap match: the type reads all of them at once (question-types/fill-blanks/qti.ts).
    result = readBlanks(ctx, interactions);
  } else if (kinds.length === 1 && kinds[0] === 'qti-gap-match-interaction' && interactions.length === 1) {
    result = readGapMatch(ctx, interactions[0]!);
  } else if (interactions.length > 1) {
    result = compositeItem(ctx, interactions, standalone);
  } else {
    const it = interactions[0]!;
    switch (it.name) {
      case 'qti-choice-interaction':
        result = choice(ctx, it);
        break;
      case 'qti-text-entry-interaction':
        result = textEntry(ctx, it);
        break;
        break;
      default: {
        // A registered type that reads this interaction (catalog/question-types).
        const def = questionTypeForInteraction(it.name);
        if (!def?.qti) return null;
        result = def.qti.read(ctx, it) as QuestionInput | string;
      }
    }
  }
  return result;
}

/** One interaction mapped as the only one of its item (a composite item's part is mapped so, under its own processing). */
function standalone(ctx: Ctx, it: XElement): QuestionInput | string {
  switch (it.name) {
    case 'qti-choice-interaction':
      return choice(ctx, it);
    case 'qti-text-entry-interaction':
      return textEntry(ctx, it);
    default: {
      // A registered type that may be a composite's part reads its own interaction.
      const def = questionTypeForInteraction(it.name);
      if (def?.qti && def.part) return def.qti.read(ctx, it) as QuestionInput | string;
      return `the ${it.name.replace(/^qti-/, '')} is not supported`;
    }
  }
}



function choice(ctx: Ctx, it: XElement): QuestionInput | string {
  // One choice is the single choice type's to read, several the multiple choice type's (question-types/).
  return singleChoiceInteraction(it) ? readSingleChoice(ctx, it) : readMultipleChoice(ctx, it);
}

function textEntry(ctx: Ctx, it: XElement): QuestionInput | string {
  const decl = declOf(ctx, it);
  if (typeof decl === 'string') return decl;
  if (decl.cardinality !== 'single') return 'a text entry with a multiple response cannot be expressed';
  const prompt = promptOf(ctx, it);
  // A number is the numeric type's to read, a string the short text type's (question-types/numeric, short-text).
  if (decl.baseType === 'float' || decl.baseType === 'integer') return readNumeric(ctx, it);
  if (decl.baseType !== 'string') return `a text entry of base type "${decl.baseType}" is not supported`;
  return readStringEntry(ctx, decl, prompt);
}
