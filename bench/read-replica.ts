import { parseArgs } from 'node:util';
import pg from 'pg';
import { systemClock } from '../src/platform/clock.js';
import { createPool, type Pool } from '../src/platform/db.js';
import { migrate } from '../src/platform/migrate.js';
import { createReadPools, type ReadPools } from '../src/platform/read-replica.js';
import { DEMO_TESTS } from '../src/demo/demo-tests.js';
import { createInstitution } from '../src/modules/institutions/institutions.js';
import { createTest, findPublishedTest, publishTest } from '../src/modules/catalog/tests-service.js';
import { buildServer, serverContext } from '../src/server.js';
import { createDatabase, startPrimary, startStandby, waitForReplay } from '../test/helpers/pg-cluster.js';
import { benchAppConfig } from './bench-database.js';

/**
 * `npx tsx bench/read-replica.ts [--assignments 20000 --requests 20 --writers 4]`
 *
 * The results export (`GET …/results.csv`, every assignment of an
 * institution) while `writers` connections insert into the primary as fast
 * as they can, once with every read on the primary and once with the read
 * replica (a real streaming standby, pg-cluster's): export latency, the
 * writers' throughput meanwhile, the replica's measured lag, and which server
 * served the exports. Then the lag check's own cost: the two one-row
 * queries it runs per interval, timed.
 *
 * Both servers share this machine's cores, so the replica takes no CPU off
 * the primary's host here as it does on its own host: what this shows is the
 * routing working under load and the lag a busy primary puts on the standby,
 * not the capacity a second host adds.
 */
const { values: opts } = parseArgs({ options: { assignments: { type: 'string', default: '20000' }, requests: { type: 'string', default: '20' }, writers: { type: 'string', default: '4' } } });
const N = Number(opts.assignments);
const REQUESTS = Number(opts.requests);
const WRITERS = Number(opts.writers);

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;

const primary = await startPrimary('bench-rep-primary');
const standby = await startStandby(primary, 'bench-rep-standby');
try {
  await createDatabase(primary, 'assay');
  const pool = createPool(primary.url('assay'), 20);
  await migrate(pool);
  const inst = await createInstitution(pool, { name: 'Bench University', callbackDomains: ['bench.example'] });
  const t = await createTest(pool, DEMO_TESTS[0]!);
  await publishTest(pool, t.testId, inst.institutionId);
  const versionId = (await findPublishedTest(pool, inst.institutionId, t.testId))!.testVersionId;
  await pool.query(
    `INSERT INTO users (id, institution_id, external_user_id, email, created_at, updated_at)
     SELECT 'usr_' || n, $1, 'student-' || n, 'student' || n || '@bench.example', now(), now() FROM generate_series(1, $2) AS n`,
    [inst.institutionId, N],
  );
  await pool.query(
    `INSERT INTO assignments (id, institution_id, user_id, test_id, test_version_id, status, callback_url, metadata, created_at, started_at, submitted_at, completed_at, score, livemode)
     SELECT 'asg_' || n, $1, 'usr_' || n, $3, $4, 'completed', 'https://bench.example/return', '{}', now() - interval '2 hours', now() - interval '2 hours', now() - interval '1 hour', now(),
            jsonb_build_object('points', n % 9, 'maxPoints', 8, 'percent', round((n % 9) * 12.5, 2), 'passed', n % 9 >= 5, 'gradingStatus', 'final'), true
       FROM generate_series(1, $2) AS n`,
    [inst.institutionId, N, t.testId, versionId],
  );
  await pool.query('CREATE TABLE bench_writes (id bigserial PRIMARY KEY, body text)');
  await pool.query('VACUUM ANALYZE');
  await waitForReplay(primary, [standby]);
  const config = benchAppConfig(primary.url('assay'));

  async function phase(name: string, reads: ReadPools | null) {
    const app = await buildServer(serverContext({ config, pool, clock: systemClock, reads }), { logger: false });
    const url = `/api/admin/v1/institutions/${inst.institutionId}/results.csv`;
    const headers = { authorization: `Bearer ${config.adminToken}` };
    if (reads) while (!reads.status().serving) await new Promise((r) => setTimeout(r, 50));
    // Writers: one-row inserts of 1 KB, each its own transaction, as fast as the primary takes them.
    let stop = false;
    let written = 0;
    const writer = async () => {
      const c = new pg.Client({ connectionString: primary.url('assay') });
      await c.connect();
      while (!stop) {
        await c.query("INSERT INTO bench_writes (body) VALUES (repeat('x', 1024))");
        written++;
      }
      await c.end();
    };
    const writers = Array.from({ length: WRITERS }, writer);
    let maxLag = 0;
    const lagTimer = setInterval(() => (maxLag = Math.max(maxLag, reads?.status().lagMs ?? 0)), 100);
    await new Promise((r) => setTimeout(r, 1_000));
    const startedAt = performance.now();
    const writtenAtStart = written;
    const times: number[] = [];
    for (let i = 0; i < REQUESTS; i++) {
      const t0 = performance.now();
      const res = await app.inject({ method: 'GET', url, headers });
      times.push(performance.now() - t0);
      if (res.statusCode !== 200 || res.body.split('\n').length < N) throw new Error(`${name}: HTTP ${res.statusCode}, ${res.body.length} bytes`);
    }
    const seconds = (performance.now() - startedAt) / 1000;
    const writesPerSecond = (written - writtenAtStart) / seconds;
    stop = true;
    await Promise.all(writers);
    clearInterval(lagTimer);
    await app.close();
    times.sort((a, b) => a - b);
    const served = reads ? reads.status().reads : null;
    process.stdout.write(
      `${name.padEnd(22)} export p50 ${percentile(times, 50).toFixed(0)} ms  p95 ${percentile(times, 95).toFixed(0)} ms  ` +
        `writes ${writesPerSecond.toFixed(0)}/s  max lag ${maxLag.toFixed(0)} ms` +
        (served ? `  reads: ${served.replica} replica, ${served.primary} primary, ${served.fallbacks} fallbacks` : '') +
        '\n',
    );
  }

  process.stdout.write(`${N} assignments, ${REQUESTS} exports per phase, ${WRITERS} writers\n`);
  await phase('primary only', null);
  const reads = createReadPools(pool, { url: standby.url('assay'), maxLagMs: 10_000, checkMs: 1_000, poolSize: 10, statementTimeoutMs: 0 });
  reads.start();
  await phase('with the read replica', reads);

  // The lag check's cost: what one check runs, 1,000 times, one after another.
  const replicaPool: Pool = createPool(standby.url('assay'), 1);
  const CHECKS = 1_000;
  const t0 = performance.now();
  for (let i = 0; i < CHECKS; i++) {
    await pool.query('SELECT pg_current_wal_lsn()::text AS lsn');
    await replicaPool.query('SELECT pg_is_in_recovery() AS standby, pg_last_wal_replay_lsn()::text AS replayed');
  }
  const perCheck = (performance.now() - t0) / CHECKS;
  process.stdout.write(`lag check: ${(perCheck * 1000).toFixed(0)} µs per check (two one-row queries, one per server); at one per second per API process\n`);
  await replicaPool.end();
  await reads.stop();
  await pool.end();
} finally {
  await standby.destroy();
  await primary.destroy();
}
