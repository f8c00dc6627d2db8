import { Type, type Static } from '@sinclair/typebox';
import { common, Part, PartRef, scoring } from '../common-fields.js';

/** A matching question: each stem is matched to one of the choices (a choice may serve several stems). */
export const Matching = Type.Object(
  {
    type: Type.Literal('matching'),
    ...common,
    stems: Type.Array(Part, { minItems: 1, maxItems: 50, description: 'Each is shown with a select of the choices' }),
    choices: Type.Array(Part, { minItems: 2, maxItems: 50, description: 'A choice may serve several stems' }),
    correct: Type.Record(Type.String(), PartRef, { maxProperties: 50, propertyNames: { maxLength: 64 }, description: '{ stemId: choiceId } for every stem' }),
    partialCredit: Type.Optional(Type.Boolean({ default: true, description: 'points × correct stems ÷ stems; false: all or nothing' })),
    ...scoring,
  },
  { additionalProperties: false, title: 'MatchingQuestion' },
);
export type MatchingQuestion = Static<typeof Matching> & { id: string };
