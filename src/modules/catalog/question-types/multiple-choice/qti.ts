import { allEqual, allOrNothing, mappingOf, round, rpReason, valueOf, type Ctx } from '../../interchange/qti-item-context.js';
import { exactWeights } from '../../interchange/exact-weights.js';
import { allOrNothing as allOrNothingRp, base, score, template, type Decl, type TextWriter } from '../../interchange/qti-writer.js';
import { esc, type XElement } from '../../interchange/xml.js';
import { choiceXml, readChoice } from '../choice-qti.js';
import type { MultipleChoiceQuestion } from './schema.js';

/**
 * A choice interaction of several choices as a multiple choice question:
 * the declared correct choices marked all or nothing, or a mapping that is
 * Assay's partial credit (each correct choice w, each other −w, never below
 * 0). qti-items.ts reads the choice interaction and hands a several-choice
 * one here.
 */
export function readMultipleChoice(ctx: Ctx, it: XElement): Omit<MultipleChoiceQuestion, 'id'> | string {
  const c = readChoice(ctx, it);
  if (typeof c === 'string') return c;
  const { decl, options, ids, qtiIds, shuffle, prompt } = c;
  const aon = allOrNothing(ctx.rp);
  if (aon !== null) {
    if (decl.correct.some((v) => !ids.has(v))) return 'the correct response names a choice that does not exist';
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

/** The correct choices declared; partial credit as a mapping (each right pick +w, each wrong −w, bounded by 0 and the points), else all or nothing. */
export function writeMultipleChoice(q: MultipleChoiceQuestion, resp: string, w: TextWriter): { decls: Decl[]; body: string; rp: string } {
  const partial = q.partialCredit ?? false;
  // Shares whose sum, in the order the correct options are listed, is exactly the points.
  const shares = exactWeights(q.points, q.correctOptionIds.length);
  const wrongPick = shares[0]!;
  const share = new Map(q.correctOptionIds.map((id, i) => [id, shares[i]!]));
  const decls: Decl[] = [
    {
      id: resp,
      cardinality: 'multiple',
      baseType: 'identifier',
      correct: q.correctOptionIds,
      // Assay's partial credit: each right pick +w, each wrong pick −w, never below 0.
      ...(partial ? { mapping: { entries: q.options.map((o) => ({ key: o.id, value: share.get(o.id) ?? -wrongPick })), lower: 0, upper: q.points } } : {}),
    },
  ];
  const body = w.block(q.prompt) + choiceXml(resp, q.options, 0, q.shuffleOptions ?? false, w);
  return { decls, body, rp: partial ? template('map_response') : allOrNothingRp(q.points) };
}

/** As a composite's part: the mapped points added to SCORE (partial credit), else the points when the choices are exactly the key. */
export function summedMultipleChoice(q: MultipleChoiceQuestion, resp: string): string[] {
  const add = (v: string) => score(`<qti-sum><qti-variable identifier="SCORE"/>${v}</qti-sum>`);
  if (q.partialCredit) return [add(`<qti-map-response identifier="${esc(resp)}"/>`)];
  return [
    `<qti-response-condition><qti-response-if><qti-match><qti-variable identifier="${esc(resp)}"/><qti-correct identifier="${esc(resp)}"/></qti-match>${add(base('float', q.points))}</qti-response-if></qti-response-condition>`,
  ];
}
