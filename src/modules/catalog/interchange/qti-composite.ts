import type { CompositePart, QuestionInput } from '../schemas.js';
import { conditional, type Processing } from './response-processing.js';
import { descendants, elements, first, textOf, type XElement } from './xml.js';
import { idMap, isInteraction, round, type Ctx } from './qti-item-context.js';
import { questionTypeForInteraction } from '../question-types/registry.js';

/**
 * An item with several interactions to one composite question: one part
 * per interaction (part id = its response identifier), the body's text
 * before the first interaction as the question's prompt and the text before
 * each later one in that part's prompt. It imports only when the response
 * processing is a sum of one standard rule per response, which Assay marks
 * part by part:
 * - SCORE = mapResponse(A) + mapResponse(B) + … (one per response);
 * - or, after an optional SCORE = 0, one statement per response, each
 *   `SCORE = SCORE + mapResponse(R)`, `if isNull(R) … else SCORE = SCORE + mapResponse(R)`,
 *   `if match/equal(R, correct(R)) SCORE = SCORE + w`, or for an order
 *   interaction one `if R[n] = item SCORE = SCORE + w` per position.
 * Any other processing (the match_correct template, which reads only
 * RESPONSE, included) gives SPLIT_REASON here; the item is then built with
 * `ctx.keyOnly` (each part from its declared correct response) and keeps
 * its processing as `scoring` (qti-scoring-import.ts), each response
 * mapped to its part.
 */
export const SPLIT_REASON = 'composite item with response processing Assay cannot split by part';

const MAX_PARTS = 20;

const num = (s: string | undefined): number | null => {
  if (s === undefined || s.trim() === '') return null;
  const n = Number(s.trim());
  return Number.isFinite(n) ? n : null;
};
const text = (el: XElement | undefined): string => (el ? el.children.map((c) => (typeof c === 'string' ? c : text(c))).join('') : '');
const isVar = (e: XElement | undefined, id?: string) => e?.name === 'qti-variable' && (id === undefined || e.attrs['identifier'] === id);
const setsScore = (e: XElement | undefined) => e?.name === 'qti-set-outcome-value' && e.attrs['identifier'] === 'SCORE';

/** `SCORE = SCORE + X` (a sum of SCORE and one more term): that term, else null. */
function increment(set: XElement | undefined): XElement | null {
  if (!setsScore(set)) return null;
  const sum = elements(set!)[0];
  const terms = sum?.name === 'qti-sum' ? elements(sum) : [];
  if (terms.length !== 2) return null;
  const [a, b] = terms;
  if (isVar(a, 'SCORE')) return b!;
  if (isVar(b, 'SCORE')) return a!;
  return null;
}

