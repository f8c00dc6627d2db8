import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../helpers/harness.js';
import { startFakePlatform, type FakePlatform } from '../helpers/lti-platform.js';
import { LtiBrowser, registerPlatform, resourceLinkClaims } from '../helpers/lti.js';
import { spawnWorker, type WorkerProcess } from '../helpers/worker-process.js';

let h: Harness;
let platform: FakePlatform;
const workers: WorkerProcess[] = [];

beforeAll(async () => {
  h = await createHarness({ config: { allowInsecureUrls: true } });
  platform = await startFakePlatform({ toolJwks: async () => (await h.app.inject({ method: 'GET', url: '/lti/jwks' })).json() });
  await registerPlatform(h, h.a, platform);
});
afterAll(async () => {
  for (const w of workers) w.kill('SIGKILL');
  await platform?.close();
  await h?.close();
});

async function until<T>(read: () => Promise<T>, ok: (v: T) => boolean, ms = 30_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await read();
    if (ok(v)) return v;
    if (Date.now() > end) throw new Error(`not reached in ${ms} ms: ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('a score post across a worker restart', () => {
  it('is sent by the next worker after the first one was killed while the platform was down', async () => {
    const b = new LtiBrowser(h);
    const launched = await b.launch(platform, 'learner-restart', resourceLinkClaims(h.a.testId, { lineItem: platform.lineItemUrl('li-restart') }));
    const assignmentId = String(launched.headers.location).replace('/a/', '');
    const page = await b.get(`/a/${assignmentId}`);
    const csrf = /name="csrf" value="([^"]+)"/.exec(page.body)![1]!;
    await b.postForm(`/a/${assignmentId}/begin`, { csrf });
    platform.scoreAnswers.push('drop', 'drop', 'drop', 'drop');
    await b.postForm(`/a/${assignmentId}/submit`, { csrf });

    const first = await spawnWorker(h.databaseUrl);
    workers.push(first);
    // The platform dropped the first attempt; the job waits for its retry, held by no worker.
    await until(
      async () => (await h.pool.query("SELECT (SELECT count(*) FROM lti_score_attempts)::int AS attempts, (SELECT bool_and(locked_by IS NULL) FROM jobs WHERE kind = 'lti.send_score') AS free")).rows[0],
      (r) => r.attempts >= 1 && r.free === true,
    );
    first.kill('SIGKILL');
    await first.exited;
    platform.scoreAnswers.length = 0;
    expect(platform.scores).toHaveLength(0);

    const second = await spawnWorker(h.databaseUrl);
    workers.push(second);
    await until(async () => platform.scores.length, (n) => n === 1);
    // The platform has the score as soon as the worker sent it; the worker records the outcome after its answer.
    const post = await until(
      async () => (await h.pool.query('SELECT status, attempts FROM lti_score_posts WHERE assignment_id = $1', [assignmentId])).rows[0],
      (r) => r.status !== 'pending',
    );
    second.kill('SIGTERM');
    expect(platform.scores).toHaveLength(1);
    expect(platform.scores[0]!.body).toMatchObject({ userId: 'learner-restart', gradingProgress: 'FullyGraded' });
    expect(post.status).toBe('delivered');
    expect(post.attempts).toBeGreaterThanOrEqual(2);
  }, 90_000);
});
