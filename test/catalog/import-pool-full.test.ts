import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, createHarness, type Harness } from '../helpers/harness.js';
import { expectError } from '../helpers/expect-error.js';
import { signedIn } from '../helpers/portal.js';
import { defineWorkerTask } from '../../src/platform/worker-pool/worker-pool.js';
import { workerPool } from '../../src/platform/worker-pool/shared-pool.js';

/** Holds a pool thread for `ms` (test/fixtures/worker-pool/tasks.ts). */
const spin = defineWorkerTask<{ ms: number }, string>(new URL('../fixtures/worker-pool/tasks.js', import.meta.url), 'spin');

/**
 * The worker pool's bound seen through the API: with one thread and no
 * queue (ASSAY_WORKER_THREADS=1, ASSAY_WORKER_QUEUE=0), an import that
 * arrives while another is being parsed is answered 503 with Retry-After at
 * once, and creates nothing; the next one after it is served.
 */
let h: Harness;

beforeAll(async () => {
  h = await createHarness({ config: { workerPool: { threads: 1, queueLimit: 0, taskTimeoutMs: 30_000, memoryMb: 256 } } });
});
afterAll(() => h.close());

const csv = 'type,prompt,options,correct\n' + Array.from({ length: 500 }, (_, i) => `single_choice,Question ${i} ${'with some words '.repeat(20)},a|b|c|d,2\n`).join('');
const post = () =>
  h.app.inject({ method: 'POST', url: '/api/admin/v1/tests/import?dryRun=true', headers: { 'content-type': 'text/csv', authorization: `Bearer ${ADMIN_TOKEN}` }, payload: csv });

describe('a full worker pool', () => {
  it('answers an import 503 unavailable with Retry-After while its one thread is busy, then serves the next', async () => {
    const first = post();
    // The first import's parse has the thread (a fresh thread loads the parser first, so it holds it a while).
    await new Promise((r) => setTimeout(r, 20));
    const refused = await post();
    const body = expectError(refused, 503, 'unavailable');
    expect(refused.headers['retry-after']).toBe('5');
    expect(body.error.message).toMatch(/busy/);
    expect((await first).statusCode).toBe(200);
    expect((await post()).statusCode).toBe(200);
  });
});

describe('a full worker pool through the portal', () => {
  it("answers the portal's Import with its page: 503, Retry-After, the message in words", async () => {
    const author = await signedIn(h, 'author', h.a.institutionId);
    const portalImport = async () => {
      const form = new FormData();
      form.append('dryRun', '1');
      form.append('file', new Blob([csv]), 'questions.csv');
      const req = new Request('http://portal.test/portal/tests/import', { method: 'POST', body: form });
      return h.app.inject({
        method: 'POST',
        url: `/portal/tests/import?csrf=${author.csrf}`,
        headers: { 'content-type': req.headers.get('content-type')!, cookie: author.cookie },
        payload: Buffer.from(await req.arrayBuffer()),
      });
    };
    // The pool's one thread held for as long as the request takes (a warm thread parses the CSV in a few ms).
    const holder = workerPool().run(spin, new Uint8Array(0), { ms: 3_000 });
    await new Promise((r) => setTimeout(r, 200));
    const refused = await portalImport();
    expect(refused.statusCode).toBe(503);
    expect(refused.headers['retry-after']).toBe('5');
    expect(refused.headers['content-type']).toMatch(/^text\/html/);
    expect(refused.body).toMatch(/busy/);
    expect(await holder).toBe('done');
    expect((await portalImport()).statusCode).toBe(200);
  });
});
