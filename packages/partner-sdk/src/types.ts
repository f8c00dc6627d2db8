import type { components, operations } from './generated/openapi.js';

/**
 * Names for the shapes of the Partner API, all derived from the types
 * generated from the service's OpenAPI document (src/generated/openapi.ts),
 * so the SDK's types change when the service's schemas do.
 */
type Schemas = components['schemas'];
type Json<Op extends keyof operations, Status extends number> = operations[Op]['responses'] extends Record<Status, { content: { 'application/json': infer B } }> ? B : never;
type Query<Op extends keyof operations> = NonNullable<operations[Op]['parameters']['query']>;
type Body<Op extends keyof operations> = operations[Op]['requestBody'] extends { content: { 'application/json': infer B } } | undefined ? B : never;

export type Test = Schemas['Test'];
export type Score = Schemas['Score'];
export type CandidateFeedback = Schemas['CandidateFeedback'];
export type Assignment = Schemas['Assignment'];
export type AssignmentCreated = Schemas['AssignmentCreated'];
export type AssignmentStatus = Assignment['status'];
export type CreateAssignmentParams = Schemas['CreateAssignment'];
export type UpdateAssignmentParams = Schemas['UpdateAssignment'];
export type AssignmentProctoring = Schemas['ProctoringReport'];
export type StartLink = Json<'reissueStartLink', 200>;
export type SimulateParams = Schemas['SimulateAssignment'];
export type SimulateAction = SimulateParams['action'];
export type TestDataWiped = Schemas['TestDataWiped'];

export type AssayEvent = Schemas['Event'];
export type EventType = AssayEvent['type'];
export type EventWithDeliveries = Schemas['EventWithDeliveries'];
export type Redelivered = Json<'redeliverEvent', 202>;

export type WebhookEndpoint = Schemas['WebhookEndpoint'];
export type WebhookEndpointCreated = Schemas['WebhookEndpointCreated'];
export type CreateWebhookEndpointParams = Schemas['CreateWebhookEndpoint'];
export type UpdateWebhookEndpointParams = Schemas['UpdateWebhookEndpoint'];
export type WebhookSecretRotated = Schemas['WebhookSecretRotated'];
export type WebhookTestSent = Json<'sendWebhookTestEvent', 202>;

export type ListTestsParams = Query<'listTests'>;
export type TestList = Json<'listTests', 200>;
export type ListEventsParams = Query<'listEvents'>;
export type EventList = Json<'listEvents', 200>;
export type ListWebhookEndpointsParams = Query<'listWebhookEndpoints'>;
export type WebhookEndpointList = Json<'listWebhookEndpoints', 200>;
export type RedeliverParams = NonNullable<Body<'redeliverEvent'>>;
