import { Type, type Static } from '@sinclair/typebox';
import { common, scoring } from '../common-fields.js';
import { parameterFields } from '../parameters/schema.js';

/** A numeric question: one number, right within `tolerance` either side (inclusive); parametrised, the number is its formula's value for the candidate's values. */
export const NumericQ = Type.Object(
  {
    type: Type.Literal('numeric'),
    ...common,
    answer: Type.Optional(Type.Number({ description: 'Required, unless answerFormula calculates it from the variables' })),
    tolerance: Type.Optional(Type.Number({ minimum: 0, default: 0 })),
    ...parameterFields,
    ...scoring,
  },
  { additionalProperties: false, title: 'NumericQuestion' },
);
export type NumericQuestion = Static<typeof NumericQ> & { id: string };

/** The longest text a numeric answer may hold (the field keeps what was typed, "3,5" or a half-typed "-"). */
export const NUMERIC_TEXT_MAX = 100;
