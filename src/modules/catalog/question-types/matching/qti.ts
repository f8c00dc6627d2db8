import { allEqual, allOrNothing, declOf, idMap, mappingOf, promptOf, round, rpReason, textIn, type Ctx } from '../../interchange/qti-item-context.js';
import { exactWeights } from '../../interchange/exact-weights.js';
import { allOrNothing as allOrNothingRp, base, score, template, type Decl, type TextWriter } from '../../interchange/qti-writer.js';
import { elements, esc, type XElement } from '../../interchange/xml.js';
import type { MatchingQuestion } from './schema.js';
import type { ResponseDeclaration } from '../../interchange/response-processing.js';

/**
 * A match interaction as a matching question: its first match set the
 * stems, its second the choices, the declared pairs "stem choice" the key.
 * Marked by match (all or nothing), or a mapping worth the same for each
 * correct pair and nothing for a wrong one (partial credit per stem).
 */
export function readMatching(ctx: Ctx, it: XElement): Omit<MatchingQuestion, 'id'> | string {
  const decl = declOf(ctx, it);
  if (typeof decl === 'string') return decl;
  const sets = elements(it, 'qti-simple-match-set');
  if (sets.length !== 2) return 'a match interaction needs two match sets';
  const stemEls = elements(sets[0]!, 'qti-simple-associable-choice');
  const choiceEls = elements(sets[1]!, 'qti-simple-associable-choice');
  if (stemEls.length < 1 || choiceEls.length < 2) return 'a match interaction needs at least one stem and two choices';
  const stemIds = idMap(stemEls.map((c) => c.attrs['identifier'] ?? ''), 's');
  const choiceIds = idMap(choiceEls.map((c) => c.attrs['identifier'] ?? ''), 'c');
  const stems = stemEls.map((c) => ({ id: stemIds.get(c.attrs['identifier'] ?? '')!, text: textIn(ctx, c) || '(empty)' }));
  const choices = choiceEls.map((c) => ({ id: choiceIds.get(c.attrs['identifier'] ?? '')!, text: textIn(ctx, c) || '(empty)' }));
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
  return matchingByRule(ctx, decl, { prompt, stems, choices }, pairsToCorrect);
}

/**
 * The matching question an interaction's stems and choices make under the
 * item's processing: match (all or nothing) or a mapping of equal points
 * per correct pair (partial credit), the pairs read into `{ stemId:
 * choiceId }` by `pairsToCorrect`; else why not.
 */
export function matchingByRule(
  ctx: Ctx,
  decl: ResponseDeclaration,
  shell: Pick<MatchingQuestion, 'prompt' | 'stems' | 'choices'>,
  pairsToCorrect: (pairs: string[]) => Record<string, string> | string,
): Omit<MatchingQuestion, 'id'> | string {
  const { prompt, stems, choices } = shell;
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

/** A match interaction declaring the pairs; with partial credit a mapping of equal shares per pair (summing to exactly the points), else all or nothing. */
export function writeMatching(q: MatchingQuestion, resp: string, w: TextWriter): { decls: Decl[]; body: string; rp: string } {
  const partial = q.partialCredit ?? true;
  const pairs = q.stems.map((s) => `${s.id} ${q.correct[s.id]}`);
  const decls: Decl[] = [
    {
      id: resp,
      cardinality: 'multiple',
      baseType: 'directedPair',
      correct: pairs,
      ...(partial ? { mapping: { entries: pairs.map((p, i) => ({ key: p, value: exactWeights(q.points, pairs.length)[i]! })), upper: q.points } } : {}),
    },
  ];
  const set = (parts: Array<{ id: string; text: string }>, max: number) =>
    `<qti-simple-match-set>${parts.map((p) => `<qti-simple-associable-choice identifier="${esc(p.id)}" match-max="${max}">${w.inline(p.text)}</qti-simple-associable-choice>`).join('')}</qti-simple-match-set>`;
  const body = `${w.block(q.prompt)}<qti-match-interaction response-identifier="${resp}" max-associations="${q.stems.length}" shuffle="false">${set(q.stems, 1)}${set(q.choices, q.stems.length)}</qti-match-interaction>`;
  return { decls, body, rp: partial ? template('map_response') : allOrNothingRp(q.points) };
}

/** As a composite's part: the mapped pairs added to SCORE (partial credit), else the points when every pair is right. */
export function summedMatching(q: MatchingQuestion, resp: string): string[] {
  const add = (v: string) => score(`<qti-sum><qti-variable identifier="SCORE"/>${v}</qti-sum>`);
  if (q.partialCredit ?? true) return [add(`<qti-map-response identifier="${esc(resp)}"/>`)];
  const cond = `<qti-match><qti-variable identifier="${esc(resp)}"/><qti-correct identifier="${esc(resp)}"/></qti-match>`;
  return [`<qti-response-condition><qti-response-if>${cond}${add(base('float', q.points))}</qti-response-if></qti-response-condition>`];
}
