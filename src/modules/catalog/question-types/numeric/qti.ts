import { allOrNothing, base, f, score, type Decl, type TextWriter } from '../../interchange/qti-writer.js';
import { capped, declOf, mappingOf, promptOf, round, rpReason, type Ctx } from '../../interchange/qti-item-context.js';
import { esc, type XElement } from '../../interchange/xml.js';
import type { NumericQuestion } from './schema.js';

/**
 * A text entry whose response is a number (float or integer) as a numeric
 * question: the declared correct response, marked by match (all or
 * nothing), equal with an absolute or exact relative tolerance (both sides
 * equal, bounds included), or a mapping that scores that one number. The
 * text entry interaction is read by qti-items.ts, which hands a numeric
 * response here (a string one is a short text).
 */
export function readNumeric(ctx: Ctx, it: XElement): Omit<NumericQuestion, 'id'> | string {
  const decl = declOf(ctx, it);
  if (typeof decl === 'string') return decl;
  if (decl.cardinality !== 'single') return 'a text entry with a multiple response cannot be expressed';
  const prompt = promptOf(ctx, it);
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

/** A float text entry declaring the answer; all or nothing within the tolerance (an `equal` with absolute bounds). */
export function writeNumeric(q: NumericQuestion, resp: string, w: TextWriter): { decls: Decl[]; body: string; rp: string } {
  // A parametrised question's correct response is set by its template processing (parameters/qti-template.ts).
  const decls: Decl[] = [{ id: resp, cardinality: 'single', baseType: 'float', correct: q.answer === undefined ? [] : [f(q.answer)] }];
  const body = `${w.block(q.prompt)}<p><qti-text-entry-interaction response-identifier="${resp}"/></p>`;
  return { decls, body, rp: allOrNothing(q.points, q.tolerance ?? 0) };
}

/** As a composite's part: the points added to SCORE when the number is within the tolerance. */
export function summedNumeric(q: NumericQuestion, resp: string): string[] {
  const tolerance = q.tolerance ?? 0;
  const add = score(`<qti-sum><qti-variable identifier="SCORE"/>${base('float', q.points)}</qti-sum>`);
  const cond =
    tolerance > 0
      ? `<qti-equal tolerance-mode="absolute" tolerance="${f(tolerance)} ${f(tolerance)}" include-lower-bound="true" include-upper-bound="true"><qti-variable identifier="${esc(resp)}"/><qti-correct identifier="${esc(resp)}"/></qti-equal>`
      : `<qti-match><qti-variable identifier="${esc(resp)}"/><qti-correct identifier="${esc(resp)}"/></qti-match>`;
  return [`<qti-response-condition><qti-response-if>${cond}${add}</qti-response-if></qti-response-condition>`];
}
