import type { QuestionInput } from '../schemas.js';
import { readDeclarations, readProcessing, maxScore, type Mapping, type Processing, type ResponseDeclaration } from './response-processing.js';
import { descendants, elements, first, textOf, type XElement } from './xml.js';

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

const PART_ID = /^[A-Za-z0-9_-]{1,64}$/;
export const isPartId = (s: string) => PART_ID.test(s);

/** Ids for options, stems, items, blanks: the QTI identifier when Assay accepts it, else `prefix` + position. */
function idMap(ids: string[], prefix: string): Map<string, string> {
  const out = new Map<string, string>();
  const used = new Set<string>();
  ids.forEach((id, i) => {
    let mine = isPartId(id) && !used.has(id) ? id : `${prefix}${i + 1}`;
    while (used.has(mine)) mine = `${mine}_`;
    used.add(mine);
    out.set(id, mine);
  });
  return out;
}

const INLINE = new Set(['qti-text-entry-interaction', 'qti-inline-choice-interaction']);
const HARMLESS: Record<string, string> = {
  'qti-modal-feedback': 'feedback is not imported',
  'qti-feedback-block': 'feedback is not imported',
  'qti-feedback-inline': 'feedback is not imported',
  'qti-stylesheet': 'stylesheets are not imported',
  'qti-companion-materials-info': 'companion materials are not imported',
  'qti-catalog-info': 'catalogs (accessibility alternatives) are not imported',
  'qti-template-processing': 'template processing is not imported',
};

const round = (n: number) => Math.round(n * 1e9) / 1e9;
const allEqual = (xs: number[]) => xs.length > 0 && xs.every((x) => Math.abs(x - xs[0]!) < 1e-9);
const isInteraction = (e: XElement) => e.name.endsWith('-interaction');

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

interface Ctx {
  item: XElement;
  body: XElement;
  decls: Map<string, ResponseDeclaration>;
  rp: Processing;
  max: number | null;
  title: string;
  notes: string[];
  imageInline: (e: XElement) => string | undefined;
}

/** The prompt: the body's text outside interactions, then the interaction's own prompt. */
function promptOf(ctx: Ctx, it?: XElement): string {
  const outside = textOf(ctx.body, {
    skip: (e) => isInteraction(e) || e.name === 'qti-rubric-block' || e.name.startsWith('qti-feedback'),
    inline: ctx.imageInline,
  });
  const own = it && first(it, 'qti-prompt') ? textOf(first(it, 'qti-prompt')!) : '';
  return [outside, own].filter(Boolean).join('\n\n') || ctx.title || 'Question';
}

function declOf(ctx: Ctx, it: XElement): ResponseDeclaration | string {
  const id = it.attrs['response-identifier'] ?? '';
  return ctx.decls.get(id) ?? `the interaction's response "${id}" has no response declaration`;
}

const UNEXPRESSIBLE = 'custom response processing that Assay cannot express';

/** Points of an all-or-nothing item: match_correct gives 1; the written-out form gives its value. */
function allOrNothing(rp: Processing): number | string | null {
  if (rp.kind === 'match_correct') return 1;
  if (rp.kind === 'conditional' && rp.op === 'match') return rp.points;
  return null;
}

function rpReason(rp: Processing): string {
  if (rp.kind === 'none') return 'the item has no response processing, so it gives no score to reproduce';
  if (rp.kind === 'custom') return rp.why;
  if (rp.kind === 'template') return `response processing template ${rp.uri} is not one of the standard templates Assay reproduces`;
  if (rp.kind === 'map_response_point') return 'map_response_point (area mapping) is not supported';
  return `${rp.kind} response processing cannot be expressed for this interaction`;
}

function mappingOf(ctx: Ctx, decl: ResponseDeclaration): Mapping | string {
  if (ctx.rp.kind === 'map_response' && ctx.rp.responseId !== decl.identifier) return `map_response names "${ctx.rp.responseId}", not this interaction's response`;
  if (!decl.mapping) return 'map_response without a mapping';
  if (decl.mapping.entries.some((e) => !Number.isFinite(e.value))) return 'a mapped value is not a number';
  if (decl.mapping.lowerBound !== null && decl.mapping.lowerBound > 0) return 'a mapping lower bound above 0 cannot be expressed';
  return decl.mapping;
}

const valueOf = (m: Mapping, key: string) => m.entries.find((e) => e.key === key)?.value ?? m.defaultValue;
const capped = (m: Mapping, total: number) => (m.upperBound !== null ? Math.min(m.upperBound, total) : total);

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

