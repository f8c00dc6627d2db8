import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import http from 'node:http';
import type net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { createPool } from '../src/platform/db.js';
import { randomBase62 } from '../src/platform/ids.js';
import { migrate } from '../src/platform/migrate.js';
import { systemClock } from '../src/platform/clock.js';
import { createApiKey } from '../src/modules/institutions/api-keys.js';
import { createInstitution } from '../src/modules/institutions/institutions.js';
import { createTest, publishTest } from '../src/modules/catalog/tests-service.js';
import { beginAttempt } from '../src/modules/attempts/begin-attempt.js';
import { installWebhookFanOut } from '../src/modules/webhooks/fan-out.js';
import { autoSubmitAt } from '../src/modules/attempts/timing.js';
import { DEMO_TESTS } from '../src/demo/demo-tests.js';
import { benchAppConfig, openBenchDatabase } from './bench-database.js';
import { postgresCpuUs } from './postgres-cpu.js';
import { seedAssignments } from '../scripts/seed-assignments.js';
import { freePort, processCpuUs, untilReady } from './processes.js';

const cpuUs = (pid: number) => processCpuUs(pid) ?? 0;

/**
 * `npx tsx bench/deadline-burst.ts [--candidates 10000 --workers 1 --readers 4]`
 *
 * The shared deadline of an exam day: `--candidates` attempts of the demo's
 * auto-marked test (four questions, results at once), all begun through the
 * service's own `beginAttempt` and answered, then given one deadline (the
 * attempts' deadlines and their auto-submit jobs are set to one moment by
 * SQL, as if every candidate had pressed Begin at once), with one partner
 * webhook endpoint registered so each submission writes its delivery as in
 * production. `--workers` worker processes (src/worker-main.ts, as deployed)
 * and one API process run on the database; from the deadline (+ grace) on,
 * the run counts the assignments `completed` and the attempts in the results
 * rollup, while `--readers` loops read one assignment through the partner
 * API (its latency over the burst is the partner read's p99). It prints the
 * seconds until every attempt is completed and until the rollup holds them
 * all, the rate, the readers' p50/p99, the processes' CPU, the load average.
 */
const { values: opts } = parseArgs({
  options: {
    candidates: { type: 'string', default: '10000' },
    workers: { type: 'string', default: '1' },
    readers: { type: 'string', default: '4' },
    'lead-seconds': { type: 'string', default: '15' },
  },
});
const N = Number(opts.candidates);
const WORKERS = Number(opts.workers);
const READERS = Number(opts.readers);
const LEAD_S = Number(opts['lead-seconds']);
if (!Number.isInteger(N) || N < 1 || !Number.isInteger(WORKERS) || WORKERS < 1) throw new Error('--candidates and --workers are whole numbers ≥ 1');

