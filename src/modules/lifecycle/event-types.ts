/**
 * Every event type a partner can receive. Assignment events (spec section 6
 * plus `assignment.expired`, `integrity.reviewed`, `assignment.updated` and
 * `assignment.cancelled`) carry the assignment envelope;
 * `webhook_endpoint.disabled` tells the institution that Assay disabled one
 * of its endpoints; `webhook.test` is sent to one endpoint on request and is
 * never fanned out by subscription.
 */
export const ASSIGNMENT_EVENT_TYPES = [
  'exam.started',
  'exam.completed',
  'grading.done',
  'assignment.expired',
  'violation.detected',
  'integrity.reviewed',
  'assignment.updated',
  'assignment.cancelled',
] as const;
export type AssignmentEventType = (typeof ASSIGNMENT_EVENT_TYPES)[number];

export const TEST_EVENT_TYPE = 'webhook.test';

/** Assay disabled an endpoint by itself (410 Gone, or 5 days of failures); sent to the institution's other endpoints. */
export const ENDPOINT_DISABLED_EVENT_TYPE = 'webhook_endpoint.disabled';

/** The types an endpoint can subscribe to (its `eventTypes`). */
export const SUBSCRIBABLE_EVENT_TYPES = [...ASSIGNMENT_EVENT_TYPES, ENDPOINT_DISABLED_EVENT_TYPE] as const;
export type SubscribableEventType = (typeof SUBSCRIBABLE_EVENT_TYPES)[number];

export const ALL_EVENT_TYPES = [...SUBSCRIBABLE_EVENT_TYPES, TEST_EVENT_TYPE] as const;
export type EventType = (typeof ALL_EVENT_TYPES)[number];

/** How long events (and their delivery attempts) are kept and listed. */
export const EVENT_RETENTION_MS = 30 * 24 * 60 * 60 * 1000;