/** One statement of the processing as one response's rule, or null when it is none of the shapes above. */
function ruleOf(statement: XElement): { responseId: string; rp: Processing } | null {
  const added = increment(statement);
  if (added?.name === 'qti-map-response') return { responseId: added.attrs['identifier'] ?? '', rp: { kind: 'map_response', responseId: added.attrs['identifier'] ?? '' } };
  if (statement.name !== 'qti-response-condition') return null;
  const [ifEl, elseEl, ...more] = elements(statement);
  if (ifEl?.name !== 'qti-response-if' || more.length > 0) return null;
  const [cond, ...then] = elements(ifEl);
  if (!cond) return null;
  // if isNull(R) [nothing] else SCORE = SCORE + mapResponse(R): the map_response template's shape, summed.
  if (cond.name === 'qti-is-null') {
    const id = elements(cond)[0]?.attrs['identifier'] ?? '';
    const thenZero = then.every((s) => {
      const t = increment(s);
      return t?.name === 'qti-base-value' && num(text(t)) === 0;
    });
    const elseSet = elseEl?.name === 'qti-response-else' ? elements(elseEl) : [];
    const mapped = elseSet.length === 1 ? increment(elseSet[0]) : null;
    if (!isVar(elements(cond)[0], id) || !thenZero || mapped?.name !== 'qti-map-response' || mapped.attrs['identifier'] !== id) return null;
    return { responseId: id, rp: { kind: 'map_response', responseId: id } };
  }
  if (elseEl || then.length !== 1 || (cond.name !== 'qti-match' && cond.name !== 'qti-equal')) return null;
  const args = elements(cond);
  // if R[n] = item SCORE = SCORE + w: one position of ordering partial credit (gathered per response by splitProcessing).
  const [idx, item] = args;
  if (cond.name === 'qti-match' && idx?.name === 'qti-index' && item?.name === 'qti-base-value' && args.length === 2) {
    const id = elements(idx)[0]?.attrs['identifier'] ?? '';
    const index = num(idx.attrs['n']);
    const w = increment(then[0]);
    const weight = w?.name === 'qti-base-value' ? num(text(w)) : null;
    if (!isVar(elements(idx)[0], id) || index === null || weight === null) return null;
    return { responseId: id, rp: { kind: 'positions', positions: [{ index, id: text(item).trim(), weight }] } };
  }
  // if match/equal(R, correct(R)) SCORE = SCORE + w: the match_correct template's shape, summed.
  const v = args.find((a) => isVar(a));
  const c = args.find((a) => a.name === 'qti-correct');
  const id = v?.attrs['identifier'] ?? '';
  if (args.length !== 2 || !v || !c || c.attrs['identifier'] !== id) return null;
  const w = increment(then[0]);
  const points = w?.name === 'qti-base-value' ? num(text(w)) : null;
  if (points === null || !(points > 0)) return null;
  return {
    responseId: id,
    rp: conditional(cond, points),
  };
}

/** Each response's own processing when the item's processing is a sum of one standard rule per response; null otherwise. */
export function splitProcessing(item: XElement, whole: Processing, responseIds: readonly string[]): Map<string, Processing> | null {
  const out = new Map<string, Processing>();
  const covers = (ids: readonly string[]) => ids.length === responseIds.length && new Set(ids).size === ids.length && ids.every((id) => responseIds.includes(id));
  if (whole.kind === 'sum_map') {
    if (!covers(whole.responseIds)) return null;
    for (const id of whole.responseIds) out.set(id, { kind: 'map_response', responseId: id });
    return out;
  }
  const rp = first(item, 'qti-response-processing');
  if (!rp || rp.attrs['template'] || rp.attrs['template-location']) return null;
  let body = elements(rp);
  // An opening SCORE = 0 changes nothing (SCORE starts at 0).
  if (setsScore(body[0]) && elements(body[0]!)[0]?.name === 'qti-base-value' && num(text(elements(body[0]!)[0])) === 0) body = body.slice(1);
  for (const statement of body) {
    const rule = ruleOf(statement);
    if (!rule) return null;
    const before = out.get(rule.responseId);
    // A response has one rule, except ordering partial credit: one statement per position.
    if (before?.kind === 'positions' && rule.rp.kind === 'positions') before.positions.push(...rule.rp.positions);
    else if (before) return null;
    else out.set(rule.responseId, rule.rp);
  }
  return covers([...out.keys()]) ? out : null;
}

/** The interactions a composite part may be: each marked by its key alone (and those of the registered types that may be parts). */
const PART_INTERACTIONS = new Set(['qti-choice-interaction', 'qti-text-entry-interaction', 'qti-match-interaction', 'qti-order-interaction']);
const isPartInteraction = (name: string) => PART_INTERACTIONS.has(name) || questionTypeForInteraction(name)?.part !== undefined;

/**
 * The composite question, or why the item is skipped. `mapPart` maps one
 * interaction under its own processing as a standalone item would be
 * (qti-items.ts), its prompt the text given.
 */
