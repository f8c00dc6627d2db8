import { allOrNothing, capped, mappingOf, round, rpReason, valueOf, type Ctx } from '../../interchange/qti-item-context.js';
import { base, score, template, type Decl, type TextWriter } from '../../interchange/qti-writer.js';
import { esc, type XElement } from '../../interchange/xml.js';
import { choiceXml, readChoice } from '../choice-qti.js';
import type { SingleChoiceQuestion } from './schema.js';

/**
 * A choice interaction of one choice (max-choices 1) as a single choice
 * question: the one declared correct choice, marked all or nothing (match
 * correct, or a conditional), or a mapping that scores one choice and no
 * other. qti-items.ts reads the choice interaction and hands a one-choice
 * one here.
 */
export function readSingleChoice(ctx: Ctx, it: XElement): Omit<SingleChoiceQuestion, 'id'> | string {
  const c = readChoice(ctx, it);
  if (typeof c === 'string') return c;
  const { decl, options, ids, qtiIds, shuffle, prompt } = c;
  const aon = allOrNothing(ctx.rp);
  if (aon !== null) {
    if (decl.correct.some((v) => !ids.has(v))) return 'the correct response names a choice that does not exist';
    if (decl.correct.length !== 1) return 'a single-choice item needs exactly one correct choice';
    return { type: 'single_choice', prompt, points: aon as number, options, correctOptionId: ids.get(decl.correct[0]!)!, ...shuffle };
  }
  if (ctx.rp.kind !== 'map_response') return rpReason(ctx.rp);
  const m = mappingOf(ctx, decl);
  if (typeof m === 'string') return m;
  const values = qtiIds.map((id) => valueOf(m, id));
  const right = qtiIds.filter((_, i) => values[i]! > 0);
  const w = values.find((v) => v > 0) ?? 0;
  if (right.length === 0) return 'the mapping gives no choice any points';
  if (right.length !== 1 || values.some((v) => v < 0)) {
    return 'map_response with points on several choices (or negative points) cannot be expressed: a single-choice question scores one correct choice';
  }
  return { type: 'single_choice', prompt, points: round(capped(m, w)), options, correctOptionId: ids.get(right[0]!)!, ...shuffle };
}

/** The correct choice declared (mapped to the points when not 1); match_correct or map_response. */
export function writeSingleChoice(q: SingleChoiceQuestion, resp: string, w: TextWriter): { decls: Decl[]; body: string; rp: string } {
  const decls: Decl[] = [
    { id: resp, cardinality: 'single', baseType: 'identifier', correct: [q.correctOptionId], ...(q.points !== 1 ? { mapping: { entries: [{ key: q.correctOptionId, value: q.points }] } } : {}) },
  ];
  const body = w.block(q.prompt) + choiceXml(resp, q.options, 1, q.shuffleOptions ?? false, w);
  return { decls, body, rp: q.points === 1 ? template('match_correct') : template('map_response') };
}

/** As a composite's part: the points added to SCORE when the correct choice is chosen. */
export function summedSingleChoice(q: SingleChoiceQuestion, resp: string): string[] {
  const add = score(`<qti-sum><qti-variable identifier="SCORE"/>${base('float', q.points)}</qti-sum>`);
  return [`<qti-response-condition><qti-response-if><qti-match><qti-variable identifier="${esc(resp)}"/><qti-correct identifier="${esc(resp)}"/></qti-match>${add}</qti-response-if></qti-response-condition>`];
}
