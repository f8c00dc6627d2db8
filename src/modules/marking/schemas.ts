import { Type, type Static } from '@sinclair/typebox';
import { NullableTimestamp, Timestamp } from '../../platform/http/schemas.js';
import { AssignmentStatusSchema, ScoreSchema } from '../assignments/schemas.js';

export const MarkingParams = Type.Object({ assignmentId: Type.String({ maxLength: 64 }) });

const Mark = Type.Object({
  points: Type.Number(),
  source: Type.Union([Type.Literal('auto'), Type.Literal('reviewer')]),
  comment: Type.Union([Type.String(), Type.Null()]),
  markedBy: Type.Union([Type.String(), Type.Null()]),
  markedAt: Timestamp,
});

export const MarkingItem = Type.Object({
  questionId: Type.String(),
  type: Type.String(),
  prompt: Type.String(),
  maxPoints: Type.Number(),
  answer: Type.Union([Type.String(), Type.Array(Type.String()), Type.Null()], { description: 'The saved answer: option id(s) or text; null when unanswered' }),
  wordCount: Type.Union([Type.Integer(), Type.Null()], { description: 'Essays only' }),
  maxWords: Type.Union([Type.Integer(), Type.Null()], { description: 'Essays only' }),
  rubric: Type.Union([Type.String(), Type.Null()], { description: 'Essays only' }),
  needsMarking: Type.Boolean({ description: 'A reviewer marks this item (essays); others are auto-marked at submission' }),
  mark: Type.Union([Mark, Type.Null()]),
});

export const MarkingView = Type.Object(
  {
    assignmentId: Type.String(),
    institutionId: Type.String(),
    externalUserId: Type.String(),
    testId: Type.String(),
    title: Type.String(),
    marking: Type.String(),
    resultVisibility: Type.String(),
    passPercent: Type.Union([Type.Number(), Type.Null()]),
    status: AssignmentStatusSchema,
    startedAt: NullableTimestamp,
    submittedAt: NullableTimestamp,
    completedAt: NullableTimestamp,
    score: Type.Union([ScoreSchema, Type.Null()]),
    items: Type.Array(MarkingItem),
    awaitingMarking: Type.Array(Type.String(), { description: 'Question ids that still need a reviewer mark before marking can complete' }),
  },
  { title: 'MarkingView' },
);

export const RecordMarksBody = Type.Object(
  {
    marks: Type.Array(
      Type.Object(
        {
          questionId: Type.String({ minLength: 1, maxLength: 64 }),
          points: Type.Number({ minimum: 0, maximum: 10_000 }),
          comment: Type.Optional(Type.String({ maxLength: 10_000 })),
        },
        { additionalProperties: false },
      ),
      { maxItems: 500 },
    ),
    complete: Type.Boolean({ description: 'true: finish marking (every item awaiting a mark must have one) and release the final score' }),
    markedBy: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 200,
        description:
          'A name for the automation sending these marks, recorded as "operator-token:<name>" (without it: "operator-token"). ' +
          'People mark in the portal, where the signed-in reviewer is recorded.',
      }),
    ),
  },
  { additionalProperties: false, title: 'RecordMarks' },
);
export type RecordMarksBody = Static<typeof RecordMarksBody>;
