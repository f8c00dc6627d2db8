import { Type, type Static } from '@sinclair/typebox';
import { Nullable, StringEnum, TimestampText } from '../../platform/http/schemas.js';

/**
 * The score object (docs/api-rules.md "Marking and the score object"), carried by
 * `exam.completed`, `grading.done` and the assignment's `result.score`.
 * Beside the state machine because every transition that ends an attempt
 * carries one; the type is the schema's.
 */
export const ScoreSchema = Type.Object(
  {
    points: Type.Number(),
    maxPoints: Type.Number(),
    percent: Type.Number(),
    passed: Nullable(Type.Boolean(), { description: 'Null when the test has no pass mark or the score is not final' }),
    gradingStatus: StringEnum(['final', 'pending_review']),
    markedAt: TimestampText,
    sections: Type.Optional(
      Type.Array(
        Type.Object(
          {
            sectionId: Type.String(),
            title: Type.String(),
            points: Type.Number(),
            maxPoints: Type.Number(),
            percent: Type.Number(),
          },
          { title: 'SectionScore' },
        ),
        { description: 'Added with sections: the score of each section the candidate was given, for a test with sections (absent for a flat test)' },
      ),
    ),
    markedBy: Type.Optional(
      Type.String({
        description:
          "Added with AI marking, on scores released by marking (grading.done): who marked what the answer key could not: 'auto', 'reviewer', 'ai:<model>' or 'mixed'",
      }),
    ),
  },
  { title: 'Score' },
);

export type Score = Static<typeof ScoreSchema>;
