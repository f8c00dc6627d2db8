import { roundPoints } from '../auto-mark.js';
import type { MarkingCriterion } from './prompt.js';

/**
 * Checks a model's reply (the parsed JSON of its message) against the reply
 * fixed shape (docs/ai-marking.md) and the question's criteria, pure.
 *
 * Invalid (a failed attempt, retried, then handed to a reviewer): not an
 * object of the shape; a criterion missing, unknown or given twice; a number
 * that is not finite; confidence outside 0–1.
 *
 * Out-of-range points are CLAMPED, not refused: a criterion's points below 0
 * become 0, above its maximum become the maximum, and the suggestion is
 * flagged `points_clamped`. A flagged suggestion never decides a mark by
 * itself: in `decide` mode the item goes to a reviewer, who sees the
 * model's per-criterion rationale. Refusing would throw away a usable
 * suggestion for what is usually a rounding slip.
 *
 * The total is always the sum of the (clamped) criteria points; a model total
 * that disagrees with the sum of its own criteria is flagged `total_mismatch`.
 */
export const CLAMPED_FLAG = 'points_clamped';
export const TOTAL_MISMATCH_FLAG = 'total_mismatch';
const MAX_FLAGS = 20;
const MAX_RATIONALE = 4_000;

export interface CriterionMark {
  criterion: string;
  points: number;
  maxPoints: number;
  rationale: string;
}

export interface CheckedReply {
  criteria: CriterionMark[];
  points: number;
  confidence: number;
  flags: string[];
}

export type ReplyCheck = { ok: true; reply: CheckedReply } | { ok: false; reason: string };

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

/** A model's flag as a short snake_case label; anything else is reduced to one. */
export function normaliseFlag(flag: string): string {
  const label = flag
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, 64);
  return label || 'unlabelled_flag';
}

export function checkReply(raw: unknown, criteria: readonly MarkingCriterion[]): ReplyCheck {
  const fail = (reason: string): ReplyCheck => ({ ok: false, reason: `invalid reply: ${reason}` });
  if (!isObject(raw)) return fail('not a JSON object');
  const extra = Object.keys(raw).filter((k) => !['criteria', 'points', 'confidence', 'flags'].includes(k));
  if (extra.length > 0) return fail(`unknown field ${JSON.stringify(extra[0])}`);
  if (!Array.isArray(raw.criteria)) return fail('"criteria" is not an array');
  if (!isNumber(raw.points)) return fail('"points" is not a number');
  if (!isNumber(raw.confidence)) return fail('"confidence" is not a number');
  if (raw.confidence < 0 || raw.confidence > 1) return fail(`"confidence" ${raw.confidence} is outside 0–1`);
  if (!Array.isArray(raw.flags) || !raw.flags.every((f) => typeof f === 'string')) return fail('"flags" is not an array of strings');

  const byName = new Map(criteria.map((c) => [c.criterion, c]));
  const given = new Map<string, { points: number; rationale: string }>();
  for (const [i, item] of raw.criteria.entries()) {
    if (!isObject(item)) return fail(`criteria[${i}] is not an object`);
    const { criterion, points, rationale } = item;
    if (typeof criterion !== 'string') return fail(`criteria[${i}].criterion is not a string`);
    if (!byName.has(criterion)) return fail(`unknown criterion ${JSON.stringify(criterion.slice(0, 100))}`);
    if (given.has(criterion)) return fail(`criterion ${JSON.stringify(criterion)} given twice`);
    if (!isNumber(points)) return fail(`criteria[${i}].points is not a number`);
    if (typeof rationale !== 'string') return fail(`criteria[${i}].rationale is not a string`);
    given.set(criterion, { points, rationale });
  }
  const missing = criteria.find((c) => !given.has(c.criterion));
  if (missing) return fail(`criterion ${JSON.stringify(missing.criterion)} is missing`);

  const flags = new Set<string>((raw.flags as string[]).slice(0, MAX_FLAGS).map(normaliseFlag));
  let rawSum = 0;
  const marks: CriterionMark[] = criteria.map((c) => {
    const g = given.get(c.criterion)!;
    rawSum += g.points;
    const points = roundPoints(Math.min(Math.max(g.points, 0), c.points));
    if (points !== roundPoints(g.points)) flags.add(CLAMPED_FLAG);
    return { criterion: c.criterion, points, maxPoints: c.points, rationale: g.rationale.slice(0, MAX_RATIONALE) };
  });
  // Half a hundredth of slack: models round their totals.
  if (Math.abs(rawSum - raw.points) > 0.005) flags.add(TOTAL_MISMATCH_FLAG);
  return {
    ok: true,
    reply: { criteria: marks, points: roundPoints(marks.reduce((s, m) => s + m.points, 0)), confidence: raw.confidence, flags: [...flags] },
  };
}
