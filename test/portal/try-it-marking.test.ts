import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { manualClock } from '../../src/platform/clock.js';
import { runAutoSubmitJob } from '../../src/modules/marking/run-auto-submit.js';
import { listMarkingQueue } from '../../src/modules/marking/marking-queue.js';
import { getTestStatistics } from '../../src/modules/results/get-statistics.js';
import type { TestInput } from '../../src/modules/catalog/schemas.js';
import { createHarness, type Harness } from '../helpers/harness.js';
import { portalGet, portalPost, signedIn, type PortalUser } from '../helpers/portal.js';
import { portalJson } from '../helpers/authoring.js';
import { Student } from '../helpers/student.js';
import { createApiKey } from '../../src/modules/institutions/api-keys.js';

/**
 * A Try it run of a test marked by people, left open until the deadline
 * submits it, waits in `marking` without entering the reviewers' marking
 * queue or its counts, the listings or the statistics; its author still
 * finds it from the editor and reads its answers and marks.
 */
const clock = manualClock(new Date('2031-06-01T09:00:00Z'));
let h: Harness;
let author: PortalUser;
let reviewer: PortalUser;

const ESSAY_TEST: TestInput = {
  title: 'Short essays',
  description: 'Marked by a reviewer',
  durationMinutes: 10,
  proctoring: 'none',
  marking: 'hybrid',
  resultVisibility: 'after_review',
  passPercent: 50,
  questions: [
    { type: 'single_choice', prompt: 'Pick four', points: 1, options: [{ id: 'a', text: '3' }, { id: 'b', text: '4' }], correctOptionId: 'b' },
    { type: 'essay', prompt: 'Why?', points: 2 },
  ],
} as TestInput;

beforeAll(async () => {
  h = await createHarness({ clock });
  author = await signedIn(h, 'author', h.a.institutionId, 'Ada Author');
  reviewer = await signedIn(h, 'reviewer', h.a.institutionId);
});
afterAll(() => h.close());

describe('a Try it run submitted by its deadline', () => {
  it('stays out of the marking queue, its counts and the statistics, while its author still sees its result', async () => {
    const created = await portalJson(h, author, 'POST', '/portal/authoring/tests', { content: ESSAY_TEST });
    expect(created.statusCode, created.body).toBe(201);
    const testId: string = created.json().testId;
    expect((await portalJson(h, author, 'POST', `/portal/authoring/tests/${testId}/versions`, { revision: 1 })).statusCode).toBe(201);

    // A real test-mode candidate submits: the queue has them.
    const { apiKey: testKey } = await createApiKey(h.pool, h.a.institutionId, 'sandbox', undefined, 'test');
    const real = await h.partner(testKey, 'POST', '/api/partner/v1/assignments', { testId, externalUserId: 'cand-1', user: { email: 'c1@example.com' }, callbackUrl: h.a.callbackUrl });
    expect(real.statusCode, real.body).toBe(201);
    const candidate = new Student(h);
    const realId = await candidate.start(real.json().startUrl);
    expect((await candidate.submit(realId)).statusCode).toBe(303);

    // The author's trial, begun and left open.
    const tried = await portalPost(h, author, `/portal/tests/${testId}/try`);
    expect(tried.statusCode, tried.body).toBe(303);
    const trialId = await new Student(h).start(String(tried.headers.location));
    clock.advance(11 * 60_000);
    await runAutoSubmitJob(h.ctx, trialId);
    const { rows } = await h.pool.query('SELECT status, trial FROM assignments WHERE id = $1', [trialId]);
    expect(rows[0]).toEqual({ status: 'marking', trial: true });

    const queue = await listMarkingQueue(h.pool, { institutionId: h.a.institutionId, limit: 50, offset: 0 });
    expect(queue.data.map((q) => q.assignmentId)).toEqual([realId]);
    expect(queue).toMatchObject({ total: 0, testTotal: 1, byTest: [{ testId, count: 0, testCount: 1 }] });
    const page = await portalGet(h, reviewer, '/portal/marking?mode=test');
    expect(page.statusCode).toBe(200);
    expect(page.body).not.toContain(trialId);

    // Statistics count no trial either (the real one is not marked yet: none to count).
    const stats = await getTestStatistics(h.pool, { institutionId: h.a.institutionId, testId, livemode: false });
    expect(stats.attempts).toBe(0);

    // The author finds the run from the editor and reads it.
    const editor = await portalGet(h, author, `/portal/tests/${testId}/edit`);
    expect(editor.body).toMatch(new RegExp(`id="last-trial"[^]*?href="/portal/assignments/${trialId}"`));
    expect(editor.body).toMatch(/id="last-trial">[^]*?status Marking:/);
    const record = await portalGet(h, author, `/portal/assignments/${trialId}`);
    expect(record.statusCode).toBe(200);
    expect(record.body).toContain('Why?');
  });
});
