import type { QuestionInput } from '../schemas.js';
import { readDeclarations, readProcessing, maxScore } from './response-processing.js';
import { descendants, elements, first, textOf, type XElement } from './xml.js';
import { INLINE, allEqual, allOrNothing, capped, declOf, idMap, isInteraction, mappingOf, promptOf, round, rpReason, valueOf, type Ctx } from './qti-item-context.js';
import { fillBlanks, gapMatch } from './qti-fill-blanks.js';

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
  'qti-modal-feedback': 'feedback is not imported',
  'qti-feedback-block': 'feedback is not imported',
  'qti-feedback-inline': 'feedback is not imported',
  'qti-stylesheet': 'stylesheets are not imported',
  'qti-companion-materials-info': 'companion materials are not imported',
  'qti-catalog-info': 'catalogs (accessibility alternatives) are not imported',
  'qti-template-processing': 'template processing is not imported',
};


export function mapItem(item: XElement, opts: { imageText?: (img: ImageRef) => string } = {}): ItemMapping {
  const body = first(item, 'qti-item-body');
  const notes: string[] = [];
  for (const el of [...elements(item), ...descendants(item)]) {
    const why = HARMLESS[el.name];
    if (why && !notes.includes(why)) notes.push(why);
  }
  if (elements(item, 'qti-template-declaration').length > 0) {
    return { ok: false, interaction: 'template', reason: 'template variables (cloned items) are not supported' };
  }
  if (!body) return { ok: false, interaction: 'none', reason: 'the item has no item body' };
  const interactions = descendants(body).filter(isInteraction);
  const kinds = [...new Set(interactions.map((i) => i.name))];
  const label = kinds.map((k) => k.replace(/^qti-/, '')).join('+') || 'none';
  if (interactions.length === 0) return { ok: false, interaction: 'none', reason: 'the item has no interaction' };
  if (descendants(body).some((e) => e.name === 'math')) notes.push('MathML is kept as its text');
  const images = descendants(body)
    .filter((e) => e.name === 'img' || (e.name === 'object' && (e.attrs['type'] ?? '').startsWith('image/')))
    .map((e) => ({ href: e.attrs['src'] ?? e.attrs['data'] ?? '', alt: e.attrs['alt'] ?? '' }));
  const decls = readDeclarations(item);
  const rp = readProcessing(item, [...decls.keys()].filter((k) => k !== ''));
  const max = maxScore(item);
  const title = item.attrs['title']?.trim() ?? '';
  const imageInline = (e: XElement): string | undefined =>
    opts.imageText && (e.name === 'img' || e.name === 'object') ? opts.imageText({ href: e.attrs['src'] ?? e.attrs['data'] ?? '', alt: e.attrs['alt'] ?? '' }) : undefined;
  const ctx: Ctx = { item, body, decls, rp, max, title, notes, imageInline };

  const skip = (reason: string): ItemMapping => ({ ok: false, interaction: label, reason });
  let result: QuestionInput | string;
  if (interactions.every((i) => INLINE.has(i.name)) && (interactions.length > 1 || kinds.includes('qti-inline-choice-interaction') || rp.kind === 'sum_map')) {
    result = fillBlanks(ctx, interactions);
  } else if (kinds.length === 1 && kinds[0] === 'qti-gap-match-interaction' && interactions.length === 1) {
    result = gapMatch(ctx, interactions[0]!);
  } else if (interactions.length > 1) {
    return skip('the item has more than one interaction (a composite item), which Assay cannot mark as one question');
  } else {
    const it = interactions[0]!;
    switch (it.name) {
      case 'qti-choice-interaction':
        result = choice(ctx, it);
        break;
      case 'qti-text-entry-interaction':
        result = textEntry(ctx, it);
        break;
      case 'qti-extended-text-interaction':
        result = essay(ctx, it);
        break;
      case 'qti-upload-interaction':
        result = upload(ctx, it);
        break;
      case 'qti-match-interaction':
        result = matching(ctx, it);
        break;
      case 'qti-order-interaction':
        result = ordering(ctx, it);
        break;
      default:
        return skip(`the ${it.name.replace(/^qti-/, '')} is not supported`);
    }
  }
  if (typeof result === 'string') return skip(result);
  if (!(result.points > 0)) return skip('the item is worth no points');
  if (result.points > 10_000) return skip(`the item is worth ${result.points} points; Assay allows at most 10000`);
  return { ok: true, question: result, interaction: label, notes, images };
}



