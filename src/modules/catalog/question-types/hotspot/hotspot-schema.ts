import { Type, type Static } from '@sinclair/typebox';
import { Region } from '../image-regions/geometry.js';
import { imageFields } from '../image-regions/region-picture.js';
import { common, scoring } from '../common-fields.js';

/** A hotspot question as the API takes it (hotspot.ts has the rules). */
export const HotspotQuestion = Type.Object(
  {
    type: Type.Literal('hotspot'),
    ...common,
    ...imageFields,
    regions: Type.Array(Region, { minItems: 1, maxItems: 50, description: 'The regions the candidate may choose, each a button named by its label' }),
    correctRegionIds: Type.Array(Type.String({ maxLength: 64 }), { minItems: 1, maxItems: 50, description: 'The regions the key counts right' }),
    maxChoices: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 50, description: 'At most this many regions may be chosen (at least the correct ones); absent: any number' }),
    ),
    ...scoring,
  },
  { additionalProperties: false, title: 'HotspotQuestion' },
);
export type HotspotQuestion = Static<typeof HotspotQuestion> & { id: string };

