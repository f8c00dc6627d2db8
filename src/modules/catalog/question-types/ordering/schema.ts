import { Type, type Static } from '@sinclair/typebox';
import { common, Part, scoring } from '../common-fields.js';

/** An ordering question: its items listed in the correct order, which the candidate puts back in order. */
export const Ordering = Type.Object(
  {
    type: Type.Literal('ordering'),
    ...common,
    items: Type.Array(Part, { minItems: 2, maxItems: 50, description: 'In the correct order; shown in a per-candidate order that is never already correct' }),
    partialCredit: Type.Optional(Type.Boolean({ default: false, description: 'points × items in their correct place ÷ items; false: all or nothing' })),
    ...scoring,
  },
  { additionalProperties: false, title: 'OrderingQuestion' },
);
export type OrderingQuestion = Static<typeof Ordering> & { id: string };