function choice(ctx: Ctx, it: XElement): QuestionInput | string {
  const decl = declOf(ctx, it);
  if (typeof decl === 'string') return decl;
  const choices = elements(it, 'qti-simple-choice');
  if (choices.length < 2) return 'a choice interaction needs at least two choices';
  const ids = idMap(choices.map((c) => c.attrs['identifier'] ?? ''), 'o');
  const options = choices.map((c) => ({ id: ids.get(c.attrs['identifier'] ?? '')!, text: textOf(c) || '(empty)', ...(c.attrs['fixed'] === 'true' ? { fixed: true } : {}) }));
  const shuffle = it.attrs['shuffle'] === 'true' ? { shuffleOptions: true } : {};
  const single = (it.attrs['max-choices'] ?? '1') === '1';
  const prompt = promptOf(ctx, it);
  const qtiIds = choices.map((c) => c.attrs['identifier'] ?? '');
  const aon = allOrNothing(ctx.rp);
  if (aon !== null) {
    if (decl.correct.some((v) => !ids.has(v))) return 'the correct response names a choice that does not exist';
    if (single) {
      if (decl.correct.length !== 1) return 'a single-choice item needs exactly one correct choice';
      return { type: 'single_choice', prompt, points: aon as number, options, correctOptionId: ids.get(decl.correct[0]!)!, ...shuffle };
    }
    if (decl.correct.length === 0) return 'the item declares no correct response';
    return { type: 'multiple_choice', prompt, points: aon as number, options, correctOptionIds: decl.correct.map((v) => ids.get(v)!), partialCredit: false, ...shuffle };
  }
  if (ctx.rp.kind !== 'map_response') return rpReason(ctx.rp);
  const m = mappingOf(ctx, decl);
  if (typeof m === 'string') return m;
  const values = qtiIds.map((id) => valueOf(m, id));
  const right = qtiIds.filter((_, i) => values[i]! > 0);
  const w = values.find((v) => v > 0) ?? 0;
  if (right.length === 0) return 'the mapping gives no choice any points';
  if (single) {
    if (right.length !== 1 || values.some((v) => v < 0)) {
      return 'map_response with points on several choices (or negative points) cannot be expressed: a single-choice question scores one correct choice';
    }
    return { type: 'single_choice', prompt, points: round(capped(m, w)), options, correctOptionId: ids.get(right[0]!)!, ...shuffle };
  }
  // Assay's partial credit: points × (right picks − wrong picks) ÷ correct options, never below 0. A mapping
  // reproduces it exactly when each correct choice is worth w, each other choice −w, and the sum is bounded below by 0.
  const wrong = qtiIds.filter((_, i) => values[i]! <= 0);
  const weightsOk = allEqual(right.map((id) => valueOf(m, id))) && wrong.every((id) => Math.abs(valueOf(m, id) + w) < 1e-9);
  const boundsOk = wrong.length === 0 || m.lowerBound === 0;
  const total = round(w * right.length);
  if (!weightsOk || !boundsOk || (m.upperBound !== null && m.upperBound < total - 1e-9)) {
    return "map_response weights that Assay's partial credit cannot reproduce (Assay: each correct choice w, each wrong choice −w, never below 0)";
  }
  return { type: 'multiple_choice', prompt, points: total, options, correctOptionIds: right.map((id) => ids.get(id)!), partialCredit: true, ...shuffle };
}

