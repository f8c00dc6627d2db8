import { expect } from 'vitest';
import type { Harness, Tenant } from './harness.js';

/** A test-mode key for the tenant, created through the operator API, as a tenant whose apiKey is that key. */
export async function testModeTenant(h: Harness, tenant: Tenant): Promise<Tenant> {
  const res = await h.admin('POST', `/api/admin/v1/institutions/${tenant.institutionId}/api-keys`, { label: 'sandbox', mode: 'test' });
  expect(res.statusCode, res.body).toBe(201);
  const { apiKey, keyId } = res.json();
  return { ...tenant, apiKey, keyId };
}