/** Text entries and inline choices: one blank each, the body's text with {{id}} where each stands. */
function fillBlanks(ctx: Ctx, interactions: XElement[]): QuestionInput | string {
  const respIds = interactions.map((i) => i.attrs['response-identifier'] ?? '');
  const blankIds = idMap(respIds, 'b');
  const rp = ctx.rp;
  const single = interactions.length === 1;
  let weights: number[] = [];
  const blanks: Extract<QuestionInput, { type: 'fill_blanks' }>['blanks'] = [];
  const byMap = rp.kind === 'sum_map' || (rp.kind === 'map_response' && single);
  if (rp.kind === 'sum_map' && (rp.responseIds.length !== respIds.length || new Set(rp.responseIds).size !== respIds.length || rp.responseIds.some((id) => !respIds.includes(id)))) {
    return 'the response processing must sum the mapping of each blank once';
  }
  const aon = single ? allOrNothing(rp) : null;
  if (!byMap && aon === null) {
    return rp.kind === 'match_correct' || rp.kind === 'conditional' || rp.kind === 'map_response'
      ? 'all-or-nothing scoring across several blanks cannot be expressed (Assay splits the points equally across blanks)'
      : rpReason(rp);
  }
  for (const it of interactions) {
    const decl = declOf(ctx, it);
    if (typeof decl === 'string') return decl;
    const id = blankIds.get(decl.identifier)!;
    if (it.name === 'qti-inline-choice-interaction') {
      const opts = elements(it, 'qti-inline-choice');
      if (opts.length < 2) return 'an inline choice needs at least two choices';
      const optIds = idMap(opts.map((o) => o.attrs['identifier'] ?? ''), 'o');
      let correctKey: string | undefined;
      if (byMap) {
        const m = decl.mapping;
        if (!m) return `blank "${decl.identifier}" has no mapping`;
        const pos = opts.filter((o) => valueOf(m, o.attrs['identifier'] ?? '') > 0);
        if (pos.length !== 1 || opts.some((o) => valueOf(m, o.attrs['identifier'] ?? '') < 0)) return `blank "${decl.identifier}" scores several choices, which cannot be expressed`;
        correctKey = pos[0]!.attrs['identifier'];
        weights.push(capped(m, valueOf(m, correctKey!)));
      } else {
        correctKey = decl.correct[0];
        weights = [aon as number];
      }
      if (!correctKey || !optIds.has(correctKey)) return `blank "${decl.identifier}" has no correct choice`;
      blanks.push({ id, kind: 'choice', options: opts.map((o) => ({ id: optIds.get(o.attrs['identifier'] ?? '')!, text: textOf(o) || '(empty)' })), correctOptionId: optIds.get(correctKey)! });
    } else {
      let accepted: string[];
      let caseSensitive = true;
      if (byMap) {
        const m = decl.mapping;
        if (!m) return `blank "${decl.identifier}" has no mapping`;
        const pos = m.entries.filter((e) => e.value > 0);
        if (pos.length === 0 || !allEqual(pos.map((e) => e.value)) || m.defaultValue !== 0 || m.entries.some((e) => e.value < 0)) {
          return `blank "${decl.identifier}" has a mapping with unequal or negative points, which cannot be expressed`;
        }
        if (new Set(pos.map((e) => e.caseSensitive)).size > 1) return `blank "${decl.identifier}" mixes case-sensitive and case-insensitive answers`;
        accepted = pos.map((e) => e.key);
        caseSensitive = pos[0]!.caseSensitive;
        weights.push(capped(m, pos[0]!.value));
      } else {
        accepted = decl.correct;
        weights = [aon as number];
      }
      if (accepted.length === 0) return `blank "${decl.identifier}" accepts no answer`;
      blanks.push({ id, kind: 'text', acceptedAnswers: accepted, caseSensitive });
    }
  }
  if (!allEqual(weights)) return 'blanks worth different points cannot be expressed (Assay splits the points equally across blanks)';
  return withText(ctx, blanks, round(weights[0]! * blanks.length), (e) =>
    INLINE.has(e.name) ? `{{${blankIds.get(e.attrs['response-identifier'] ?? '')!}}}` : undefined,
  );
}

