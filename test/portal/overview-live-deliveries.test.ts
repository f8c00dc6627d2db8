import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness, type Tenant } from '../helpers/harness.js';
import { portalGet, signedIn, type PortalUser } from '../helpers/portal.js';
import { testModeTenant } from '../helpers/test-mode.js';
import { assign } from '../helpers/student.js';

/**
 * The Overview's webhook figures are live, like every other figure there:
 * test-mode deliveries (to test-mode endpoints, of test-mode events) are
 * left out of the success rate and the pending count.
 */
let h: Harness;
let admin: PortalUser;
let test: Tenant;
const P = '/api/partner/v1';

beforeAll(async () => {
  h = await createHarness();
  admin = await signedIn(h, 'admin', h.a.institutionId);
  test = await testModeTenant(h, h.a);
  expect((await h.partner(h.a, 'POST', `${P}/webhook-endpoints`, { url: 'https://hooks.alpha.example/live' })).statusCode).toBe(201);
  expect((await h.partner(test, 'POST', `${P}/webhook-endpoints`, { url: 'https://hooks.alpha.example/sandbox' })).statusCode).toBe(201);
  // One live assignment, three test-mode ones, cancelled: each assignment.cancelled fans out to its own mode's endpoint.
  const cancel = async (t: Tenant, externalUserId: string) => {
    const { assignmentId } = await assign(h, t, { externalUserId });
    expect((await h.partner(t, 'POST', `${P}/assignments/${assignmentId}/cancel`, {})).statusCode).toBe(200);
  };
  await cancel(h.a, 'live-1');
  for (const n of [1, 2, 3]) await cancel(test, `sandbox-${n}`);
});
afterAll(() => h?.close());

async function settle(livemode: boolean, status: 'succeeded' | 'failed' | 'pending') {
  await h.pool.query(
    `UPDATE webhook_deliveries d SET status = $2 FROM events e WHERE e.id = d.event_id AND e.livemode = $1 AND d.institution_id = $3`,
    [livemode, status, h.a.institutionId],
  );
}

describe('the Overview’s webhook health', () => {
  it('the success rate counts live deliveries only: failed test-mode deliveries do not lower it', async () => {
    const { rows } = await h.pool.query(
      `SELECT e.livemode, count(*)::int AS n FROM webhook_deliveries d JOIN events e ON e.id = d.event_id WHERE d.institution_id = $1 GROUP BY e.livemode`,
      [h.a.institutionId],
    );
    expect(rows.find((r) => r.livemode)?.n).toBeGreaterThan(0);
    expect(rows.find((r) => !r.livemode)?.n).toBeGreaterThan(0);
    await settle(true, 'succeeded');
    await settle(false, 'failed');
    const page = await portalGet(h, admin, '/portal');
    expect(page.statusCode).toBe(200);
    const live = rows.find((r) => r.livemode)!.n;
    expect(page.body).toContain(`<dt>Success rate (7 days)</dt><dd>100% (${live} delivered, 0 failed)</dd>`);
    expect(page.body).toContain('Live deliveries only');
  });

  it('pending test-mode deliveries are not counted as pending', async () => {
    await settle(false, 'pending');
    const page = await portalGet(h, admin, '/portal');
    expect(page.body).toMatch(/<dt>Pending now<\/dt><dd>0<\/dd>/);
  });
});
