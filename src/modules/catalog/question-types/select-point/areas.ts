import { Type, type Static } from '@sinclair/typebox';
import { centre, contains, Region, type Point } from '../image-regions/geometry.js';

/**
 * A select_point question's areas and how placed points score on them, as
 * QTI's areaMapping and mapResponsePoint define it: each point counts for
 * the first area (in the question's order) that holds it, so where areas
 * overlap the one listed first takes the point; an area scores its points
 * once however many points fall in it; a point in no area scores nothing.
 * The sum is capped at the question's points. Pure.
 */
export const Area = Type.Object(
  {
    ...Region.properties,
    points: Type.Number({ minimum: 0, maximum: 10_000, description: 'What a point placed in this area earns (once, however many points fall in it)' }),
  },
  { additionalProperties: false, title: 'SelectPointArea' },
);
export type Area = Static<typeof Area>;

/** The largest coordinate a point may have: the image's size is not known to the server, so this is the bound. */
export const MAX_COORD = 100_000;

/** The area a point counts for: the first in the question's order that holds it, or undefined. */
export function areaOf(areas: readonly Area[], p: Point): Area | undefined {
  return areas.find((a) => contains(a.shape, a.coords, p));
}

/** The areas the points hit (each once), in the question's order. */
export function areasHit(areas: readonly Area[], points: readonly Point[]): Area[] {
  const hit = new Set(points.map((p) => areaOf(areas, p)).filter((a): a is Area => a !== undefined));
  return areas.filter((a) => hit.has(a));
}

/** The mark: the hit areas' points summed, capped at the question's points. */
export function pointsFor(areas: readonly Area[], points: readonly Point[], cap: number): number {
  const sum = areasHit(areas, points).reduce((s, a) => s + a.points, 0);
  return Math.min(cap, Math.round(sum * 1e9) / 1e9);
}

/**
 * A point that counts for this area (inside it and in no area listed
 * before it), or null when earlier areas cover it wholly. The centre when
 * it will do, else the first of a grid over the area's bounding box; in
 * whole pixels, as QTI's point holds them.
 */
export function pointIn(areas: readonly Area[], area: Area): Point | null {
  const c = centre(area.shape, area.coords);
  const mid = { x: Math.round(c.x), y: Math.round(c.y) };
  if (areaOf(areas, mid) === area) return mid;
  const [left, top, right, bottom] = box(area);
  const steps = 24;
  for (let i = 1; i < steps; i++) {
    for (let j = 1; j < steps; j++) {
      const p = { x: Math.round(left + ((right - left) * i) / steps), y: Math.round(top + ((bottom - top) * j) / steps) };
      if (areaOf(areas, p) === area) return p;
    }
  }
  return null;
}

/** [left, top, right, bottom] of the area. */
export function box(area: Area): [number, number, number, number] {
  const c = area.coords;
  if (area.shape === 'circle') return [c[0]! - c[2]!, c[1]! - c[2]!, c[0]! + c[2]!, c[1]! + c[2]!];
  if (area.shape === 'rect') return [c[0]!, c[1]!, c[2]!, c[3]!];
  const xs = c.filter((_, i) => i % 2 === 0);
  const ys = c.filter((_, i) => i % 2 === 1);
  return [Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys)];
}

/** The most the areas can give with `count` points: the best `count` areas' points summed. */
export function bestWith(areas: readonly Area[], count: number): number {
  return [...areas]
    .map((a) => a.points)
    .sort((a, b) => b - a)
    .slice(0, count)
    .reduce((s, p) => s + p, 0);
}