/** Splits the body: blocks without a blank are the prompt, blocks with one are the text. */
function withText(
  ctx: Ctx,
  blanks: Extract<QuestionInput, { type: 'fill_blanks' }>['blanks'],
  points: number,
  inline: (e: XElement) => string | undefined,
): QuestionInput | string {
  const holdsBlank = (e: XElement) => inline(e) !== undefined || descendants(e).some((d) => inline(d) !== undefined);
  const promptParts: string[] = [];
  const textParts: string[] = [];
  for (const c of ctx.body.children) {
    if (typeof c === 'string') {
      if (c.trim()) textParts.push(c.trim());
      continue;
    }
    if (c.name === 'qti-rubric-block' || c.name.startsWith('qti-feedback')) continue;
    const wrapper: XElement = { name: 'div', attrs: {}, children: [c] };
    if (holdsBlank(c)) textParts.push(textOf(wrapper, { inline: (e) => inline(e) ?? ctx.imageInline(e) }));
    else if (c.name === 'qti-gap-match-interaction') continue;
    else promptParts.push(textOf(wrapper, { inline: ctx.imageInline }));
  }
  const text = textParts.filter(Boolean).join('\n\n');
  if (!text) return 'the blanks are not placed in the text';
  return { type: 'fill_blanks', prompt: promptParts.filter(Boolean).join('\n\n') || ctx.title || 'Fill in the blanks.', points, text, blanks };
}

/** Gap match: each gap a choice blank offering every gap text. */
function gapMatch(ctx: Ctx, it: XElement): QuestionInput | string {
  const decl = declOf(ctx, it);
  if (typeof decl === 'string') return decl;
  const texts = elements(it, 'qti-gap-text');
  const gaps = descendants(it).filter((e) => e.name === 'qti-gap');
  if (texts.length < 2 || gaps.length < 1) return 'a gap match needs at least two gap texts and one gap';
  const textIds = idMap(texts.map((t) => t.attrs['identifier'] ?? ''), 'o');
  const gapIds = idMap(gaps.map((g) => g.attrs['identifier'] ?? ''), 'b');
  const options = texts.map((t) => ({ id: textIds.get(t.attrs['identifier'] ?? '')!, text: textOf(t) || '(empty)' }));
  const rp = ctx.rp;
  let pairs: string[];
  let w: number;
  const aon = allOrNothing(rp);
  if (aon !== null) {
    if (gaps.length > 1) return 'all-or-nothing scoring across several gaps cannot be expressed (Assay splits the points equally across blanks)';
    pairs = decl.correct;
    w = aon as number;
  } else if (rp.kind === 'map_response') {
    const m = mappingOf(ctx, decl);
    if (typeof m === 'string') return m;
    const pos = m.entries.filter((e) => e.value > 0);
    if (m.defaultValue !== 0 || m.entries.some((e) => e.value < 0) || !allEqual(pos.map((e) => e.value))) return 'a gap mapping with unequal or negative points cannot be expressed';
    pairs = pos.map((e) => e.key);
    w = pos[0]!.value;
    if (m.upperBound !== null && m.upperBound < w * gaps.length - 1e-9) return 'a mapping upper bound below the sum of the gaps cannot be expressed';
  } else return rpReason(rp);
  const correct = new Map<string, string>();
  for (const p of pairs) {
    const [t, g] = p.split(/\s+/);
    if (!t || !g || !textIds.has(t) || !gapIds.has(g)) return `the pair "${p}" does not name a gap text and a gap`;
    if (correct.has(g)) return 'a gap with several correct texts cannot be expressed';
    correct.set(g, t);
  }
  if (correct.size !== gaps.length) return 'every gap needs exactly one correct text';
  const blanks = gaps.map((g) => ({ id: gapIds.get(g.attrs['identifier'] ?? '')!, kind: 'choice' as const, options, correctOptionId: textIds.get(correct.get(g.attrs['identifier'] ?? '')!)! }));
  const inline = (e: XElement) => (e.name === 'qti-gap' ? `{{${gapIds.get(e.attrs['identifier'] ?? '')!}}}` : e.name === 'qti-gap-text' || e.name === 'qti-prompt' ? '' : undefined);
  const prompt = first(it, 'qti-prompt');
  const inner: Ctx = { ...ctx, body: { name: 'qti-item-body', attrs: {}, children: [...ctx.body.children.filter((c) => c !== it), ...it.children] } };
  const res = withText(inner, blanks, round(w * gaps.length), inline);
  if (typeof res !== 'string' && prompt && res.type === 'fill_blanks') {
    const p = textOf(prompt);
    res.prompt = res.prompt === (ctx.title || 'Fill in the blanks.') ? p : [res.prompt, p].join('\n\n');
  }
  return res;
}

export { mapResponse } from './response-processing.js';
