import { Type } from '@sinclair/typebox';
import type { AnswerJson, CheckedValue } from '../definition.js';
import type { Point } from '../image-regions/geometry.js';
import { MAX_COORD } from './areas.js';

/** The points a candidate placed, in image pixels, in the order they were placed (Point 1, Point 2, …). */
export const PointsAnswer = Type.Array(
  Type.Object(
    { x: Type.Number({ minimum: 0, maximum: MAX_COORD }), y: Type.Number({ minimum: 0, maximum: MAX_COORD }) },
    { additionalProperties: false },
  ),
  { maxItems: 100, description: 'select_point: the placed points [{ x, y }, …] in image pixels, at most the question\'s maxPoints' },
);

const isCoord = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v) && v >= 0 && v <= MAX_COORD;

/**
 * A value the page sends, checked against the question: at most maxPoints
 * points within the bounds, rounded to whole pixels (QTI's point is two
 * integers, so the mark and an exported item's agree); none → null.
 */
export function checkPoints(maxPoints: number, value: AnswerJson): CheckedValue {
  if (value === null) return { ok: true, value: null };
  if (!Array.isArray(value)) return { ok: false, message: 'must be a list of points [{ x, y }, …] in image pixels' };
  if (value.length > maxPoints) return { ok: false, message: `has ${value.length} points; at most ${maxPoints} may be placed` };
  const out: Point[] = [];
  for (const [i, p] of value.entries()) {
    const keys = p !== null && typeof p === 'object' && !Array.isArray(p) ? Object.keys(p) : null;
    if (!keys || keys.length !== 2 || !keys.includes('x') || !keys.includes('y')) return { ok: false, message: `point ${i + 1} must be { x, y }` };
    const { x, y } = p as { x: AnswerJson; y: AnswerJson };
    if (!isCoord(x) || !isCoord(y)) return { ok: false, message: `point ${i + 1}'s x and y must be numbers from 0 to ${MAX_COORD} (image pixels)` };
    out.push({ x: Math.round(x), y: Math.round(y) });
  }
  return { ok: true, value: out.length > 0 ? (out as unknown as AnswerJson) : null };
}

/** The stored answer's points (an answer stored by an older rule or hand-edited is read as far as it is points). */
export function pointsOf(value: AnswerJson): Point[] {
  if (!Array.isArray(value)) return [];
  return value.filter((p): p is { x: number; y: number } => p !== null && typeof p === 'object' && !Array.isArray(p) && isCoord((p as Record<string, unknown>)['x']) && isCoord((p as Record<string, unknown>)['y'])).map((p) => ({ x: p.x, y: p.y }));
}
