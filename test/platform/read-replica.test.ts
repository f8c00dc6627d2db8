import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { TestInput } from '../../src/modules/catalog/schemas.js';
import { createDraftTest } from '../../src/modules/catalog/drafts.js';
import { createPool } from '../../src/platform/db.js';
import { migrate } from '../../src/platform/migrate.js';
import { createReadPools, type ReadPools } from '../../src/platform/read-replica.js';
import { resultsCsv } from '../../src/modules/results/results-csv.js';
import { componentAvailable } from '../helpers/components.js';
import { AUTO_TEST, createHarness, type Harness } from '../helpers/harness.js';
import { createDatabase, postgresBinDir, startPrimary, startStandby, waitForReplay, type PgNode } from '../helpers/pg-cluster.js';
import { portalGet, portalPost, signedIn, type PortalUser } from '../helpers/portal.js';
import { publishedVersion, seedAttempts } from '../helpers/results.js';
import { readAssignment } from '../helpers/student.js';
import { parseConfig } from '../../src/platform/config.js';
import { parseLsn } from '../../src/platform/replica-lag.js';

/**
 * The read replica against a real streaming standby. What a read was served
 * by is made visible by pausing the standby's replay (`pg_wal_replay_pause()`):
 * a row written on the primary after the pause is missing on the replica, so
 * a page that lacks it was read there, and a page that shows it was read on
 * the primary.
 */
const available = componentAvailable('PostgreSQL server binaries', postgresBinDir() !== null, 'apt-get install -y postgresql-15');

const MAX_LAG_MS = 5_000;
const METRICS_TOKEN = 'replica-metrics-token-0123456789';
const metrics = async () => (await h.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).body;
const TEST: TestInput = {
  title: 'Replica quiz',
  description: '',
  durationMinutes: 10,
  proctoring: 'none',
  marking: 'auto',
  resultVisibility: 'immediate',
  passPercent: 50,
  questions: [
    { id: 'q1', type: 'numeric', prompt: '1 + 1?', points: 2, answer: 2 },
    { id: 'q2', type: 'numeric', prompt: '2 + 2?', points: 2, answer: 4 },
  ],
};

let primary: PgNode;
let standby: PgNode;
let h: Harness;
let reads: ReadPools;
let admin: PortalUser;
let viewer: PortalUser;
let test: { testId: string; testVersionId: string };
let firstId: string;
let seeded = 0;

async function onStandby(sql: string): Promise<unknown[]> {
  const c = new pg.Client({ connectionString: standby.url('assay') });
  await c.connect();
  try {
    return (await c.query(sql)).rows;
  } finally {
    await c.end();
  }
}
const pauseReplay = () => onStandby('SELECT pg_wal_replay_pause()');
const resumeReplay = () => onStandby('SELECT pg_wal_replay_resume()');