function textEntry(ctx: Ctx, it: XElement): QuestionInput | string {
  const decl = declOf(ctx, it);
  if (typeof decl === 'string') return decl;
  if (decl.cardinality !== 'single') return 'a text entry with a multiple response cannot be expressed';
  const prompt = promptOf(ctx, it);
  if (decl.baseType === 'float' || decl.baseType === 'integer') {
    let answer: number | null = null;
    let tolerance = 0;
    let points: number;
    const rp = ctx.rp;
    if (rp.kind === 'match_correct' || (rp.kind === 'conditional' && (rp.op === 'match' || rp.op === 'equal'))) {
      points = rp.kind === 'match_correct' ? 1 : rp.points;
      answer = decl.correct.length === 1 ? Number(decl.correct[0]) : null;
      if (answer === null || !Number.isFinite(answer)) return 'the item declares no numeric correct response';
      if (rp.kind === 'conditional' && rp.op === 'equal') {
        if (!rp.includeLower || !rp.includeUpper) return 'a tolerance that excludes its bounds cannot be expressed (Assay includes them)';
        const [t0 = 0, t1 = t0] = rp.tolerance;
        if (!(t0 >= 0) || !(t1 >= 0)) return 'the tolerance is not a number';
        if (rp.toleranceMode === 'absolute') {
          if (t0 !== t1) return 'an asymmetric tolerance cannot be expressed (Assay has one tolerance either side)';
          tolerance = t0;
        } else if (rp.toleranceMode === 'relative') {
          if (t0 !== t1) return 'an asymmetric relative tolerance cannot be expressed';
          // Relative: ± t percent of the answer, the same interval as an absolute tolerance of |answer| × t ÷ 100.
          const abs = (Math.abs(answer) * t0) / 100;
          if (round(abs) !== abs) return 'a relative tolerance that has no exact absolute equivalent is not imported';
          tolerance = abs;
        } else if (rp.toleranceMode !== 'exact') return `tolerance mode "${rp.toleranceMode}" is not supported`;
      }
    } else if (rp.kind === 'map_response') {
      const m = mappingOf(ctx, decl);
      if (typeof m === 'string') return m;
      const positive = m.entries.filter((e) => e.value > 0);
      if (positive.length !== 1 || m.defaultValue !== 0 || m.entries.some((e) => e.value < 0)) {
        return 'map_response with several scored numbers cannot be expressed (a numeric question has one answer)';
      }
      answer = Number(positive[0]!.key);
      if (!Number.isFinite(answer)) return 'the mapped key is not a number';
      points = capped(m, positive[0]!.value);
    } else return rpReason(rp);
    return { type: 'numeric', prompt, points: round(points), answer, tolerance };
  }
  if (decl.baseType !== 'string') return `a text entry of base type "${decl.baseType}" is not supported`;
  const rp = ctx.rp;
  const aon = allOrNothing(rp);
  if (aon !== null) {
    if (decl.correct.length === 0) return 'the item declares no correct response';
    // match compares strings exactly: case-sensitive.
    return { type: 'short_text', prompt, points: aon as number, acceptedAnswers: decl.correct, caseSensitive: true };
  }
  if (rp.kind !== 'map_response') return rpReason(rp);
  const m = mappingOf(ctx, decl);
  if (typeof m === 'string') return m;
  const accepted = m.entries.filter((e) => e.value > 0);
  if (accepted.length === 0) return 'the mapping accepts no answer';
  if (m.defaultValue !== 0 || m.entries.some((e) => e.value < 0)) return 'a mapping that scores unlisted or wrong answers cannot be expressed';
  if (!allEqual(accepted.map((e) => e.value))) return 'map_response with unequal points for different answers cannot be expressed';
  if (new Set(accepted.map((e) => e.caseSensitive)).size > 1) return 'answers that differ in case sensitivity cannot be expressed (Assay has one setting per question)';
  return {
    type: 'short_text',
    prompt,
    points: round(capped(m, accepted[0]!.value)),
    acceptedAnswers: accepted.map((e) => e.key),
    caseSensitive: accepted[0]!.caseSensitive,
  };
}

function rubricOf(ctx: Ctx): string | undefined {
  const blocks = descendants(ctx.item).filter((e) => e.name === 'qti-rubric-block');
  const t = blocks.map((b) => textOf(b)).filter(Boolean).join('\n\n');
  return t || undefined;
}
const manualPoints = (ctx: Ctx) => ctx.max ?? 1;
const intAttr = (it: XElement, name: string) => {
  const n = Number(it.attrs[name]);
  return Number.isInteger(n) && n > 0 ? n : undefined;
};

function essay(ctx: Ctx, it: XElement): QuestionInput {
  const rubric = rubricOf(ctx);
  const maxWords = intAttr(it, 'data-max-words');
  return { type: 'essay', prompt: promptOf(ctx, it), points: manualPoints(ctx), ...(rubric ? { rubric } : {}), ...(maxWords && maxWords <= 100_000 ? { maxWords } : {}) };
}

