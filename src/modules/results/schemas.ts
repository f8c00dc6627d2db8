import { Type } from '@sinclair/typebox';
import { Nullable, StringEnum } from '../../platform/http/schemas.js';
import { ASSIGNMENT_STATUSES } from '../lifecycle/state-machine.js';

const Figure = (description: string) => Nullable(Type.Number(), { description: `${description}; null when it cannot be computed (too few attempts, no variance)` });

export const StatisticsParams = Type.Object({ testId: Type.String({ maxLength: 64 }) }, { additionalProperties: false });

export const StatisticsQuery = Type.Object(
  {
    institutionId: Type.String({ minLength: 1, maxLength: 64, description: 'The institution whose attempts are counted' }),
    version: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000, description: 'The test version; the newest when absent' })),
    livemode: Type.Optional(Type.Boolean({ default: true, description: 'false: test-mode assignments only; true (default): live ones only' })),
  },
  { additionalProperties: false },
);

export const TestStatisticsSchema = Type.Object(
  {
    testId: Type.String(),
    version: Type.Integer(),
    institutionId: Type.String(),
    livemode: Type.Boolean(),
    attempts: Type.Integer({ description: 'Completed assignments with a final score' }),
    meanPercent: Figure('Mean score in percent'),
    standardDeviation: Figure('Sample standard deviation (n − 1) of the score in percent'),
    alpha: Figure("Cronbach's alpha over the questions every attempt was given (questions outside pools)"),
    alphaItems: Type.Integer({ description: 'How many questions alpha is computed over' }),
    standardError: Figure('Standard error of measurement, standardDeviation × √(1 − alpha), in percent'),
    items: Type.Array(
      Type.Object({
        questionId: Type.String(),
        prompt: Type.String(),
        type: Type.String(),
        section: Type.String({ description: "The section's title ('' for a test without sections)" }),
        points: Type.Number(),
        attempts: Type.Integer({ description: 'Attempts that were given this question (a pool draws it for some only)' }),
        facility: Figure('Mean mark ÷ points (partial credit as a fraction)'),
        discrimination: Figure("Pearson correlation of the question's mark with the total minus that question"),
        options: Type.Optional(
          Type.Array(
            Type.Object({
              optionId: Type.String(),
              text: Type.String(),
              correct: Type.Boolean(),
              chosen: Type.Integer({ description: 'Attempts given the question that chose this option' }),
              pointBiserial: Figure('Correlation of choosing this option (0/1) with the total'),
            }),
          ),
        ),
        flags: Type.Array(Type.String(), { description: 'Problems in words: "few attempts: under 30", "low discrimination", "a distractor nobody chose", "negative discrimination: check the key"' }),
      }),
    ),
  },
  { additionalProperties: false },
);

const Day = (description: string) => Type.String({ pattern: '^\\d{4}-\\d\\d-\\d\\d$', description: `${description} (YYYY-MM-DD, UTC, inclusive)` });

export const ResultsCsvParams = Type.Object({ institutionId: Type.String({ maxLength: 64 }) }, { additionalProperties: false });

/** The Assignments page's filters, by the names of the partner API's fields. */
export const ResultsCsvQuery = Type.Object(
  {
    status: Type.Optional(StringEnum(ASSIGNMENT_STATUSES)),
    testId: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    externalUserId: Type.Optional(Type.String({ minLength: 1, maxLength: 128, description: 'External user ids that start with this text' })),
    createdFrom: Type.Optional(Day('Created on or after this day')),
    createdTo: Type.Optional(Day('Created on or before this day')),
    livemode: Type.Optional(Type.Boolean({ default: true, description: 'false: test-mode assignments only; true (default): live ones only' })),
  },
  { additionalProperties: false },
);