async function until(what: string, ok: () => boolean | Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await ok())) {
    if (Date.now() > end) throw new Error(`timed out waiting for: ${what} (${JSON.stringify(reads.status())})`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * The replica has everything and its check says so: a check made after the
 * replay, not one from before it (whose position a read-your-writes cookie
 * may be past).
 */
async function caughtUp(): Promise<void> {
  const target = parseLsn(await reads.writePosition());
  await waitForReplay(primary, [standby]);
  await until('the replica serving within the bound, its check past the replay', () => {
    const { serving, lagMs, replayed } = reads.status();
    return serving && (lagMs ?? Infinity) < 1_000 && replayed !== null && parseLsn(replayed) >= target;
  });
}

/** A completed, scored attempt of candidate `externalUserId`, written on the primary. */
async function seedCompleted(externalUserId: string, name = externalUserId): Promise<string> {
  seeded++;
  const delivery = { sections: [{ sectionId: 'main', questionIds: ['q1', 'q2'] }], optionOrder: {}, itemOrder: {} };
  return (await seedAttempts(h, h.a, test, 4, [{ externalUserId, name, delivery, answers: {}, marks: { q1: 2, q2: seeded % 2 ? 2 : 0 } }]))[0]!;
}

const listOf = async (user: PortalUser, url: string) => {
  const res = await portalGet(h, user, url);
  expect(res.statusCode, url).toBe(200);
  return res.body;
};
const statisticsAttempts = async () => {
  const res = await h.admin('GET', `/api/admin/v1/tests/${test.testId}/statistics?institutionId=${h.a.institutionId}`);
  expect(res.statusCode).toBe(200);
  return res.json().attempts as number;
};

describe.skipIf(!available)('the read replica', () => {
  beforeAll(async () => {
    primary = await startPrimary('rep-primary');
    await createDatabase(primary, 'assay');
    const migrator = createPool(primary.url('assay'), 2);
    await migrate(migrator);
    await migrator.end();
    standby = await startStandby(primary, 'rep-standby');
    h = await createHarness({
      database: { url: primary.url('assay'), drop: async () => undefined },
      config: {
        replica: { url: standby.url('assay'), maxLagMs: MAX_LAG_MS, checkMs: 100 },
        operations: { ...parseConfig({}).operations, metricsToken: METRICS_TOKEN },
      },
    });
    reads = h.ctx.reads!;
    test = await publishedVersion(h, h.a, TEST);
    firstId = await seedCompleted('cand-first', 'Ada First');
    admin = await signedIn(h, 'admin', h.a.institutionId);
    viewer = await signedIn(h, 'viewer', h.a.institutionId);
    await caughtUp();
  }, 180_000);

  afterAll(async () => {
    await h?.close();
    await standby?.destroy();
    await primary?.destroy();
  });

  afterEach(async () => {
    // Every test leaves the replica replaying and caught up, whatever it did to it.
    if (!standby) return;
    await standby.start().catch(() => undefined);
    await resumeReplay().catch(() => undefined);
    await caughtUp();
  });

  it('serves statistics, the results export, the candidate report and the portal lists, while partner reads stay on the primary', async () => {
    await pauseReplay();
    const laterId = await seedCompleted('cand-later');
    await h.pool.query("UPDATE users SET name = 'Renamed Later' WHERE institution_id = $1 AND external_user_id = 'cand-first'", [h.a.institutionId]);
    const created = await h.admin('POST', '/api/admin/v1/tests', { ...AUTO_TEST, title: 'Created after the pause' });
    expect(created.statusCode).toBe(201);
    expect(reads.status().serving).toBe(true);

    // The replica's data: the attempt written after the pause is in none of these.
    expect(await statisticsAttempts()).toBe(1);
    const csv = (await h.admin('GET', `/api/admin/v1/institutions/${h.a.institutionId}/results.csv`)).body;
    expect(csv).toContain('cand-first');
    expect(csv).not.toContain('cand-later');
    const assignments = await listOf(viewer, '/portal/assignments');
    expect(assignments).toContain('cand-first');
    expect(assignments).not.toContain('cand-later');
    expect(await listOf(viewer, '/portal/assignments/results.csv')).not.toContain('cand-later');
    expect(await listOf(viewer, '/portal')).toContain('1 assignment in all');
    expect(await listOf(viewer, `/portal/tests/${test.testId}/statistics`)).toContain('<dt>Attempts</dt><dd>1</dd>');
    const report = await h.app.inject({ method: 'GET', url: new URL((await readAssignment(h, h.a, firstId)).result.reportUrl).pathname });
    expect(report.statusCode).toBe(200);
    expect(report.body).toContain('Ada First');
    expect(report.body).not.toContain('Renamed Later');

    // What the replica does not have yet is asked of the primary: the report of an assignment completed after the
    // pause (opened on its webhook), the export of a test created after it. A partner read is the primary's anyway.
    const later = await readAssignment(h, h.a, laterId);
    expect(later.status).toBe('completed');
    const laterReport = await h.app.inject({ method: 'GET', url: new URL(later.result.reportUrl).pathname });
    expect(laterReport.statusCode).toBe(200);
    expect((await h.admin('GET', `/api/admin/v1/tests/${created.json().testId}/export?format=qti3`)).statusCode).toBe(200);
    expect(reads.status().serving).toBe(true);
    expect(reads.status().reads.replica).toBeGreaterThan(0);

    await resumeReplay();
    await caughtUp();
    expect(await statisticsAttempts()).toBe(2);
    expect(await listOf(viewer, `/portal/tests/${test.testId}/statistics`)).toContain('<dt>Attempts</dt><dd>2</dd>');
    expect(await listOf(viewer, '/portal/assignments')).toContain('cand-later');
  });

  it('shows a staff member their own write on the pages after it (read on the primary until the replica has it), and others the replica', async () => {
    await pauseReplay();
    const post = await portalPost(h, admin, '/portal/tests/drafts', { title: 'Draft of the moment' });
    expect(post.statusCode).toBe(303);
    const seen = post.cookies.find((c) => c.name === 'assay_portal_seen');
    expect(seen?.value).toMatch(/^[0-9A-F]+\/[0-9A-F]+$/);
    expect(seen).toMatchObject({ path: '/portal', httpOnly: true, sameSite: 'Strict' });
    const withSeen: PortalUser = { ...admin, cookie: `${admin.cookie}; assay_portal_seen=${seen!.value}` };

    // The writer's next page (POST → redirect → GET) shows the draft: the replica has not replayed it, so the primary answers.
    expect(await listOf(withSeen, '/portal/tests')).toContain('Draft of the moment');
    // The same page without the cookie, and another staff member's, are the replica's: no draft yet.
    expect(await listOf(admin, '/portal/tests')).not.toContain('Draft of the moment');
    expect(await listOf({ ...viewer }, '/portal/assignments')).toContain('cand-first');

    // Once the replica has replayed the write, the writer's pages are the replica's again: a draft made meanwhile
    // elsewhere (on the primary, after a second pause) is not on them.
    await resumeReplay();
    await caughtUp();
    await pauseReplay();
    await createDraftTest(h.pool, { institutionId: h.a.institutionId }, { ...TEST, title: 'Draft from elsewhere' } as unknown as Record<string, unknown>, { actor: { kind: 'cli' }, ip: null });
    const page = await listOf(withSeen, '/portal/tests');
    expect(page).toContain('Draft of the moment');
    expect(page).not.toContain('Draft from elsewhere');
  });

  it('sends reads to the primary once the lag passes the bound, and back to the replica once it is within it again', async () => {
    await pauseReplay();
    await seedCompleted('cand-lagging');
    expect(await listOf(viewer, '/portal/assignments')).not.toContain('cand-lagging');
    // Replay stays paused: the lag grows from the write on, past the bound.
    await until('the lag measured past the bound', () => (reads.status().lagMs ?? 0) > MAX_LAG_MS);
    expect(reads.status()).toMatchObject({ up: true, serving: false });
    const lagging = await metrics();
    expect(lagging).toMatch(/^assay_replica_serving 0$/m);
    expect(Number(/^assay_replica_lag_seconds (\S+)$/m.exec(lagging)?.[1])).toBeGreaterThan(MAX_LAG_MS / 1000);
    expect(await listOf(viewer, '/portal/assignments')).toContain('cand-lagging');
    expect(await statisticsAttempts()).toBe(seeded);

    await resumeReplay();
    await caughtUp();
    expect(await metrics()).toMatch(/^assay_replica_serving 1$/m);
    await pauseReplay();
    await seedCompleted('cand-after-catch-up');
    const page = await listOf(viewer, '/portal/assignments');
    expect(page).toContain('cand-lagging');
    expect(page).not.toContain('cand-after-catch-up');
  }, 60_000);

  it('answers from the primary, without an error, while the replica is down, and uses the replica again when it is back', async () => {
    await standby.kill();
    // Whether or not the check has noticed yet, every read succeeds with the primary's data.
    const latest = await seedCompleted('cand-while-down');
    expect(await listOf(viewer, '/portal/assignments')).toContain('cand-while-down');
    await until('the replica marked down', () => !reads.status().up);
    expect(await statisticsAttempts()).toBe(seeded);
    expect((await h.admin('GET', `/api/admin/v1/institutions/${h.a.institutionId}/results.csv`)).body).toContain('cand-while-down');
    const report = await h.app.inject({ method: 'GET', url: new URL((await readAssignment(h, h.a, latest)).result.reportUrl).pathname });
    expect(report.statusCode).toBe(200);
    expect(await listOf(viewer, '/portal')).toContain(`${seeded} assignments in all`);

    await standby.start();
    await caughtUp();
    await pauseReplay();
    await seedCompleted('cand-after-restart');
    expect(await listOf(viewer, '/portal/assignments')).not.toContain('cand-after-restart');
  }, 60_000);

  it('hands a read to the primary when the replica dies between two checks', async () => {
    // Checks a minute apart: only the read's own fallback stands between the caller and the dead replica.
    const slow = createReadPools(h.pool, { url: standby.url('assay'), maxLagMs: 120_000, checkMs: 60_000, poolSize: 2, statementTimeoutMs: 0 });
    slow.start();
    try {
      await until('the first check', () => slow.status().serving);
      const onReplica = slow.forReads();
      expect(onReplica).not.toBe(h.pool);
      await onReplica.query('SELECT 1'); // a connection held open to the replica
      await standby.kill();
      const { rows } = await onReplica.query<{ standby: boolean }>('SELECT pg_is_in_recovery() AS standby');
      expect(rows[0]!.standby).toBe(false); // answered by the primary
      const csv = await resultsCsv(slow.forReads(), { institutionId: h.a.institutionId, livemode: true });
      let text = '';
      for await (const chunk of csv) text += String(chunk);
      expect(text).toContain('cand-first');
      expect(slow.status().reads.fallbacks).toBeGreaterThanOrEqual(1);
      expect(slow.status().serving).toBe(false);
    } finally {
      await slow.stop();
    }
  }, 60_000);
});
