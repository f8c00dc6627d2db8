/**
 * The Assay Partner API SDK: `new Assay({ apiKey, baseUrl })` for the API,
 * `verifyWebhook(body, headers, secret)` for incoming webhooks, typed from
 * the service's OpenAPI document.
 */
export { Assay, SDK_VERSION, type AssayOptions } from './client.js';
export {
  AssayAuthenticationError,
  AssayConflictError,
  AssayConnectionError,
  AssayError,
  AssayInvalidRequestError,
  AssayNotFoundError,
  AssayPermissionError,
  AssayRateLimitError,
  AssayServerError,
  AssayTimeoutError,
  AssayWebhookVerificationError,
  type AssayErrorInit,
  type ErrorDetail,
} from './errors.js';
export type { RequestOptions } from './transport.js';
export type { CreateOptions } from './resources/assignments.js';
export { verifyWebhook, type WebhookHeaders } from './webhooks.js';
export type * from './types.js';
export type { components, operations, paths } from './generated/openapi.js';
