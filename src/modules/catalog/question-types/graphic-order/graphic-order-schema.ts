import { Type, type Static } from '@sinclair/typebox';
import { Region } from '../image-regions/geometry.js';
import { imageFields } from '../image-regions/region-picture.js';
import { common, scoring } from '../common-fields.js';

/** A graphic order question as the API takes it (graphic-order.ts has the rules). */
export const GraphicOrderQuestion = Type.Object(
  {
    type: Type.Literal('graphic_order'),
    ...common,
    ...imageFields,
    regions: Type.Array(Region, {
      minItems: 2,
      maxItems: 50,
      description: 'In the correct order; listed for the candidate in a per-candidate order that is never already correct',
    }),
    partialCredit: Type.Optional(Type.Boolean({ default: false, description: 'points × regions in their correct place ÷ regions; false: all or nothing' })),
    ...scoring,
  },
  { additionalProperties: false, title: 'GraphicOrderQuestion' },
);
export type GraphicOrderQuestion = Static<typeof GraphicOrderQuestion> & { id: string };
