import { expect } from 'vitest';
import type { Harness, Tenant } from './harness.js';

/** A test-mode key for the tenant, created through the operator API, as a tenant whose apiKey is that key. */
export async function testModeTenant(h: Harness, tenant: Tenant): Promise<Tenant> {
  const res = await h.admin('POST', `/api/admin/v1/institutions/${tenant.institutionId}/api-keys`, { label: 'sandbox', mode: 'test' });
  expect(res.statusCode, res.body).toBe(201);
  const { apiKey, keyId } = res.json();
  return { ...tenant, apiKey, keyId };
}

/**
 * A test-mode assignment of `testId` taken through `simulate` to `marking`: created, started, and submitted
 * with `body` (`answers` or `score`). Returns its id.
 */
export async function simulatedSubmission(h: Harness, tenant: Tenant, testId: string, body: Record<string, unknown>): Promise<string> {
  const simulate = (id: string, b: unknown) => h.partner(tenant, 'POST', `/api/partner/v1/assignments/${id}/simulate`, b);
  const res = await h.partner(tenant, 'POST', '/api/partner/v1/assignments', {
    externalUserId: `simulated-${Math.random().toString(36).slice(2, 10)}`,
    testId,
    user: { email: 'dev@example.org' },
    callbackUrl: tenant.callbackUrl,
  });
  expect(res.statusCode, res.body).toBe(201);
  const id = res.json().assignmentId as string;
  expect((await simulate(id, { action: 'start' })).statusCode).toBe(200);
  const sub = await simulate(id, { action: 'submit', ...body });
  expect(sub.statusCode, sub.body).toBe(200);
  expect(sub.json().status).toBe('marking');
  return id;
}
