import { Type, type Static } from '@sinclair/typebox';
import { common, Part, PartId, PartRef, scoring } from '../common-fields.js';

const TextBlank = Type.Object(
  {
    id: PartId,
    kind: Type.Literal('text'),
    acceptedAnswers: Type.Array(Type.String({ minLength: 1, maxLength: 1_000 }), { minItems: 1, maxItems: 100 }),
    caseSensitive: Type.Optional(Type.Boolean({ default: false })),
  },
  { additionalProperties: false, title: 'TextBlank' },
);
const ChoiceBlank = Type.Object(
  { id: PartId, kind: Type.Literal('choice'), options: Type.Array(Part, { minItems: 2, maxItems: 50 }), correctOptionId: PartRef },
  { additionalProperties: false, title: 'ChoiceBlank' },
);
/** A text with blanks placed as {{blankId}}: each a typed answer or a choice from a list. */
export const FillBlanks = Type.Object(
  {
    type: Type.Literal('fill_blanks'),
    ...common,
    text: Type.String({ minLength: 1, maxLength: 10_000, description: 'The text with each blank placed as {{blankId}}' }),
    blanks: Type.Array(Type.Union([TextBlank, ChoiceBlank]), { minItems: 1, maxItems: 50, description: 'Points split equally across blanks' }),
    ...scoring,
  },
  { additionalProperties: false, title: 'FillBlanksQuestion' },
);
export type FillBlanksQuestion = Static<typeof FillBlanks> & { id: string };
export type Blank = FillBlanksQuestion['blanks'][number];

/** Blanks are placed in the text as {{id}}. */
export const BLANK_PLACEHOLDER = /\{\{\s*([A-Za-z0-9_-]{1,64})\s*\}\}/g;

/** The longest text a blank's answer may hold, in characters (a choice blank holds an option id). */
export const BLANK_MAX = 1_000;
