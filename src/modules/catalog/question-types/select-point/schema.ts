import { Type, type Static } from '@sinclair/typebox';
import type { ErrorDetail } from '../../../../platform/errors.js';
import { common, scoring } from '../common-fields.js';
import { shapeProblem } from '../image-regions/geometry.js';
import { Area, bestWith } from './areas.js';

/** A select_point question as the API takes it (the definition is select-point.ts), and the checks its schema cannot say. */
export const SelectPointQuestion = Type.Object(
  {
    type: Type.Literal('select_point'),
    ...common,
    image: Type.String({ pattern: '^asset:ast_[0-9A-Za-z]{1,64}$', description: 'The image the points are placed on: `asset:ast_…` (an uploaded content asset)' }),
    imageAlt: Type.String({ minLength: 1, maxLength: 1_000, description: 'Describes the image for screen-reader users (required)' }),
    areas: Type.Array(Area, { minItems: 1, maxItems: 100, description: 'The areas a point may fall in, in priority order: where areas overlap, a point counts for the first listed' }),
    maxPoints: Type.Integer({ minimum: 1, maximum: 100, description: 'How many points the candidate may place' }),
    ...scoring,
  },
  { additionalProperties: false, title: 'SelectPointQuestion' },
);
export type SelectPointQuestion = Static<typeof SelectPointQuestion>;

/** Checks the schema cannot say: unique area ids, coordinates that make their shape, full marks within reach (by the areas, unless kept processing marks). */
export function checkSelectPoint(q: SelectPointQuestion, at: string, details: ErrorDetail[]): void {
  const seen = new Set<string>();
  q.areas.forEach((a, i) => {
    if (seen.has(a.id)) details.push({ field: `${at}.areas.${i}.id`, message: `repeats the area id "${a.id}"` });
    seen.add(a.id);
    const problem = shapeProblem(a.shape, a.coords);
    if (problem) details.push({ field: `${at}.areas.${i}.coords`, message: problem });
  });
  const best = bestWith(q.areas, q.maxPoints);
  // Kept QTI processing gives the marks, so full marks are its to reach (import computed the points from it).
  if (!q.scoring && best < q.points - 1e-9) {
    details.push({
      field: `${at}.points`,
      message: `is ${q.points}, but ${q.maxPoints === 1 ? 'one point' : `${q.maxPoints} points`} can earn at most ${best} from the areas: raise an area's points or maxPoints, or lower the points`,
    });
  }
}
