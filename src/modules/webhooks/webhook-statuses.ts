/**
 * The closed lists of webhooks, each written once: an endpoint's status and
 * why it was disabled, and a delivery's status. Route and job schemas build
 * their literals from these, so the documented values cannot drift.
 */

export const ENDPOINT_STATUSES = ['enabled', 'disabled'] as const;
export type EndpointStatus = (typeof ENDPOINT_STATUSES)[number];

/** partner: by the institution; operator: by the Assay operator; gone: the endpoint answered 410; failing: 5 days of failed attempts. */
export const DISABLED_REASONS = ['partner', 'operator', 'gone', 'failing'] as const;
export type DisabledReason = (typeof DISABLED_REASONS)[number];

/** The reasons Assay disables an endpoint by itself, which it tells the institution about (`webhook_endpoint.disabled`). */
export const AUTO_DISABLED_REASONS = DISABLED_REASONS.filter((r): r is Exclude<DisabledReason, 'partner' | 'operator'> => r !== 'partner' && r !== 'operator');
export type AutoDisabledReason = (typeof AUTO_DISABLED_REASONS)[number];

export const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];