export function compositeItem(ctx: Ctx, interactions: XElement[], mapPart: (ctx: Ctx, it: XElement) => QuestionInput | string): QuestionInput | string {
  if (interactions.length > MAX_PARTS) return `a composite item with ${interactions.length} interactions (Assay allows at most ${MAX_PARTS} parts)`;
  const other = interactions.find((it) => !isPartInteraction(it.name));
  if (other) return `a composite item with a ${other.name.replace(/^qti-/, '')}, which cannot be a part of a composite question`;
  const responseIds = interactions.map((it) => it.attrs['response-identifier'] ?? '');
  // Key only (the item keeps its processing): each part is built from its declared correct response, as match_correct reads it.
  const split = ctx.keyOnly ? null : splitProcessing(ctx.item, ctx.rp, responseIds);
  if (!split && !ctx.keyOnly) return SPLIT_REASON;
  const segments = textSegments(ctx, interactions);
  const partIds = idMap(responseIds, 'p');
  const parts: CompositePart[] = [];
  for (const [k, it] of interactions.entries()) {
    const body: XElement = { name: 'qti-item-body', attrs: {}, children: [segments.parts[k] ?? ''] };
    const rp: Processing = split ? split.get(responseIds[k]!)! : { kind: 'match_correct' };
    const mapped = mapPart({ ...ctx, body, rp, title: 'Answer this part.' }, it);
    if (typeof mapped === 'string') return `part ${k + 1} (${responseIds[k]}): ${mapped}`;
    if (mapped.type === 'essay' || mapped.type === 'file_upload' || mapped.type === 'composite') return `part ${k + 1} cannot be marked by its key`;
    if (!(mapped.points > 0)) return `part ${k + 1} (${responseIds[k]}) is worth no points`;
    const { rubric: _r, aiMarking: _a, criteria: _c, ...part } = mapped as typeof mapped & { rubric?: unknown; aiMarking?: unknown; criteria?: unknown };
    parts.push({ ...part, id: partIds.get(responseIds[k]!)! } as CompositePart);
  }
  const points = round(parts.reduce((s, p) => s + p.points, 0));
  return { type: 'composite', prompt: segments.question || ctx.title || 'Answer each part.', points, parts };
}

/**
 * The body's text cut at each interaction: what comes before the first is
 * the question's; what comes between interaction k−1 and k is part k's
 * (text after the last interaction joins the last part's). When each
 * interaction sits in a top-level div of its own (as Assay exports parts),
 * each div's text is its part's, so a first part keeps its own prompt.
 */
function textSegments(ctx: Ctx, interactions: XElement[]): { question: string; parts: string[] } {
  const skip = (e: XElement) => e.name === 'qti-rubric-block' || e.name.startsWith('qti-feedback');
  const holder = new Map<XElement, number>();
  for (const c of ctx.body.children) {
    if (typeof c === 'string' || c.name !== 'div') continue;
    const inside = descendants(c).filter((d) => interactions.includes(d));
    if (inside.length === 1) holder.set(c, interactions.indexOf(inside[0]!));
  }
  const byDiv = holder.size === interactions.length;
  const index = new Map(interactions.map((it, k) => [it, k]));
  const marked = textOf(ctx.body, {
    skip,
    inline: (e) => {
      if (byDiv && holder.has(e)) {
        const own = textOf(e, { skip, inline: (x) => (isInteraction(x) ? '' : ctx.imageInline(x)) });
        return `\n\n\u0001${holder.get(e)}\u0001${own}\n\n`;
      }
      if (!byDiv && index.has(e)) return `\n\n\u0001${index.get(e)}\u0001\n\n`;
      return isInteraction(e) ? '' : ctx.imageInline(e);
    },
  });
  // [before the first, after the first up to the second, …, after the last]
  const pieces = marked.split(/\u0001\d+\u0001/).map((s) => s.replace(/\n{3,}/g, '\n\n').trim());
  if (byDiv) return { question: pieces[0] ?? '', parts: interactions.map((_, k) => pieces[k + 1] ?? '') };
  const parts = interactions.map((_, k) => (k === 0 ? '' : (pieces[k] ?? '')));
  const last = interactions.length - 1;
  parts[last] = [parts[last], pieces[interactions.length] ?? ''].filter(Boolean).join('\n\n');
  return { question: pieces[0] ?? '', parts };
}
