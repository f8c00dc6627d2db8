import { Type } from '@sinclair/typebox';
import { NullableTimestamp, Timestamp } from '../../platform/http/schemas.js';
import { SUBSCRIBABLE_EVENT_TYPES } from '../lifecycle/event-types.js';
import { DISABLED_REASONS, ENDPOINT_STATUSES } from './webhook-statuses.js';

/** Route schemas of webhook endpoint management (partner and operator). */
export const SubscribableEventType = Type.Union(
  SUBSCRIBABLE_EVENT_TYPES.map((t) => Type.Literal(t)),
  { description: 'An event type an endpoint can subscribe to' },
);

const EventTypes = Type.Union([Type.Array(SubscribableEventType, { minItems: 1, maxItems: 20 }), Type.Null()], {
  description: 'Event types to receive; null or absent: every type, including types added later. `webhook.test` is always delivered on request.',
});
const Url = Type.String({ minLength: 1, maxLength: 2048, format: 'uri', description: 'https URL on a public host' });
const Description = Type.Union([Type.String({ maxLength: 500 }), Type.Null()]);

export const EndpointParams = Type.Object({ endpointId: Type.String({ maxLength: 64 }) });

export const CreateEndpointBody = Type.Object(
  { url: Url, eventTypes: Type.Optional(EventTypes), description: Type.Optional(Description) },
  { additionalProperties: false, title: 'CreateWebhookEndpoint' },
);

export const UpdateEndpointBody = Type.Object(
  {
    url: Type.Optional(Url),
    eventTypes: Type.Optional(EventTypes),
    description: Type.Optional(Description),
    status: Type.Optional(Type.Union(ENDPOINT_STATUSES.map((s) => Type.Literal(s)))),
  },
  { additionalProperties: false, minProperties: 1, title: 'UpdateWebhookEndpoint' },
);

const endpointFields = {
  endpointId: Type.String(),
  url: Type.String({ format: 'uri' }),
  description: Description,
  eventTypes: EventTypes,
  status: Type.Union(ENDPOINT_STATUSES.map((s) => Type.Literal(s))),
  disabledReason: Type.Union(
    [...DISABLED_REASONS.map((r) => Type.Literal(r)), Type.Null()],
    { description: 'partner: by you; operator: by the Assay operator; gone: the endpoint answered 410; failing: every attempt failed for 5 days' },
  ),
  disabledAt: NullableTimestamp,
  failingSince: Type.Union([Timestamp, Type.Null()], { description: 'Start of the current run of failed attempts; null when the last attempt succeeded' }),
  createdAt: Timestamp,
  updatedAt: Timestamp,
  livemode: Type.Boolean({ description: 'false for a test-mode endpoint (created with an ak_test_ key): it receives test-mode events only' }),
};

export const EndpointView = Type.Object(endpointFields, { title: 'WebhookEndpoint' });

const Secret = Type.String({ description: 'whsec_… signing secret; shown only here. Verify with the standardwebhooks library.' });

export const CreatedEndpoint = Type.Object({ ...endpointFields, secret: Secret }, { title: 'WebhookEndpointCreated' });

export const RotatedSecret = Type.Object(
  {
    endpointId: Type.String(),
    secret: Secret,
    previousSecretExpiresAt: Type.Unsafe<Date | string>({
      type: 'string',
      format: 'date-time',
      description: 'Until then deliveries carry signatures by both the new and the previous secret',
    }),
  },
  { title: 'WebhookSecretRotated' },
);

export const TestEventSent = Type.Object({ eventId: Type.String({ description: 'The webhook.test event; see GET /events/{eventId}' }) });

export const OperatorEndpointView = Type.Object({ ...endpointFields, institutionId: Type.String() }, { title: 'OperatorWebhookEndpoint' });
