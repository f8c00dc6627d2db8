import type { AreaMapping, Mapping, QtiBaseType, QtiScalar, Shape } from './types.js';
import { sameScalar } from './values.js';

/**
 * mapResponse and mapResponsePoint as QTI 3.0 defines them: a container's
 * values are mapped one by one and summed, each mapping entry (or area)
 * counted at most once; values no entry maps add the default value; the
 * sum is then clamped to the mapping's bounds.
 */

/** The sum for `values` (a single response is a container of one). `onStep` counts work against the run's step limit. */
export function mapValues(mapping: Mapping, values: QtiScalar[], base: QtiBaseType | null, onStep: () => void): number {
  const used = new Set<number>();
  const unmapped: QtiScalar[] = [];
  let sum = 0;
  for (const v of values) {
    let hit = -1;
    for (let i = 0; i < mapping.entries.length; i++) {
      onStep();
      const e = mapping.entries[i]!;
      const same =
        base === 'string' && !e.caseSensitive && typeof v === 'string' && typeof e.key === 'string'
          ? v.toLowerCase() === e.key.toLowerCase()
          : sameScalar(v, e.key, base);
      if (same) {
        hit = i;
        break;
      }
    }
    if (hit >= 0) {
      if (!used.has(hit)) sum += mapping.entries[hit]!.value;
      used.add(hit);
    } else if (!unmapped.some((u) => sameScalar(u, v, base))) {
      // A value the mapping does not list adds the default once, however often it is repeated.
      unmapped.push(v);
      sum += mapping.defaultValue;
    }
  }
  return clamp(sum, mapping);
}

/** The sum for points: each point scores the first area holding it; an area counts once; a point in none adds the default. */
export function mapPoints(mapping: AreaMapping, points: Array<[number, number]>, onStep: () => void): number {
  const used = new Set<number>();
  let sum = 0;
  for (const p of points) {
    let hit = -1;
    for (let i = 0; i < mapping.entries.length; i++) {
      onStep();
      const e = mapping.entries[i]!;
      if (inside(e.shape, e.coords, p)) {
        hit = i;
        break;
      }
    }
    if (hit < 0) sum += mapping.defaultValue;
    else if (!used.has(hit)) {
      used.add(hit);
      sum += mapping.entries[hit]!.value;
    }
  }
  return clamp(sum, mapping);
}

function clamp(sum: number, m: { lowerBound: number | null; upperBound: number | null }): number {
  if (m.lowerBound !== null) sum = Math.max(m.lowerBound, sum);
  if (m.upperBound !== null) sum = Math.min(m.upperBound, sum);
  return sum;
}

/** How many coordinates each shape needs (poly: an even number, at least three points). */
export function shapeProblem(shape: Shape, coords: number[]): string | null {
  const need: Record<Shape, number | null> = { rect: 4, circle: 3, ellipse: 4, default: 0, poly: null };
  const n = need[shape];
  if (n === null) return coords.length >= 6 && coords.length % 2 === 0 ? null : 'a poly area needs at least three x y pairs';
  if (shape === 'default') return null;
  return coords.length === n ? null : `a ${shape} area needs ${n} coordinates`;
}

/** Whether point `p` lies in the area (edges included), with HTML image-map coordinates. */
export function inside(shape: Shape, c: number[], [x, y]: [number, number]): boolean {
  switch (shape) {
    case 'default':
      return true;
    case 'rect':
      return x >= Math.min(c[0]!, c[2]!) && x <= Math.max(c[0]!, c[2]!) && y >= Math.min(c[1]!, c[3]!) && y <= Math.max(c[1]!, c[3]!);
    case 'circle':
      return (x - c[0]!) ** 2 + (y - c[1]!) ** 2 <= c[2]! ** 2;
    case 'ellipse': {
      const [cx, cy, rx, ry] = c as [number, number, number, number];
      if (rx <= 0 || ry <= 0) return false;
      return ((x - cx) / rx) ** 2 + ((y - cy) / ry) ** 2 <= 1;
    }
    case 'poly': {
      // Ray casting; a point on an edge counts as inside.
      let inPoly = false;
      const n = c.length / 2;
      for (let i = 0, j = n - 1; i < n; j = i++) {
        const xi = c[2 * i]!, yi = c[2 * i + 1]!, xj = c[2 * j]!, yj = c[2 * j + 1]!;
        const cross = (x - xi) * (yj - yi) - (y - yi) * (xj - xi);
        if (cross === 0 && x >= Math.min(xi, xj) && x <= Math.max(xi, xj) && y >= Math.min(yi, yj) && y <= Math.max(yi, yj)) return true;
        if (yi > y !== yj > y && x < ((xj - xi) * (y - yi)) / (yj - yi) + xi) inPoly = !inPoly;
      }
      return inPoly;
    }
  }
}
