import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashApiKey } from '../../src/modules/institutions/api-keys.js';
import { createHarness, type Harness } from '../helpers/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(() => h.close());

const listTests = (key: string) => h.partner(key, 'GET', '/api/partner/v1/tests');

async function until(check: () => Promise<boolean>, ms: number): Promise<number> {
  const start = Date.now();
  while (Date.now() - start < ms) {
    if (await check()) return Date.now() - start;
    await new Promise((r) => setTimeout(r, 5));
  }
  throw new Error(`condition not met within ${ms} ms`);
}

describe('API key cache', () => {
  it('serves a cached key without a database lookup (the row changed without notification still authenticates)', async () => {
    const t = await h.createTenant('Cache Hit College');
    expect((await listTests(t.apiKey)).statusCode).toBe(200);
    // Change the stored hash behind the service's back, without the NOTIFY a real revocation sends.
    await h.pool.query('UPDATE api_keys SET key_hash = $2 WHERE id = $1', [t.keyId, hashApiKey('ak_live_' + 'x'.repeat(40))]);
    expect((await listTests(t.apiKey)).statusCode).toBe(200);
  });

  it('a revocation through the operator API is refused on the very next request', async () => {
    const t = await h.createTenant('Revoke Now College');
    expect((await listTests(t.apiKey)).statusCode).toBe(200);
    expect((await h.admin('DELETE', `/api/admin/v1/institutions/${t.institutionId}/api-keys/${t.keyId}`)).statusCode).toBe(204);
    expect((await listTests(t.apiKey)).statusCode).toBe(401);
  });

  it('a suspension is refused on the very next request', async () => {
    const t = await h.createTenant('Suspend Now College');
    expect((await listTests(t.apiKey)).statusCode).toBe(200);
    expect((await h.admin('PUT', `/api/admin/v1/institutions/${t.institutionId}/status`, { status: 'suspended' })).statusCode).toBe(200);
    expect((await listTests(t.apiKey)).statusCode).toBe(403);
  });

  it('a revocation committed by another process reaches this process through NOTIFY within milliseconds', async () => {
    const t = await h.createTenant('Other Process College');
    expect((await listTests(t.apiKey)).statusCode).toBe(200);
    // Another process (the CLI, another API node) runs the revoking statement on its own connection.
    const other = new pg.Client({ connectionString: h.databaseUrl });
    await other.connect();
    await other.query(
      `WITH revoked AS (UPDATE api_keys SET revoked_at = now() WHERE id = $1 RETURNING id)
       SELECT pg_notify('assay_api_keys', id) FROM revoked`,
      [t.keyId],
    );
    await other.end();
    const waited = await until(async () => (await listTests(t.apiKey)).statusCode === 401, 2000);
    expect(waited).toBeLessThan(2000);
  });
});