const db = await openBenchDatabase('assay_burst');
const pool = createPool(db.url, 12);
const children: ChildProcess[] = [];
const receiver = http.createServer((req, res) => {
  req.resume();
  req.on('end', () => res.writeHead(204).end());
});
try {
  await migrate(pool);
  installWebhookFanOut();
  const config = benchAppConfig(db.url);
  const ctx = { config, pool, clock: systemClock };
  const institution = await createInstitution(pool, { name: 'Burst University', callbackDomains: ['bench.example'] });
  const { apiKey } = await createApiKey(pool, institution.institutionId, 'burst');
  const test = await createTest(pool, DEMO_TESTS[0]!);
  await publishTest(pool, test.testId, institution.institutionId);
  const t0 = performance.now();
  await seedAssignments(pool, { institutionId: institution.institutionId, testId: test.testId }, { count: N });
  const seeded = await pool.query<{ id: string; user_id: string }>('SELECT id, user_id FROM assignments WHERE institution_id = $1', [institution.institutionId]);

  // Begin every attempt through the service (the state machine, the attempt row, the deadline job), 8 at a time.
  let next = 0;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (next < seeded.rows.length) {
        const row = seeded.rows[next++]!;
        const session = { idHash: '', institutionId: institution.institutionId, userId: row.user_id, csrfToken: '', expiresAt: new Date(Date.now() + 3_600_000) };
        const outcome = await beginAttempt(ctx, session, row.id);
        if (outcome !== 'started') throw new Error(`begin ${row.id}: ${outcome}`);
      }
    }),
  );
  // Every question answered (three right, one wrong), as the autosave would have stored them.
  await pool.query(
    `INSERT INTO answers (assignment_id, institution_id, question_id, value, version, saved_at)
     SELECT at.assignment_id, at.institution_id, q->>'id',
            CASE q->>'type' WHEN 'single_choice' THEN '"b"'::jsonb WHEN 'multiple_choice' THEN '["a","c"]'::jsonb
                            WHEN 'short_text' THEN '"five"'::jsonb ELSE '"3.2"'::jsonb END, 1, now()
       FROM attempts at JOIN test_versions tv ON tv.id = at.test_version_id CROSS JOIN LATERAL jsonb_array_elements(tv.questions) q
      WHERE at.institution_id = $1`,
    [institution.institutionId],
  );
  const setupS = (performance.now() - t0) / 1000;

  // ---- processes ---------------------------------------------------------------------------------
  receiver.listen(0, '127.0.0.1');
  await once(receiver, 'listening');
  const receiverPort = (receiver.address() as net.AddressInfo).port;
  const port = await freePort();
  const apiUrl = `http://127.0.0.1:${port}`;
  const env = {
    ...process.env,
    DATABASE_URL: db.url,
    ASSAY_ADMIN_TOKEN: `burst-${randomBase62(32)}`,
    ASSAY_SECRET: randomBase62(48),
    ASSAY_MIGRATE: 'check',
    ASSAY_ALLOW_INSECURE_URLS: '1',
    ASSAY_RATE_LIMIT_PER_SECOND: '1000000',
    ASSAY_RATE_LIMIT_BURST: '1000000',
    LOG_LEVEL: 'warn',
    HOST: '127.0.0.1',
  };
  const start = (entry: string, extra: Record<string, string>) => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(import.meta.dirname, '..', 'src', entry)], { env: { ...env, ...extra }, stdio: ['ignore', 'ignore', 'inherit'] });
    children.push(child);
    return child;
  };
  const api = start('main.ts', { PORT: String(port), PUBLIC_BASE_URL: apiUrl, ASSAY_RUN_WORKER: '0' });
  await untilReady(apiUrl);
  const auth = { authorization: `Bearer ${apiKey}` };
  const endpoint = await fetch(`${apiUrl}/api/partner/v1/webhook-endpoints`, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json' },
    body: JSON.stringify({ url: `http://127.0.0.1:${receiverPort}/hooks` }),
  });
  if (endpoint.status !== 201) throw new Error(`webhook endpoint: ${endpoint.status} ${await endpoint.text()}`);

  // One deadline for all, LEAD_S seconds ahead (the job runs at deadline + grace), by the database's clock.
  const { rows: dl } = await pool.query<{ deadline: Date }>(`SELECT date_trunc('second', now()) + make_interval(secs => $1) AS deadline`, [LEAD_S]);
  const deadline = dl[0]!.deadline;
  const due = autoSubmitAt(deadline);
  await pool.query('UPDATE attempts SET deadline_at = $2 WHERE institution_id = $1', [institution.institutionId, deadline]);
  await pool.query(`UPDATE jobs SET run_at = $1 WHERE kind = 'attempt.auto_submit'`, [due]);
  await pool.query('ANALYZE');
  const workers = Array.from({ length: WORKERS }, () => start('worker-main.ts', {}));
  await new Promise((r) => setTimeout(r, 3000)); // the workers connect and seed their recurring jobs

  // ---- the burst ----------------------------------------------------------------------------------
  const readId = seeded.rows[0]!.id;
  const latencies: number[] = [];
  let reading = true;
  let readErrors = 0;
  const readers = Array.from({ length: READERS }, async () => {
    while (reading) {
      const t = performance.now();
      const r = await fetch(`${apiUrl}/api/partner/v1/assignments/${readId}`, { headers: auth }).catch(() => null);
      if (r) await r.arrayBuffer();
      if (!r || r.status !== 200) readErrors++;
      else if (Date.now() >= due.getTime()) latencies.push(performance.now() - t);
      await new Promise((res) => setTimeout(res, 20));
    }
  });
  const cpuAt = () => ({ api: cpuUs(api.pid!), workers: workers.reduce((s, w) => s + cpuUs(w.pid!), 0), pg: db.clusterDir ? postgresCpuUs(db.clusterDir) : null });
  await new Promise((r) => setTimeout(r, Math.max(0, due.getTime() - Date.now())));
  const cpu0 = cpuAt();
  const load0 = os.loadavg()[0]!;
  let completedS: number | null = null;
  let rolledUpS: number | null = null;
  const timeline: string[] = [];
  for (;;) {
    const { rows } = await pool.query<{ completed: number; rolled: number }>(
      `SELECT (SELECT count(*)::int FROM assignments WHERE institution_id = $1 AND status = 'completed') AS completed,
              (SELECT count(*)::int FROM result_rollup_attempts) AS rolled`,
      [institution.institutionId],
    );
    const s = (Date.now() - due.getTime()) / 1000;
    timeline.push(`${s.toFixed(0)} s: ${rows[0]!.completed} completed, ${rows[0]!.rolled} rolled up`);
    if (completedS === null && rows[0]!.completed >= N) completedS = s;
    if (rows[0]!.rolled >= N) {
      rolledUpS = s;
      break;
    }
    if (s > 900) break;
    await new Promise((r) => setTimeout(r, 1000));
  }
  const cpu1 = cpuAt();
  const load1 = os.loadavg()[0]!;
  reading = false;
  await Promise.all(readers);
  latencies.sort((a, b) => a - b);
  const q = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))] ?? NaN;

  const lines = [
    `deadline burst: ${N.toLocaleString('en-US')} attempts, one deadline, ${WORKERS} worker process(es), 1 API process, PostgreSQL ${db.version}${db.embedded ? ' (embedded)' : ''}, ${os.cpus().length} cores`,
    `  setup (seed + ${N} begins + answers): ${setupS.toFixed(0)} s`,
    `  all completed: ${completedS === null ? 'not within 900 s' : `${completedS.toFixed(1)} s after the deadline's job time`} (${completedS ? Math.round(N / completedS) : '-'} per second)`,
    `  all in the results rollup: ${rolledUpS === null ? 'not within 900 s' : `${rolledUpS.toFixed(1)} s`}`,
    `  partner read during the burst: p50 ${q(0.5).toFixed(1)} ms, p99 ${q(0.99).toFixed(1)} ms, max ${q(1).toFixed(1)} ms (${latencies.length} reads, ${readErrors} errors)`,
    `  CPU over the burst: workers ${((cpu1.workers - cpu0.workers) / 1e6).toFixed(1)} s, API ${((cpu1.api - cpu0.api) / 1e6).toFixed(1)} s` +
      (cpu0.pg !== null && cpu1.pg !== null ? `, PostgreSQL ${((cpu1.pg - cpu0.pg) / 1e6).toFixed(1)} s` : ' (PostgreSQL CPU: only with the embedded server)') +
      `; per attempt: workers ${((cpu1.workers - cpu0.workers) / N / 1000).toFixed(2)} ms`,
    `  load average (1 min): ${load0.toFixed(2)} at the deadline, ${load1.toFixed(2)} at the end`,
    `  timeline: ${timeline.filter((_, i) => i % 5 === 0 || i === timeline.length - 1).join('; ')}`,
  ];
  process.stdout.write(lines.join('\n') + '\n');
} finally {
  await Promise.all(
    children.map(async (c) => {
      if (c.exitCode !== null || c.signalCode !== null) return;
      c.kill('SIGTERM');
      await once(c, 'exit');
    }),
  );
  receiver.close();
  await pool.end();
  await db.close();
}

