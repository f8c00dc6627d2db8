import { Type, type Static } from '@sinclair/typebox';

/**
 * Regions and areas on a question's image (hotspot, select_point,
 * graphic_order): a rectangle `[left, top, right, bottom]`, a circle
 * `[centreX, centreY, radius]` or a polygon `[x1, y1, x2, y2, …]` (at least
 * three points), in the image's own pixels, as HTML image maps and QTI write
 * them. Pure.
 */
export const SHAPES = ['rect', 'circle', 'poly'] as const;
export type Shape = (typeof SHAPES)[number];

export const Coords = Type.Array(Type.Number({ minimum: 0, maximum: 100_000 }), {
  minItems: 3,
  maxItems: 200,
  description: 'rect: [left, top, right, bottom]; circle: [centreX, centreY, radius]; poly: [x1, y1, x2, y2, …] (3 to 100 points), in image pixels',
});

/** A point in image pixels. */
export interface Point {
  x: number;
  y: number;
}

/** Why the coordinates do not make the shape, or null. */
export function shapeProblem(shape: Shape, coords: readonly number[]): string | null {
  switch (shape) {
    case 'rect':
      if (coords.length !== 4) return 'a rect takes 4 numbers: left, top, right, bottom';
      if (!(coords[2]! > coords[0]!) || !(coords[3]! > coords[1]!)) return 'a rect needs right > left and bottom > top';
      return null;
    case 'circle':
      if (coords.length !== 3) return 'a circle takes 3 numbers: centre x, centre y, radius';
      if (!(coords[2]! > 0)) return "a circle's radius must be more than 0";
      return null;
    case 'poly':
      if (coords.length % 2 !== 0 || coords.length < 6) return 'a poly takes pairs of numbers, at least 3 points (x1, y1, x2, y2, x3, y3, …)';
      if (polygonArea(coords) === 0) return 'a poly must enclose an area (its points are all on one line)';
      return null;
  }
}

/** Whether the point lies in the shape; its edge counts as inside. */
export function contains(shape: Shape, coords: readonly number[], p: Point): boolean {
  switch (shape) {
    case 'rect':
      return p.x >= coords[0]! && p.x <= coords[2]! && p.y >= coords[1]! && p.y <= coords[3]!;
    case 'circle':
      return (p.x - coords[0]!) ** 2 + (p.y - coords[1]!) ** 2 <= coords[2]! ** 2;
    case 'poly':
      return onPolygonEdge(coords, p) || insidePolygon(coords, p);
  }
}

/** The shape's centre (a polygon's centroid): where a keyboard user's point starts and a label sits. */
export function centre(shape: Shape, coords: readonly number[]): Point {
  switch (shape) {
    case 'rect':
      return { x: (coords[0]! + coords[2]!) / 2, y: (coords[1]! + coords[3]!) / 2 };
    case 'circle':
      return { x: coords[0]!, y: coords[1]! };
    case 'poly': {
      const a = polygonArea(coords);
      let cx = 0;
      let cy = 0;
      for (let i = 0; i < coords.length; i += 2) {
        const [x0, y0, x1, y1] = [coords[i]!, coords[i + 1]!, coords[(i + 2) % coords.length]!, coords[(i + 3) % coords.length]!];
        const cross = x0 * y1 - x1 * y0;
        cx += (x0 + x1) * cross;
        cy += (y0 + y1) * cross;
      }
      return { x: cx / (6 * a), y: cy / (6 * a) };
    }
  }
}

/** The signed area of a polygon given as [x1, y1, x2, y2, …] (shoelace). */
function polygonArea(c: readonly number[]): number {
  let sum = 0;
  for (let i = 0; i < c.length; i += 2) sum += c[i]! * c[(i + 3) % c.length]! - c[(i + 2) % c.length]! * c[i + 1]!;
  return sum / 2;
}

/** Ray casting: crossings of a ray to the right of the point. */
function insidePolygon(c: readonly number[], p: Point): boolean {
  let inside = false;
  for (let i = 0, j = c.length - 2; i < c.length; j = i, i += 2) {
    const [xi, yi, xj, yj] = [c[i]!, c[i + 1]!, c[j]!, c[j + 1]!];
    if (yi > p.y !== yj > p.y && p.x < ((xj - xi) * (p.y - yi)) / (yj - yi) + xi) inside = !inside;
  }
  return inside;
}

function onPolygonEdge(c: readonly number[], p: Point): boolean {
  for (let i = 0, j = c.length - 2; i < c.length; j = i, i += 2) {
    const [x0, y0, x1, y1] = [c[j]!, c[j + 1]!, c[i]!, c[i + 1]!];
    const cross = (x1 - x0) * (p.y - y0) - (y1 - y0) * (p.x - x0);
    if (Math.abs(cross) <= 1e-9 * Math.max(1, Math.hypot(x1 - x0, y1 - y0)) && p.x >= Math.min(x0, x1) && p.x <= Math.max(x0, x1) && p.y >= Math.min(y0, y1) && p.y <= Math.max(y0, y1)) return true;
  }
  return false;
}

/** A region of an image: an id unique within the question, the label that names its control (required, like alt text), a shape. */
export const Region = Type.Object(
  {
    id: Type.String({ pattern: '^[A-Za-z0-9_-]{1,64}$' }),
    label: Type.String({ minLength: 1, maxLength: 200, description: 'Names the region\'s control for keyboard and screen-reader users (required, like alt text)' }),
    shape: Type.Union(SHAPES.map((s) => Type.Literal(s))),
    coords: Coords,
  },
  { additionalProperties: false, title: 'ImageRegion' },
);
export type Region = Static<typeof Region>;
