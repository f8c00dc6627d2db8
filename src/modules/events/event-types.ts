/**
 * Every event type a partner can receive. Assignment events (spec section 6
 * plus `assignment.expired` and `integrity.reviewed`) carry the assignment envelope; `webhook.test` is
 * sent to one endpoint on request and is never fanned out by subscription.
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

export const ALL_EVENT_TYPES = [...ASSIGNMENT_EVENT_TYPES, TEST_EVENT_TYPE] as const;
export type EventType = (typeof ALL_EVENT_TYPES)[number];

/** How long events (and their delivery attempts) are kept and listed. */
export const EVENT_RETENTION_MS = 30 * 24 * 60 * 60 * 1000;
