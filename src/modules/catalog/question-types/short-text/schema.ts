import { Type, type Static } from '@sinclair/typebox';
import { common, scoring } from '../common-fields.js';
import { aiFields } from '../ai-marking-fields.js';
import { parameterFields } from '../parameters/schema.js';

/** A short-text answer with its own points, case rule or pattern (catalog/accepted-answers.ts reads both forms). */
export const AcceptedAnswerEntry = Type.Object(
  {
    text: Type.String({ minLength: 1, maxLength: 1_000, description: 'The answer as shown to staff and used as the sample answer; matched (like a plain string) unless `pattern` is given' }),
    points: Type.Optional(Type.Number({ minimum: 0, maximum: 10_000, description: "Points for this answer, at most the question's; absent: the question's points" })),
    caseSensitive: Type.Optional(Type.Boolean({ description: "Whether capitals must match; absent: the question's caseSensitive. Not with `pattern` (a pattern says its own capitals)" })),
    pattern: Type.Optional(
      Type.String({ minLength: 1, maxLength: 1_000, description: 'An XML Schema regular expression the whole (trimmed) answer must match, instead of `text`; capitals as written' }),
    ),
  },
  { additionalProperties: false, title: 'AcceptedAnswer' },
);
export const ShortText = Type.Object(
  {
    type: Type.Literal('short_text'),
    ...common,
    acceptedAnswers: Type.Array(Type.Union([Type.String({ minLength: 1, maxLength: 1_000 }), AcceptedAnswerEntry]), {
      maxItems: 100,
      description:
        'Plain strings earn the full points; entries may carry their own points, case rule or pattern. The mark is the best matching entry, capped at the points. At least one, unless answerFormula gives the answer',
    }),
    caseSensitive: Type.Optional(Type.Boolean({ default: false, description: 'For plain answers, and the default for entries' })),
    // With aiMarking, an answer that matches no accepted answer is marked by the model instead of getting 0.
    rubric: Type.Optional(Type.String({ maxLength: 10_000 })),
    ...aiFields,
    ...parameterFields,
    ...scoring,
  },
  { additionalProperties: false, title: 'ShortTextQuestion' },
);
export type ShortTextQuestion = Static<typeof ShortText> & { id: string };

/** The longest short-text answer, in characters. */
export const SHORT_TEXT_MAX = 1_000;
