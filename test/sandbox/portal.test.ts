import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness, type Tenant } from '../helpers/harness.js';
import { portalGet, portalPost, signedIn, type PortalUser } from '../helpers/portal.js';
import { testModeTenant } from '../helpers/test-mode.js';
import { assign } from '../helpers/student.js';

/** The portal keeps test mode apart from live figures: labelled where listed, left out of the Overview. */
let h: Harness;
let admin: PortalUser;
let test: Tenant;
let liveId: string;
let testId: string;
const P = '/api/partner/v1';

beforeAll(async () => {
  h = await createHarness();
  admin = await signedIn(h, 'admin', h.a.institutionId);
  test = await testModeTenant(h, h.a);
  liveId = (await assign(h, h.a, { externalUserId: 'real-student' })).assignmentId;
  testId = (await assign(h, test, { externalUserId: 'sandbox-student' })).assignmentId;
  await h.partner(test, 'POST', `${P}/assignments/${testId}/simulate`, { action: 'start' });
  await h.partner(test, 'POST', `${P}/assignments/${testId}/simulate`, { action: 'submit', score: 100 });
});
afterAll(() => h?.close());

describe('test mode in the portal', () => {
  it('the Assignments list labels the test-mode assignment "Test" and not the live one', async () => {
    const page = await portalGet(h, admin, '/portal/assignments?mode=all');
    expect(page.statusCode).toBe(200);
    const row = (user: string) => page.body.split('<tr>').find((r) => r.includes(`>${user}</a>`))!;
    expect(row('sandbox-student')).toContain('badge-test');
    expect(row('real-student')).not.toContain('badge-test');
    expect(page.body).toMatch(/<caption[^>]*>Live and test-mode assignments, newest first<\/caption>/);
  });

  it('the Assignments list shows live assignments by default, test-mode ones under Mode: Test, both under All', async () => {
    const ids = (body: string) => [...body.matchAll(/>(real-student|sandbox-student)<\/a>/g)].map((m) => m[1]).sort();
    const byDefault = await portalGet(h, admin, '/portal/assignments');
    expect(ids(byDefault.body)).toEqual(['real-student']);
    expect(byDefault.body).toContain('<select id="f-mode" name="mode"');
    expect(byDefault.body).toContain('<option value="live" selected>Live</option>');
    expect(byDefault.body).not.toContain('badge-test');
    expect(ids((await portalGet(h, admin, '/portal/assignments?mode=live')).body)).toEqual(['real-student']);
    // An unknown mode is the default, as an unknown status is no filter.
    expect(ids((await portalGet(h, admin, '/portal/assignments?mode=sandbox')).body)).toEqual(['real-student']);

    const testOnly = await portalGet(h, admin, '/portal/assignments?mode=test');
    expect(testOnly.statusCode).toBe(200);
    expect(ids(testOnly.body)).toEqual(['sandbox-student']);
    expect(testOnly.body).toContain('<option value="test" selected>Test</option>');
    expect(testOnly.body).toMatch(/<caption[^>]*>Test-mode assignments, newest first<\/caption>/);
    expect(ids((await portalGet(h, admin, '/portal/assignments?mode=all')).body)).toEqual(['real-student', 'sandbox-student']);

    // The mode combines with the other filters.
    expect(ids((await portalGet(h, admin, '/portal/assignments?mode=test&q=real')).body)).toEqual([]);
    expect(ids((await portalGet(h, admin, '/portal/assignments?mode=test&status=completed')).body)).toEqual(['sandbox-student']);
    expect(ids((await portalGet(h, admin, '/portal/assignments?mode=all&status=assigned')).body)).toEqual(['real-student']);
    const none = await portalGet(h, admin, '/portal/assignments?mode=test&q=nobody');
    expect(none.body).toMatch(/<caption[^>]*>Matching test-mode assignments|No assignment matches this search/);
  });

  it('the mode is refused when too long (400) and the page of another institution shows none of this one\'s test data', async () => {
    expect((await portalGet(h, admin, `/portal/assignments?mode=${'x'.repeat(11)}`)).statusCode).toBe(400);
    const other = await signedIn(h, 'admin', h.b.institutionId);
    const page = await portalGet(h, other, '/portal/assignments?mode=all');
    expect(page.statusCode).toBe(200);
    expect(page.body).not.toContain('sandbox-student');
  });

  it('the test-mode assignment\'s page says it is test mode', async () => {
    const page = await portalGet(h, admin, `/portal/assignments/${testId}`);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('A test-mode assignment');
    expect((await portalGet(h, admin, `/portal/assignments/${liveId}`)).body).not.toContain('A test-mode assignment');
  });

  it('the Overview counts live assignments only', async () => {
    const page = await portalGet(h, admin, '/portal');
    expect(page.body).toMatch(/>Assigned<\/a><\/dt><dd>1<\/dd>/);
    expect(page.body).toMatch(/>Completed<\/a><\/dt><dd>0<\/dd>/);
    expect(page.body).toContain('1 assignment in all');
    expect(page.body).toContain('No assignment has been completed yet.');
  });

  it('the Webhooks page labels a test-mode endpoint "Test"', async () => {
    const created = await h.partner(test, 'POST', `${P}/webhook-endpoints`, { url: 'https://hooks.alpha.example/sandbox' });
    expect(created.statusCode, created.body).toBe(201);
    const live = await h.partner(h.a, 'POST', `${P}/webhook-endpoints`, { url: 'https://hooks.alpha.example/live' });
    expect(live.statusCode, live.body).toBe(201);
    const page = await portalGet(h, admin, '/portal/webhooks');
    const row = (url: string) => page.body.split('<tr>').find((r) => r.includes(`>${url}</a>`))!;
    expect(row('https://hooks.alpha.example/sandbox')).toContain('badge-test');
    expect(row('https://hooks.alpha.example/live')).not.toContain('badge-test');
  });

  it('the API keys page creates a test key and shows each key\'s mode', async () => {
    const created = await portalPost(h, admin, '/portal/api-keys', { label: 'Sandbox', mode: 'test' });
    expect(created.statusCode).toBe(201);
    const key = /id="new-key"[^>]*>(ak_test_[0-9A-Za-z]+)</.exec(created.body)?.[1];
    expect(key).toBeDefined();
    expect((await h.partner(key!, 'GET', `${P}/assignments/${testId}`)).statusCode).toBe(200);
    expect((await h.partner(key!, 'GET', `${P}/assignments/${liveId}`)).statusCode).toBe(404);
    const list = await portalGet(h, admin, '/portal/api-keys');
    const row = list.body.split('<tr>').find((r) => r.includes('Sandbox'))!;
    expect(row).toContain('badge-test');
    expect(list.body).toContain('<select id="f-mode" name="mode"');

    const bad = await portalPost(h, admin, '/portal/api-keys', { label: 'x', mode: 'sandbox' });
    expect(bad.statusCode).toBe(400);
  });
});
