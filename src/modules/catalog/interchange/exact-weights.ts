/**
 * Equal shares of a question's points that add up to exactly the points in
 * IEEE doubles when summed left to right, as a QTI engine sums mapped values
 * or `SCORE + w` conditions: n − 1 shares of points ÷ n, and a last share
 * that makes the sum exact. Every share is within a few units in the last
 * place of points ÷ n, so a reader sees equal weights. Written with
 * `String(x)` (the shortest text that reads back as the same double), a
 * share is never rounded on the way: 4 points in 3 shares sum to 4, not
 * 3.9999999999999996.
 */
export function exactWeights(points: number, n: number): number[] {
  if (!(n >= 1) || !Number.isInteger(n)) throw new RangeError(`cannot share points among ${n}`);
  const w = points / n;
  const out: number[] = Array.from({ length: n - 1 }, () => w);
  const sum = out.reduce((a, b) => a + b, 0);
  // With n ≥ 2 the sum so far is at least half the points, so points − sum is exact (Sterbenz) and sum + it is points.
  let last = points - sum;
  for (let step = 0; sum + last !== points && step < 64; step++) last = sum + last < points ? nextUp(last) : nextDown(last);
  out.push(last);
  return out;
}

const view = new DataView(new ArrayBuffer(8));
function nextUp(x: number): number {
  if (x === 0) return Number.MIN_VALUE;
  view.setFloat64(0, x);
  view.setBigInt64(0, view.getBigInt64(0) + (x > 0 ? 1n : -1n));
  return view.getFloat64(0);
}
const nextDown = (x: number) => -nextUp(-x);

/** A share as written in a mapping or a condition: the exact double, never rounded. */
export const weightText = (x: number) => String(x);
