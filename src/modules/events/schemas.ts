import { Type } from '@sinclair/typebox';
import { ChangesSchema } from '../assignment-controls/control-schemas.js';
import { NullableTimestamp, Timestamp } from '../../platform/http/schemas.js';
import { AssignmentStatusSchema } from '../assignments/schemas.js';
import { ScoreSchema } from '../lifecycle/score.js';
import { ALL_EVENT_TYPES } from '../lifecycle/event-types.js';
import { AUTO_DISABLED_REASONS, DELIVERY_STATUSES } from '../webhooks/webhook-statuses.js';

/**
 * The event envelope as documented to partners: the same object is the
 * webhook body and an item of `GET /events`.
 */
export const EventTypeSchema = Type.Union(ALL_EVENT_TYPES.map((t) => Type.Literal(t)));

export const ViolationSchema = Type.Object(
  {
    id: Type.String({ description: 'The flag (flg_…); its evidence is in GET /assignments/{assignmentId}/proctoring' }),
    kind: Type.String({
      description:
        'no_face, multiple_faces (live_ai only), left_test, fullscreen_exit, copy_paste, camera_stopped, second_screen, proctoring_interrupted',
    }),
    severity: Type.Literal('critical'),
    startedAt: Timestamp,
    durationSeconds: Type.Number({ description: 'How long the condition had lasted when it became critical' }),
    evidence: Type.Object({ snapshot: Type.Boolean({ description: 'Whether an evidence snapshot was stored when the event was written' }) }),
  },
  { title: 'Violation', additionalProperties: true },
);

export const IntegritySchema = Type.Object(
  {
    confirmed: Type.Integer({ description: 'Critical flags the reviewer confirmed' }),
    dismissed: Type.Integer({ description: 'Critical flags the reviewer dismissed' }),
  },
  { title: 'IntegrityReview' },
);

export const EventData = Type.Object(
  {
    partnerAssignmentId: Type.Optional(Type.String({ description: 'The assignmentId' })),
    externalUserId: Type.Optional(Type.String()),
    testId: Type.Optional(Type.String()),
    status: Type.Optional(AssignmentStatusSchema),
    metadata: Type.Optional(Type.Object({}, { additionalProperties: true, description: 'Echo of the assignment metadata' })),
    sequence: Type.Optional(Type.Integer({ description: 'Increases by one with each event of the assignment: order by it' })),
    score: Type.Optional(Type.Union([ScoreSchema, Type.Null()], { description: 'exam.completed and grading.done' })),
    violation: Type.Optional(ViolationSchema),
    integrity: Type.Optional(IntegritySchema),
    changes: Type.Optional(ChangesSchema),
    endpointId: Type.Optional(Type.String({ description: 'webhook.test: the endpoint it was sent to; webhook_endpoint.disabled: the endpoint disabled' })),
    message: Type.Optional(Type.String({ description: 'webhook.test only' })),
    url: Type.Optional(Type.String({ description: 'webhook_endpoint.disabled: the disabled endpoint\'s URL' })),
    reason: Type.Optional(
      Type.String({ enum: [...AUTO_DISABLED_REASONS], description: 'webhook_endpoint.disabled: gone (it answered 410), failing (5 days of failed attempts)' }),
    ),
    disabledAt: Type.Optional(Type.String({ format: 'date-time', description: 'webhook_endpoint.disabled' })),
    failingSince: Type.Optional(
      Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'webhook_endpoint.disabled: the first failed attempt of the run that led to it' }),
    ),
  },
  { additionalProperties: true, description: 'Assignment events carry the assignment fields; new fields may be added' },
);

const eventFields = {
  id: Type.String({ description: 'evt_…; also the webhook-id header: dedupe on it' }),
  type: EventTypeSchema,
  timestamp: Type.String({ format: 'date-time', description: 'When the event happened' }),
  livemode: Type.Boolean({ description: 'false for an event of test mode (made with an ak_test_ key or by a simulated action), true otherwise' }),
  data: EventData,
};

export const EventView = Type.Object(eventFields, { title: 'Event' });

export const EventList = Type.Object({ data: Type.Array(EventView), hasMore: Type.Boolean() }, { title: 'EventList' });

export const EventsQuery = Type.Object(
  {
    limit: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
    startingAfter: Type.Optional(Type.String({ maxLength: 64, description: 'The id of the last event of the previous page' })),
    type: Type.Optional(EventTypeSchema),
    assignmentId: Type.Optional(Type.String({ maxLength: 64 })),
  },
  { additionalProperties: false },
);

const AttemptView = Type.Object({
  attemptedAt: Timestamp,
  statusCode: Type.Union([Type.Integer(), Type.Null()]),
  errorClass: Type.Union([Type.String(), Type.Null()], {
    description:
      'When no HTTP status came back: timeout, connection_refused, address_not_allowed, dns, tls, connection_reset, network; secret_unavailable when the service could not sign (operator configuration)',
  }),
  durationMs: Type.Integer(),
  responseExcerpt: Type.Union([Type.String(), Type.Null()], { description: 'The first 1 KB of the response body' }),
  nextAttemptAt: NullableTimestamp,
});

export const EventDetail = Type.Object(
  {
    ...eventFields,
    deliveries: Type.Array(
      Type.Object({
        endpointId: Type.String(),
        url: Type.String(),
        status: Type.Union(DELIVERY_STATUSES.map((s) => Type.Literal(s))),
        nextAttemptAt: NullableTimestamp,
        attempts: Type.Array(AttemptView),
      }),
    ),
  },
  { title: 'EventWithDeliveries' },
);

export const EventParams = Type.Object({ eventId: Type.String({ maxLength: 64 }) });

export const RedeliverBody = Type.Optional(
  Type.Object({ endpointId: Type.Optional(Type.String({ maxLength: 64 })) }, { additionalProperties: false }),
);

export const Redelivered = Type.Object({
  eventId: Type.String(),
  endpointIds: Type.Array(Type.String(), { description: 'The endpoints the event is now scheduled to, at once' }),
});
