import { Type, type Static } from '@sinclair/typebox';
import { common, Option, PartRef, scoring, shuffleOptions } from '../common-fields.js';

/** A multiple choice question: options, one or more of them correct; with partial credit each right pick earns and each wrong one costs. */
export const MultipleChoice = Type.Object(
  {
    type: Type.Literal('multiple_choice'),
    ...common,
    options: Type.Array(Option, { minItems: 2, maxItems: 50 }),
    correctOptionIds: Type.Array(PartRef, { minItems: 1, maxItems: 50 }),
    partialCredit: Type.Optional(Type.Boolean({ default: false })),
    shuffleOptions,
    ...scoring,
  },
  { additionalProperties: false, title: 'MultipleChoiceQuestion' },
);
export type MultipleChoiceQuestion = Static<typeof MultipleChoice> & { id: string };
