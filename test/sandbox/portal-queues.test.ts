import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness, type Tenant } from '../helpers/harness.js';
import { portalGet, signedIn, type PortalUser } from '../helpers/portal.js';
import { testModeTenant } from '../helpers/test-mode.js';
import { flagsOf, proctoredTest, signal, startProctored } from '../helpers/proctoring.js';
import { ALL_TYPES_TEST, Student, assign, createPublishedTest } from '../helpers/student.js';

/**
 * The work queues hold test-mode items too (a developer may mark or review
 * their sandbox run), labelled Test and counted apart from the live work.
 */
let h: Harness;
let test: Tenant;
let reviewer: PortalUser;
let essayTestId: string;
const P = '/api/partner/v1';
const simulate = (id: string, body: unknown) => h.partner(test, 'POST', `${P}/assignments/${id}/simulate`, body);

/** The row of the table whose first cell names the user. */
const rowOf = (body: string, user: string) => body.split('<tr>').find((r) => r.includes(user));

beforeAll(async () => {
  h = await createHarness();
  test = await testModeTenant(h, h.a);
  reviewer = await signedIn(h, 'reviewer', h.a.institutionId);
  essayTestId = await createPublishedTest(h, h.a, ALL_TYPES_TEST);
});
afterAll(() => h?.close());

describe('the Marking queue', () => {
  it('lists test-mode submissions labelled Test and counts only the live ones, with the test-mode ones apart', async () => {
    const before = await portalGet(h, reviewer, '/portal/marking');
    expect(before.body).toContain('Nothing is waiting for marking.');

    // Sandbox first: only test-mode work waits.
    for (const user of ['sandbox-a', 'sandbox-b']) {
      const { assignmentId } = await assign(h, test, { testId: essayTestId, externalUserId: user });
      expect((await simulate(assignmentId, { action: 'start' })).statusCode).toBe(200);
      const submitted = await simulate(assignmentId, { action: 'submit' });
      expect(submitted.json().status, submitted.body).toBe('marking');
    }
    const sandboxOnly = await portalGet(h, reviewer, '/portal/marking');
    expect(sandboxOnly.body).toContain('No live submission is waiting for marking. Also 2 test-mode submissions (labelled Test), not counted.');
    expect(rowOf(sandboxOnly.body, 'sandbox-a')).toContain('<span class="badge badge-test">Test</span> Sam Student <span class="hint">(sandbox-a)</span>');

    // A live submission: it is the count; the per-test table has a Test mode column.
    const live = await assign(h, h.a, { testId: essayTestId, externalUserId: 'real-taker' });
    const s = new Student(h);
    await s.start(live.startUrl);
    expect((await s.submit(live.assignmentId)).statusCode).toBe(303);
    const both = await portalGet(h, reviewer, '/portal/marking');
    expect(both.body).toContain('<strong>1</strong> submission waits for a reviewer, oldest first. Also 2 test-mode submissions (labelled Test), not counted.');
    expect(rowOf(both.body, 'real-taker')).not.toContain('badge-test');
    expect(rowOf(both.body, 'sandbox-b')).toContain('badge-test');
    expect(both.body).toMatch(/<th scope="col"[^>]*>Waiting<\/th><th scope="col"[^>]*>Test mode<\/th>/);
    expect(both.body).toMatch(/Every Question Type<\/a><\/th><td[^>]*>1<\/td><td[^>]*>2<\/td>/);

    // Filtered by the test, the list still holds both modes.
    const byTest = await portalGet(h, reviewer, `/portal/marking?testId=${essayTestId}`);
    expect(byTest.body.match(/>Mark<span class="sr-only">/g)).toHaveLength(3);
  });

  it('another institution sees none of it', async () => {
    const other = await signedIn(h, 'reviewer', h.b.institutionId);
    const page = await portalGet(h, other, '/portal/marking');
    expect(page.body).toContain('Nothing is waiting for marking.');
    expect(page.body).not.toContain('sandbox-a');
  });
});

describe('the Proctoring review queue', () => {
  it('labels a test-mode attempt Test and counts live and test-mode attempts apart', async () => {
    const proctored = await createPublishedTest(h, h.a, proctoredTest('live_ai'));
    // A live attempt with a critical flag, submitted.
    const p = await startProctored(h, h.a, proctored, 'proctored-real');
    const t = h.clock.now().getTime();
    const flags = flagsOf(await p.heartbeat([signal('nf-0000001', 'no_face', 25, new Date(t - 25_000), false)]));
    expect(flags.some((f) => f.severity === 'critical')).toBe(true);
    expect((await p.student.submit(p.assignmentId)).statusCode).toBe(303);

    const liveOnly = await portalGet(h, reviewer, '/portal/proctoring');
    expect(rowOf(liveOnly.body, 'proctored-real')).not.toContain('badge-test');
    expect(liveOnly.body).not.toContain('test-mode');

    // A test-mode attempt with a simulated violation, submitted.
    const { assignmentId } = await assign(h, test, { testId: proctored, externalUserId: 'proctored-sandbox' });
    expect((await simulate(assignmentId, { action: 'start' })).statusCode).toBe(200);
    expect((await simulate(assignmentId, { action: 'violation' })).statusCode).toBe(200);
    expect((await simulate(assignmentId, { action: 'submit' })).statusCode).toBe(200);

    const both = await portalGet(h, reviewer, '/portal/proctoring');
    expect(both.statusCode).toBe(200);
    expect(rowOf(both.body, 'proctored-sandbox')).toContain('<span class="badge badge-test">Test</span> proctored-sandbox');
    expect(rowOf(both.body, 'proctored-real')).not.toContain('badge-test');
    expect(both.body).toContain('1 live; 1 test-mode attempt from your integration’s sandbox, labelled Test.');
  });
});
