import { StoredAnswerSchema } from '../attempts/answer-values.js';
import { Type, type Static } from '@sinclair/typebox';
import { Nullable, NullableTimestamp, StringEnum, Timestamp } from '../../platform/http/schemas.js';
import { AssignmentStatusSchema } from '../assignments/schemas.js';
import { ScoreSchema } from '../lifecycle/score.js';
import { MARK_SOURCES } from './score.js';
import { SUGGESTION_STATUSES } from './ai/suggestions-repo.js';
import { AI_MARKING_MODES } from '../catalog/test-settings.js';
import { CandidateFeedbackInputSchema, CandidateFeedbackSchema } from '../assignments/candidate-feedback.js';

export const MarkingParams = Type.Object({ assignmentId: Type.String({ maxLength: 64 }) });

const CriterionMarkView = Type.Object(
  {
    criterion: Type.String(),
    points: Type.Number(),
    maxPoints: Type.Number({ description: "The criterion's points in the test" }),
    comment: Nullable(Type.String()),
  },
  { title: 'CriterionMark' },
);

const Mark = Type.Object({
  points: Type.Number({ description: 'For a question marked per criterion: the sum of the criteria points' }),
  criteria: Nullable(Type.Array(CriterionMarkView), {
    description: 'The marks per criterion (in the question’s criterion order) of a question marked against its criteria; null for a mark with one points box and for auto marks',
  }),
  source: StringEnum(MARK_SOURCES, { description: "Who marked: the answer key, a reviewer, or the model (decide mode; markedBy 'ai:<model>')" }),
  comment: Type.Union([Type.String(), Type.Null()]),
  markedBy: Type.Union([Type.String(), Type.Null()]),
  markedAt: Timestamp,
});

const NullableNumber = Nullable(Type.Number());
const NullableInteger = Nullable(Type.Integer());

export const AiProvenance = Type.Object(
  {
    model: Nullable(Type.String()),
    promptVersion: Nullable(Type.String(), { description: 'The prompt and reply schema version, e.g. mark-v1' }),
    requestId: Nullable(Type.String(), { description: "The model server's id for the call (response id or request-id header)" }),
    latencyMs: NullableInteger,
    promptTokens: NullableInteger,
    completionTokens: NullableInteger,
  },
  { title: 'AiProvenance' },
);

export const AiSuggestionSchema = Type.Object(
  {
    status: StringEnum(SUGGESTION_STATUSES, {
      description: 'pending: queued or retrying; suggested: a reply is stored; failed: the calls failed; handed_over: not sent (AI off, budget spent)',
    }),
    mode: StringEnum(AI_MARKING_MODES),
    minConfidence: Type.Number(),
    points: NullableNumber,
    maxPoints: Type.Number(),
    confidence: NullableNumber,
    flags: Type.Array(Type.String(), { description: 'e.g. possible_injection, points_clamped, total_mismatch, or flags the model raised' }),
    criteria: Nullable(
      Type.Array(Type.Object({ criterion: Type.String(), points: Type.Number(), maxPoints: Type.Number(), rationale: Type.String() })),
    ),
    failureReason: Nullable(Type.String()),
    attempts: Type.Integer({ description: 'Model calls made for this item' }),
    meetsDecideBar: Type.Boolean({ description: 'decide mode, suggested, confidence ≥ minConfidence and no flag' }),
    provenance: AiProvenance,
    reviewerPoints: NullableNumber,
    reviewerMatches: Nullable(Type.Boolean(), { description: "Whether the reviewer's mark equals the suggestion" }),
    reviewedAt: NullableTimestamp,
    updatedAt: Timestamp,
  },
  { title: 'AiSuggestion' },
);

export const MarkingItem = Type.Object({
  questionId: Type.String(),
  type: Type.String(),
  prompt: Type.String(),
  maxPoints: Type.Number(),
  answer: StoredAnswerSchema,
  wordCount: Type.Union([Type.Integer(), Type.Null()], { description: 'Essays only' }),
  maxWords: Type.Union([Type.Integer(), Type.Null()], { description: 'Essays only' }),
  rubric: Type.Union([Type.String(), Type.Null()], { description: 'Essays and short text answers' }),
  needsMarking: Type.Boolean({
    description: 'A marker (reviewer, or the model) marks this item: essays, and short text answers left to AI marking; others are auto-marked at submission',
  }),
  scoring: Nullable(
    Type.Object({ format: Type.Literal('qti'), note: Type.String() }, { title: 'MarkingItemScoring' }),
    { description: 'Set when the question keeps its imported QTI response processing: it is marked by running it (note says how, in words); null otherwise' },
  ),
  mark: Type.Union([Mark, Type.Null()]),
  criteria: Nullable(Type.Array(Type.Object({ criterion: Type.String(), points: Type.Number(), description: Type.String() }))),
  ai: Type.Union([AiSuggestionSchema, Type.Null()], { description: "The model's suggestion for this item, with its provenance; null when not AI-marked" }),
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
    sections: Type.Optional(
      Type.Array(Type.Object({ sectionId: Type.String(), title: Type.String(), questionIds: Type.Array(Type.String()) }), {
        description: 'A test with sections only: each section as the candidate was given it, with the ids of its items in shown order',
      }),
    ),
    feedback: Nullable(CandidateFeedbackSchema, {
      description: 'The feedback written for the candidate, shown to them (and in the partner read) once the result is released; null when none',
    }),
  },
  { title: 'MarkingView' },
);

export const RecordMarksBody = Type.Object(
  {
    marks: Type.Array(
      Type.Object(
        {
          questionId: Type.String({ minLength: 1, maxLength: 64 }),
          points: Type.Optional(
            Type.Number({
              minimum: 0,
              maximum: 10_000,
              description: 'Required for a question without criteria. For a question with criteria it is their sum: leave it out, or send the same sum',
            }),
          ),
          criteria: Type.Optional(
            Type.Array(
              Type.Object(
                {
                  criterion: Type.String({ minLength: 1, maxLength: 200, description: 'The criterion’s name, as the question’s criteria write it' }),
                  points: Type.Number({ minimum: 0, maximum: 10_000, description: "Between 0 and the criterion's points" }),
                  comment: Type.Optional(Type.String({ maxLength: 10_000 })),
                },
                { additionalProperties: false, title: 'CriterionMarkInput' },
              ),
              {
                maxItems: 50,
                description: 'Required for a question with criteria: every criterion once, each with its points (and an optional comment)',
              },
            ),
          ),
          comment: Type.Optional(Type.String({ maxLength: 10_000 })),
        },
        { additionalProperties: false },
      ),
      { maxItems: 500 },
    ),
    feedback: Type.Optional(
      Type.Object(CandidateFeedbackInputSchema.properties, {
        additionalProperties: false,
        description:
          'Feedback for the candidate (plain text), overall and per question, shown to them once the result is released. When sent it replaces the stored feedback; left out, the stored feedback is kept',
      }),
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
