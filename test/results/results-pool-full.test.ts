import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestInput } from '../../src/modules/catalog/schemas.js';
import { allCatalogues } from '../../src/platform/i18n/catalogue.js';
import { defineWorkerTask } from '../../src/platform/worker-pool/worker-pool.js';
import { workerPool } from '../../src/platform/worker-pool/shared-pool.js';
import { createHarness, type Harness } from '../helpers/harness.js';
import { expectError } from '../helpers/expect-error.js';
import { signedIn, type PortalUser } from '../helpers/portal.js';
import { readAssignment } from '../helpers/student.js';
import { publishedVersion, seedAttempts } from '../helpers/results.js';

/** Holds a pool thread for `ms` (test/fixtures/worker-pool/tasks.ts). */
const spin = defineWorkerTask<{ ms: number }, string>(new URL('../fixtures/worker-pool/tasks.js', import.meta.url), 'spin');

/**
 * Report PDFs and statistics run on the worker pool; when it cannot take
 * them, whoever asked is told to come back, never left waiting nor shown a
 * raw error. With one thread and no queue (ASSAY_WORKER_THREADS=1,
 * ASSAY_WORKER_QUEUE=0) held by another task: the PDF link answers 503 with
 * Retry-After and a page in the candidate's language (the report as a page
 * still answers 200), the operator API's statistics the 503 envelope, the
 * portal's Statistics page and its CSV a 503 page; once the thread is free,
 * each is served. A PDF stopped at the pool's time limit is a 503 too.
 */
const TEST: TestInput = {
  title: 'Pool quiz',
  description: '',
  durationMinutes: 10,
  proctoring: 'none',
  marking: 'auto',
  resultVisibility: 'immediate',
  passPercent: 50,
  questions: [
    { id: 'q1', type: 'single_choice', prompt: 'Pick a', points: 1, options: [{ id: 'a', text: 'a' }, { id: 'b', text: 'b' }], correctOptionId: 'a' },
    { id: 'q2', type: 'numeric', prompt: '1 + 1?', points: 1, answer: 2 },
  ],
};
const flat = { sections: [{ sectionId: 'main', questionIds: ['q1', 'q2'] }], optionOrder: {}, itemOrder: {} };
const ar = (key: string) => allCatalogues().get('ar')![key]!;

async function setUp(h: Harness): Promise<{ testId: string; reportPath: string }> {
  const test = await publishedVersion(h, h.a, TEST);
  const [first] = await seedAttempts(h, h.a, test, 2, [
    { externalUserId: 'p1', delivery: flat, answers: { q1: 'a' }, marks: { q1: 1, q2: 1 } },
    { externalUserId: 'p2', delivery: flat, answers: { q1: 'b' }, marks: { q1: 0, q2: 1 } },
  ]);
  await h.pool.query(`UPDATE assignments SET candidate_locale = 'ar' WHERE id = $1`, [first]);
  return { testId: test.testId, reportPath: new URL((await readAssignment(h, h.a, first!)).result.reportUrl).pathname };
}

describe('a full worker pool', () => {
  let h: Harness;
  let testId: string;
  let reportPath: string;
  let viewer: PortalUser;
  beforeAll(async () => {
    h = await createHarness({ config: { workerPool: { threads: 1, queueLimit: 0, taskTimeoutMs: 30_000, memoryMb: 256 } } });
    ({ testId, reportPath } = await setUp(h));
    viewer = await signedIn(h, 'viewer', h.a.institutionId);
  });
  afterAll(() => h.close());

  const pdf = () => h.app.inject({ method: 'GET', url: `${reportPath}?format=pdf` });
  const apiStats = () => h.admin('GET', `/api/admin/v1/tests/${testId}/statistics?institutionId=${h.a.institutionId}`);
  const page = () => h.app.inject({ method: 'GET', url: `/portal/tests/${testId}/statistics`, headers: { cookie: viewer.cookie } });
  const csv = () => h.app.inject({ method: 'GET', url: `/portal/tests/${testId}/statistics.csv`, headers: { cookie: viewer.cookie } });

  it('answers each 503 with Retry-After while its one thread is busy, with a page where a person meets it, then serves them', async () => {
    // The pool's one thread held for as long as the requests take.
    const holder = workerPool().run(spin, new Uint8Array(0), { ms: 3_000 });
    await new Promise((r) => setTimeout(r, 200));

    const refusedPdf = await pdf();
    expect(refusedPdf.statusCode).toBe(503);
    expect(refusedPdf.headers['retry-after']).toBe('5');
    expect(refusedPdf.headers['content-type']).toMatch(/^text\/html/);
    expect(refusedPdf.headers['cache-control']).toMatch(/no-store/);
    expect(refusedPdf.body).toMatch(/<html lang="ar" dir="rtl">/);
    expect(refusedPdf.body).toContain(ar('report.busy'));
    expect(refusedPdf.body).toContain(`<a href="?format=pdf">${ar('report.busyRetry')}</a>`);
    expect(refusedPdf.body).toContain(`<a href="?format=html">${ar('report.busyOpenPage')}</a>`);
    // The report as a page is drawn on the loop: ready at once.
    const asPage = await h.app.inject({ method: 'GET', url: `${reportPath}?format=html` });
    expect(asPage.statusCode).toBe(200);

    const refusedApi = await apiStats();
    const body = expectError(refusedApi, 503, 'unavailable');
    expect(refusedApi.headers['retry-after']).toBe('5');
    expect(body.error.message).toMatch(/busy/);

    for (const refused of [await page(), await csv()]) {
      expect(refused.statusCode).toBe(503);
      expect(refused.headers['retry-after']).toBe('5');
      expect(refused.headers['content-type']).toMatch(/^text\/html/);
      expect(refused.body).toContain('<h1>Busy right now</h1>');
      expect(refused.body).toContain('try again in 5 seconds');
      expect(refused.body).toMatch(/<a href="\/portal\/tests\/tst_[^"]+\/statistics(\.csv)?">Try again<\/a>/);
    }

    expect(await holder).toBe('done');
    const served = await pdf();
    expect(served.statusCode).toBe(200);
    expect(served.headers['content-type']).toBe('application/pdf');
    expect(served.rawPayload.subarray(0, 5).toString()).toBe('%PDF-');
    const stats = (await apiStats()).json();
    expect(stats.attempts).toBe(2);
    // Serialised on the thread with the response schema's fields only.
    expect(stats).not.toHaveProperty('contentFormat');
    expect((await page()).statusCode).toBe(200);
    expect((await csv()).statusCode).toBe(200);
  }, 60_000);
});

describe('a PDF past the pool’s time limit', () => {
  let h: Harness;
  let reportPath: string;
  beforeAll(async () => {
    // 50 ms (set directly: ASSAY_WORKER_TASK_TIMEOUT_MS allows no less than 1 s): less than a fresh thread takes to
    // load pdfkit, so the drawing is always stopped.
    h = await createHarness({ config: { workerPool: { threads: 1, queueLimit: 4, taskTimeoutMs: 50, memoryMb: 256 } } });
    ({ reportPath } = await setUp(h));
  });
  afterAll(() => h.close());

  it('answers 503 with Retry-After and the busy page; the report as a page is unaffected', async () => {
    const res = await h.app.inject({ method: 'GET', url: `${reportPath}?format=pdf` });
    expect(res.statusCode).toBe(503);
    expect(res.headers['retry-after']).toBe('5');
    expect(res.body).toContain(ar('report.busy'));
    expect((await h.app.inject({ method: 'GET', url: reportPath })).statusCode).toBe(200);
  }, 60_000);
});
