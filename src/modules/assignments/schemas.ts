import { Type, type Static } from '@sinclair/typebox';
import { Nullable, NullableTimestamp, StringEnum, Timestamp } from '../../platform/http/schemas.js';
import { ASSIGNMENT_STATUSES } from '../lifecycle/state-machine.js';
import { ScoreSchema } from '../lifecycle/score.js';
import { PROCTORED_MODES } from '../catalog/test-settings.js';
import { REVIEW_STATUSES } from './proctoring-summary.js';
import { AccommodationsSchema } from './accommodations.js';
import { LOCALE_MAX_LENGTH } from './partner-locale.js';
import { CandidateFeedbackSchema } from './candidate-feedback.js';

export const AssignmentStatusSchema = StringEnum(ASSIGNMENT_STATUSES, {
  description:
    'See the state table: assigned → started → submitted → (marking →) completed; assigned → expired; assigned or started → cancelled (withdrawn by the institution)',
});

/** The partner read's `proctoring` member. */
export const PartnerProctoringSummary = Nullable(
  Type.Object({
    mode: StringEnum(PROCTORED_MODES),
    flags: Type.Object({ critical: Type.Integer(), warning: Type.Integer(), info: Type.Integer() }),
    reviewStatus: StringEnum(REVIEW_STATUSES, {
      description: 'not_required: no critical flag; pending: some critical flag awaits a reviewer; reviewed: every one is decided',
    }),
  }),
  { description: 'Null when the test is not proctored', title: 'AssignmentProctoring' },
);


export const CreateAssignmentBody = Type.Object(
  {
    externalUserId: Type.String({ minLength: 1, maxLength: 128, description: "Your stable user id; identity is keyed on it" }),
    testId: Type.String({ minLength: 1, maxLength: 64 }),
    user: Type.Object(
      { email: Type.String({ format: 'email', maxLength: 254 }), name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })) },
      { additionalProperties: false },
    ),
    callbackUrl: Type.String({ minLength: 1, maxLength: 2048, description: 'https URL on an allowlisted domain' }),
    dueAt: Type.Optional(Type.String({ format: 'date-time', description: 'Expires if not started by then; must be in the future' })),
    metadata: Type.Optional(Type.Object({}, { additionalProperties: true, description: 'Opaque JSON object, at most 1 KB compact' })),
    accommodations: Type.Optional(AccommodationsSchema),
    locale: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: LOCALE_MAX_LENGTH,
        description:
          "The candidate's language as a BCP 47 tag (`fr-CA`, `pt-BR`, `ar`): the pages are shown in the nearest language offered, with dates and numbers for its region. A well-formed tag with no nearest language (`nl`) is kept, and the pages say which language they fall back to; a malformed one is refused with 400",
      }),
    ),
  },
  { additionalProperties: false, title: 'CreateAssignment' },
);
export type CreateAssignmentBody = Static<typeof CreateAssignmentBody>;

export const IdempotencyHeaders = Type.Object({
  'idempotency-key': Type.Optional(
    Type.String({ minLength: 1, maxLength: 255, pattern: '^[\\x21-\\x7E]([\\x20-\\x7E]*[\\x21-\\x7E])?$', description: '1–255 printable ASCII characters' }),
  ),
});

export const CreatedAssignment = Type.Object(
  {
    assignmentId: Type.String(),
    status: AssignmentStatusSchema,
    externalUserId: Type.String(),
    testId: Type.String(),
    startUrl: Type.String({ format: 'uri' }),
    startUrlExpiresAt: Timestamp,
    createdAt: Timestamp,
  },
  { title: 'AssignmentCreated' },
);

export const AssignmentView = Type.Object(
  {
    assignmentId: Type.String(),
    status: AssignmentStatusSchema,
    externalUserId: Type.String(),
    testId: Type.String(),
    startUrl: Nullable(Type.String({ format: 'uri' }), { description: 'A freshly signed link while assigned or started; null otherwise' }),
    startUrlExpiresAt: NullableTimestamp,
    result: Type.Object({
      available: Type.Boolean({ description: 'True exactly when status is completed' }),
      score: Nullable(ScoreSchema),
      reportUrl: Type.Optional(
        Type.String({
          format: 'uri',
          description: "Once the result is available: a signed link, valid 15 minutes, to the candidate's printable report (HTML; add ?format=pdf for a PDF). A fresh one on every read; it carries no API key",
        }),
      ),
      feedback: Type.Optional(
        Type.Object(CandidateFeedbackSchema.properties, {
          title: 'CandidateFeedback',
          description:
            "Once the result is available, and only when a reviewer wrote some: the feedback for the candidate (plain text), as the candidate sees it on the completion page and the report. Absent before the result is available and when there is none",
        }),
      ),
    }),
    metadata: Type.Object({}, { additionalProperties: true }),
    dueAt: NullableTimestamp,
    accommodations: Nullable(AccommodationsSchema, { description: 'As granted at creation or by the latest PATCH; null for none' }),
    locale: Nullable(Type.String(), { description: 'The `locale` given at creation, exactly as sent; null when none was given' }),
    createdAt: Timestamp,
    startedAt: NullableTimestamp,
    submittedAt: NullableTimestamp,
    completedAt: NullableTimestamp,
    proctoring: PartnerProctoringSummary,
    cancelledAt: NullableTimestamp,
  },
  { title: 'Assignment' },
);
