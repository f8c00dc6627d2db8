import { Type, type Static } from '@sinclair/typebox';
import { EXPRESSION_MAX_CHARS } from './expression.js';

/**
 * The fields a parametrised (calculated) question adds to `numeric` and
 * `short_text`: variables drawn per candidate when the attempt begins,
 * constraints the draw must meet, and the answer as a formula of them.
 * `{name}` in the prompt (and a short-text question's accepted answers) is
 * the candidate's value.
 */
export const MAX_VARIABLES = 20;
export const VARIABLE_NAME = '^[A-Za-z_][A-Za-z0-9_]*$';

const Name = Type.String({ pattern: VARIABLE_NAME, maxLength: 64, description: 'Written `{name}` in the prompt and by name in formulas' });
const Expression = Type.String({ minLength: 1, maxLength: EXPRESSION_MAX_CHARS });

export const RangeVariable = Type.Object(
  {
    name: Name,
    min: Type.Number({ minimum: -1e12, maximum: 1e12 }),
    max: Type.Number({ minimum: -1e12, maximum: 1e12 }),
    step: Type.Number({ exclusiveMinimum: 0, maximum: 1e12, description: 'The values are min, min + step, … up to max, each equally likely (1: whole numbers; 0.1: one decimal)' }),
  },
  { additionalProperties: false, title: 'RangeVariable' },
);
export const ListVariable = Type.Object(
  {
    name: Name,
    values: Type.Array(Type.Union([Type.Number(), Type.String({ minLength: 1, maxLength: 200 })]), {
      minItems: 1,
      maxItems: 100,
      description: 'One is drawn, each equally likely; text values may be shown in the prompt but not calculated with',
    }),
  },
  { additionalProperties: false, title: 'ListVariable' },
);
export const Variable = Type.Union([RangeVariable, ListVariable]);
export type Variable = Static<typeof Variable>;

export const parameterFields = {
  variables: Type.Optional(Type.Array(Variable, { maxItems: MAX_VARIABLES, description: 'Drawn for each candidate when the attempt begins' })),
  constraints: Type.Optional(
    Type.Array(Expression, { maxItems: 20, description: 'Conditions every draw meets (e.g. "a != b", "b^2 - 4*a*c >= 0"); a draw that fails one is drawn again' }),
  ),
  answerFormula: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: EXPRESSION_MAX_CHARS,
      description: "The answer from the candidate's values (e.g. \"a * b\"); numeric: instead of `answer`; short_text: accepted beside acceptedAnswers",
    }),
  ),
};
/** The parametrised fields as a question carries them. */
export interface Parametrised {
  variables?: Variable[];
  constraints?: string[];
  answerFormula?: string;
}

/** One candidate's values, by variable name. */
export type DrawnValues = Record<string, number | string>;

/** Whether a question carries variables to draw. */
export const isParametrised = (q: object): q is Parametrised & { variables: Variable[] } =>
  Array.isArray((q as Parametrised).variables) && (q as Parametrised).variables!.length > 0;
