import { Type, type Static } from '@sinclair/typebox';
import { common, Option, PartRef, scoring, shuffleOptions } from '../common-fields.js';

/** A single choice question: options, one of them correct. */
export const SingleChoice = Type.Object(
  {
    type: Type.Literal('single_choice'),
    ...common,
    options: Type.Array(Option, { minItems: 2, maxItems: 50 }),
    correctOptionId: PartRef,
    shuffleOptions,
    ...scoring,
  },
  { additionalProperties: false, title: 'SingleChoiceQuestion' },
);
export type SingleChoiceQuestion = Static<typeof SingleChoice> & { id: string };