function upload(ctx: Ctx, it: XElement): QuestionInput {
  const rubric = rubricOf(ctx);
  const types = (it.attrs['type'] ?? '').split(/[\s,]+/).map((t) => t.trim().toLowerCase()).filter((t) => /^[a-z0-9][a-z0-9!#$&^_.+-]*\/(\*|[a-z0-9][a-z0-9!#$&^_.+-]*)$/.test(t));
  if (types.length === 0) ctx.notes.push('no accepted file type given: PDF and images are accepted');
  const maxBytes = intAttr(it, 'data-max-bytes');
  return {
    type: 'file_upload',
    prompt: promptOf(ctx, it),
    points: manualPoints(ctx),
    accept: types.length > 0 ? [...new Set(types)].slice(0, 20) : ['application/pdf', 'image/*'],
    ...(maxBytes && maxBytes <= 20 * 1024 * 1024 ? { maxBytes } : {}),
    ...(rubric ? { rubric } : {}),
  };
}

function matching(ctx: Ctx, it: XElement): QuestionInput | string {
  const decl = declOf(ctx, it);
  if (typeof decl === 'string') return decl;
  const sets = elements(it, 'qti-simple-match-set');
  if (sets.length !== 2) return 'a match interaction needs two match sets';
  const stemEls = elements(sets[0]!, 'qti-simple-associable-choice');
  const choiceEls = elements(sets[1]!, 'qti-simple-associable-choice');
  if (stemEls.length < 1 || choiceEls.length < 2) return 'a match interaction needs at least one stem and two choices';
  const stemIds = idMap(stemEls.map((c) => c.attrs['identifier'] ?? ''), 's');
  const choiceIds = idMap(choiceEls.map((c) => c.attrs['identifier'] ?? ''), 'c');
  const stems = stemEls.map((c) => ({ id: stemIds.get(c.attrs['identifier'] ?? '')!, text: textOf(c) || '(empty)' }));
  const choices = choiceEls.map((c) => ({ id: choiceIds.get(c.attrs['identifier'] ?? '')!, text: textOf(c) || '(empty)' }));
  const prompt = promptOf(ctx, it);
  const pairsToCorrect = (pairs: string[]): Record<string, string> | string => {
    const correct: Record<string, string> = {};
    for (const p of pairs) {
      const [s, c] = p.split(/\s+/);
      if (!s || !c || !stemIds.has(s) || !choiceIds.has(c)) return `the pair "${p}" does not name a stem and a choice`;
      if (correct[stemIds.get(s)!]) return 'a stem with several correct choices cannot be expressed (Assay matches each stem to one choice)';
      correct[stemIds.get(s)!] = choiceIds.get(c)!;
    }
    if (Object.keys(correct).length !== stems.length) return 'every stem needs exactly one correct choice';
    return correct;
  };
  const aon = allOrNothing(ctx.rp);
  if (aon !== null) {
    const correct = pairsToCorrect(decl.correct);
    if (typeof correct === 'string') return correct;
    return { type: 'matching', prompt, points: aon as number, stems, choices, correct, partialCredit: false };
  }
  if (ctx.rp.kind !== 'map_response') return rpReason(ctx.rp);
  const m = mappingOf(ctx, decl);
  if (typeof m === 'string') return m;
  const positive = m.entries.filter((e) => e.value > 0);
  if (m.defaultValue !== 0 || m.entries.some((e) => e.value < 0)) return 'a mapping that scores or penalises wrong pairs cannot be expressed';
  if (!allEqual(positive.map((e) => e.value))) return "map_response with unequal points per pair cannot be expressed (Assay's partial credit is equal per stem)";
  const correct = pairsToCorrect(positive.map((e) => e.key));
  if (typeof correct === 'string') return correct;
  const total = round(positive[0]!.value * stems.length);
  if (m.upperBound !== null && m.upperBound < total - 1e-9) return 'a mapping upper bound below the sum of the pairs cannot be expressed';
  return { type: 'matching', prompt, points: total, stems, choices, correct, partialCredit: true };
}

function ordering(ctx: Ctx, it: XElement): QuestionInput | string {
  const decl = declOf(ctx, it);
  if (typeof decl === 'string') return decl;
  const els = elements(it, 'qti-simple-choice');
  const ids = idMap(els.map((c) => c.attrs['identifier'] ?? ''), 'i');
  const textById = new Map(els.map((c) => [c.attrs['identifier'] ?? '', textOf(c) || '(empty)']));
  if (els.length < 2) return 'an order interaction needs at least two items';
  if (decl.correct.length !== els.length || new Set(decl.correct).size !== els.length || decl.correct.some((v) => !ids.has(v))) {
    return 'the correct order must list every item once';
  }
  const items = decl.correct.map((v) => ({ id: ids.get(v)!, text: textById.get(v)! }));
  const prompt = promptOf(ctx, it);
  const aon = allOrNothing(ctx.rp);
  if (aon !== null) return { type: 'ordering', prompt, points: aon as number, items, partialCredit: false };
  const rp = ctx.rp;
  if (rp.kind === 'positions') {
    const ok =
      rp.positions.length === els.length &&
      allEqual(rp.positions.map((p) => p.weight)) &&
      rp.positions.every((p, i) => p.index === i + 1 && p.id === decl.correct[i]) &&
      rp.positions[0]!.weight > 0;
    if (!ok) return 'position scoring that is not equal points for each item in its correct place cannot be expressed';
    return { type: 'ordering', prompt, points: round(rp.positions[0]!.weight * els.length), items, partialCredit: true };
  }
  return rpReason(rp);
}

