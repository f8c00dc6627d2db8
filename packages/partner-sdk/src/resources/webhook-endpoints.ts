import type { RequestOptions, Send } from '../transport.js';
import type {
  CreateWebhookEndpointParams,
  ListWebhookEndpointsParams,
  UpdateWebhookEndpointParams,
  WebhookEndpoint,
  WebhookEndpointCreated,
  WebhookEndpointList,
  WebhookSecretRotated,
  WebhookTestSent,
} from '../types.js';
import { offsetPages } from './paging.js';

const path = (id: string, rest = '') => `/api/partner/v1/webhook-endpoints/${encodeURIComponent(id)}${rest}`;

/** Your webhook endpoints (`/webhook-endpoints`). */
export class WebhookEndpoints {
  constructor(private readonly send: Send) {}

  /** Registers an endpoint; the answer's `secret` is shown only this once: store it for `verifyWebhook`. */
  create(params: CreateWebhookEndpointParams, options?: RequestOptions): Promise<WebhookEndpointCreated> {
    return this.send({ method: 'POST', path: '/api/partner/v1/webhook-endpoints', body: params, options });
  }

  list(params: ListWebhookEndpointsParams = {}, options?: RequestOptions): Promise<WebhookEndpointList> {
    return this.send({ method: 'GET', path: '/api/partner/v1/webhook-endpoints', query: params, options });
  }

  listAll(params: Omit<ListWebhookEndpointsParams, 'offset'> = {}, options?: RequestOptions): AsyncIterableIterator<WebhookEndpoint> {
    return offsetPages((offset) => this.list({ limit: 100, ...params, offset }, options));
  }

  get(endpointId: string, options?: RequestOptions): Promise<WebhookEndpoint> {
    return this.send({ method: 'GET', path: path(endpointId), options });
  }

  update(endpointId: string, params: UpdateWebhookEndpointParams, options?: RequestOptions): Promise<WebhookEndpoint> {
    return this.send({ method: 'PATCH', path: path(endpointId), body: params, options });
  }

  async delete(endpointId: string, options?: RequestOptions): Promise<void> {
    await this.send({ method: 'DELETE', path: path(endpointId), options });
  }

  /** A new secret; for 24 hours deliveries are signed with both it and the previous one. */
  rotateSecret(endpointId: string, options?: RequestOptions): Promise<WebhookSecretRotated> {
    return this.send({ method: 'POST', path: path(endpointId, '/rotate-secret'), options });
  }

  /** Sends a `webhook.test` event to the endpoint through the normal delivery path. */
  sendTest(endpointId: string, options?: RequestOptions): Promise<WebhookTestSent> {
    return this.send({ method: 'POST', path: path(endpointId, '/test'), options });
  }
}
