import { Assay, type AssayOptions } from '../../packages/partner-sdk/src/index.js';
import type { Tenant } from './harness.js';
import { openWebhookRig, type WebhookRig } from './webhook-setup.js';

/**
 * The SDK's tests' set-up: the webhook rig (harness admitting loopback
 * endpoints, receiver, dispatcher) with the app listening on a real
 * loopback port, since the SDK speaks HTTP through fetch, not `inject`.
 */
export interface SdkRig extends WebhookRig {
  baseUrl: string;
  /** An SDK client for the tenant (or a raw key) against the listening app. */
  sdk(tenant: Tenant | string, options?: Partial<AssayOptions>): Assay;
}

export async function openSdkRig(): Promise<SdkRig> {
  const rig = await openWebhookRig();
  const baseUrl = await rig.h.app.listen({ port: 0, host: '127.0.0.1' });
  return {
    ...rig,
    baseUrl,
    sdk: (tenant, options = {}) => new Assay({ apiKey: typeof tenant === 'string' ? tenant : tenant.apiKey, baseUrl, ...options }),
  };
}
