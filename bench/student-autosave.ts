import { fork } from 'node:child_process';
import { once } from 'node:events';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { Pool as HttpPool } from 'undici';
import { openBenchDatabase } from './bench-database.js';
import type { StudentServerReady } from './student-server.js';

/**
 * `npx tsx bench/student-autosave.ts [--students 2000 --interval 10 --duration 120 --connections 256 --db-pool 10]`
 *
 * Autosave under a full exam hall: every simulated student (HTTP level, no
 * browser; a real session cookie and CSRF token each) saves an answer every
 * `interval` seconds for `duration` seconds, first saves spread over the
 * first interval. On a real PostgreSQL (DATABASE_URL's server, else an
 * embedded one in a temp dir), in a fresh database; the app runs in a child
 * process with its default pool of 10 connections. Prints p50/p90/p99/max
 * save latency and the error count, then checks that every save the server
 * accepted is what is stored (zero lost). Targets: p99 < 50 ms, 0 lost.
 * Also prints the app process's CPU time per save, which (unlike latency)
 * stays meaningful on a machine busy with other work, then runs the same
 * schedule against a bare Fastify + pg route doing the same upsert (in the
 * same process, on its own port: bench/student-server.ts) and prints the
 * ratio of the two; `--baseline off` skips that round.
 * CPU per save falls as the rate rises (fixed per-wake-up costs are shared by
 * more saves, and caches stay warm): compare figures at the same rate, and
 * use a high one (`--interval 2`: 1,000 saves/s) for capacity planning.
 * BENCH_PROFILE_DIR=dir writes a V8 CPU profile of the app process there.
 */
const { values: opts } = parseArgs({
  options: {
    students: { type: 'string', default: '2000' },
    interval: { type: 'string', default: '10' },
    duration: { type: 'string', default: '120' },
    connections: { type: 'string', default: '256' },
    'db-pool': { type: 'string', default: '10' },
    baseline: { type: 'string', default: 'on' },
  },
});
const BASELINE = opts.baseline !== 'off';
if (opts.baseline !== 'on' && opts.baseline !== 'off') throw new Error('--baseline must be on or off');
const STUDENTS = Number(opts.students);
const INTERVAL_MS = Number(opts.interval) * 1000;
const DURATION_MS = Number(opts.duration) * 1000;
for (const [k, v] of Object.entries(opts)) if (k !== 'baseline' && (!/^\d+$/.test(String(v)) || Number(v) < 1)) throw new Error(`--${k} must be a whole number ≥ 1`);

const db = await openBenchDatabase('assay_bench_students');

const child = fork(path.join(import.meta.dirname, 'student-server.ts'), [db.url, String(STUDENTS), opts['db-pool']!], {
  execArgv: ['--import', 'tsx', ...(process.env.BENCH_PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE_DIR}`] : [])],
  stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
});
async function cleanup() {
  child.kill('SIGTERM');
  await once(child, 'exit').catch(() => undefined);
  await db.close();
}

try {
  process.stdout.write(`Seeding ${STUDENTS} students (assignment, start link, Begin)…\n`);
  const [ready] = (await Promise.race([
    once(child, 'message'),
    once(child, 'exit').then(() => {
      throw new Error('the bench server exited before it was ready');
    }),
  ])) as [StudentServerReady];

  let serverMs: number[] = [];
  let batches = { statements: 0, requests: 0 };
  const cpu = async () => {
    child.send('cpu');
    const [m] = (await once(child, 'message')) as [{ cpu: NodeJS.CpuUsage; serverMs: number[]; batches: typeof batches }];
    serverMs = m.serverMs;
    batches = m.batches;
    return m.cpu;
  };

  /** One round: every student saves every interval for the duration, against `baseUrl`. */
  async function round(baseUrl: string) {
    const http = new HttpPool(baseUrl, { connections: Number(opts.connections), pipelining: 1 });
    const latencies: number[] = [];
    /** Saves sent after the first interval, when every session has been seen once (its first save looks it up). */
    const steady: number[] = [];
    const errors = new Map<string, number>();
    /** Per student: the highest version the server said it stored, and its value. */
    const accepted = new Map<string, { version: number; value: string }>();
    let stale = 0;
    const countError = (what: string): void => {
      errors.set(what, (errors.get(what) ?? 0) + 1);
    };

    let started = performance.now();
    async function save(seat: StudentServerReady['seats'][number], seq: number): Promise<void> {
      const value = `answer ${seq} from ${seat.assignmentId}`;
      const body = JSON.stringify({ answers: [{ questionId: ready.questionId, value, version: seq }] });
      const t0 = performance.now();
      const record = () => {
        const ms = performance.now() - t0;
        latencies.push(ms);
        if (t0 - started >= INTERVAL_MS) steady.push(ms);
      };
      try {
        const res = await http.request({
          method: 'POST',
          path: `/a/${seat.assignmentId}/answers`,
          headers: { 'content-type': 'application/json', cookie: seat.cookie, 'x-csrf-token': seat.csrf },
          body,
        });
        const text = await res.body.text();
        record();
        if (res.statusCode !== 200) return countError(`HTTP ${res.statusCode}`);
        const result = (JSON.parse(text) as { results: Array<{ version: number; saved: boolean }> }).results[0]!;
        if (!result.saved) stale++;
        else if ((accepted.get(seat.assignmentId)?.version ?? 0) < seq) accepted.set(seat.assignmentId, { version: seq, value });
      } catch (err) {
        record();
        countError((err as Error).message);
      }
    }

    const cpuBefore = await cpu();
    const batchesBefore = batches;
    started = performance.now();
    const inFlight = new Set<Promise<void>>();
    await Promise.all(
      ready.seats.map(async (seat) => {
        // Spread the first saves over one interval, as students start typing at different moments.
        await sleep(Math.random() * INTERVAL_MS);
        let seq = 0;
        for (;;) {
          const p = save(seat, ++seq);
          inFlight.add(p);
          void p.finally(() => inFlight.delete(p));
          if (performance.now() - started + INTERVAL_MS >= DURATION_MS) break;
          await sleep(INTERVAL_MS);
        }
      }),
    );
    await Promise.all([...inFlight]);
    const elapsed = (performance.now() - started) / 1000;
    const cpuAfter = await cpu();
    await http.close();
    const cpuTotal = cpuAfter.user - cpuBefore.user + (cpuAfter.system - cpuBefore.system);
    return {
      latencies: latencies.sort((x, y) => x - y),
      steady: steady.sort((x, y) => x - y),
      serverMs: serverMs.sort((x, y) => x - y),
      errors,
      accepted,
      stale,
      elapsed,
      cpuPerSave: cpuTotal / latencies.length,
      systemPerSave: (cpuAfter.system - cpuBefore.system) / latencies.length,
      statements: batches.statements - batchesBefore.statements,
      batchedRequests: batches.requests - batchesBefore.requests,
    };
  }

  process.stdout.write(`Running: ${STUDENTS} students, a save every ${INTERVAL_MS / 1000} s each, for ${DURATION_MS / 1000} s…\n`);
  const app = await round(ready.url);

  // Every accepted save must be what the database holds now (the latest accepted one per student).
  const c = new pg.Client({ connectionString: db.url });
  await c.connect();
  const { rows: storedRows } = await c.query<{ assignment_id: string; value: string; version: number }>(
    'SELECT assignment_id, value, version::float8 AS version FROM answers WHERE question_id = $1',
    [ready.questionId],
  );
  await c.end();
  const stored = new Map(storedRows.map((r) => [r.assignment_id, r]));
  let lost = 0;
  for (const [assignmentId, a] of app.accepted) {
    const s = stored.get(assignmentId);
    if (!s || s.version !== a.version || s.value !== a.value) lost++;
  }

  let baseline: Awaited<ReturnType<typeof round>> | null = null;
  if (BASELINE) {
    process.stdout.write(`Baseline: the same schedule against a bare Fastify + pg route doing the same upsert…\n`);
    baseline = await round(ready.baselineUrl);
  }

  const pick = (xs: number[], p: number) => xs[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))] ?? NaN;
  const q = (p: number) => pick(app.latencies, p);
  const errorCount = [...app.errors.values()].reduce((s, n) => s + n, 0);
  const rows = [
    ['PostgreSQL', `${db.version} (${db.embedded ? 'embedded, temp dir' : 'DATABASE_URL server'}), app pool ${opts['db-pool']} connections`],
    ['students', String(STUDENTS)],
    ['saves', `${app.latencies.length} in ${app.elapsed.toFixed(1)} s (${(app.latencies.length / app.elapsed).toFixed(0)}/s)`],
    ['latency p50', `${q(50).toFixed(1)} ms`],
    ['latency p90', `${q(90).toFixed(1)} ms`],
    ['latency p99', `${q(99).toFixed(1)} ms   (target < 50 ms: ${q(99) < 50 ? 'met' : 'NOT met'})`],
    ['latency max', `${app.latencies[app.latencies.length - 1]!.toFixed(1)} ms`],
    ['after the first interval', `p50 / p99 ${pick(app.steady, 50).toFixed(1)} / ${pick(app.steady, 99).toFixed(1)} ms (every session seen once: its first save looked it up)`],
    ['inside the app p50/p99', `${pick(app.serverMs, 50).toFixed(1)} / ${pick(app.serverMs, 99).toFixed(1)} ms (received → sent)`],
    ['app CPU per save', `${app.cpuPerSave.toFixed(0)} µs (the app process; ${((app.cpuPerSave * app.latencies.length) / 1e6 / app.elapsed * 100).toFixed(0)}% of one core)`],
    ['  of which in the kernel', `${app.systemPerSave.toFixed(0)} µs (system time: socket reads and writes to the client and PostgreSQL)`],
    ['saves per statement', `${(app.batchedRequests / Math.max(1, app.statements)).toFixed(2)} (${app.statements} statements: saves arriving together share one)`],
    ...(baseline
      ? [
          ['bare Fastify + pg save', `${baseline.cpuPerSave.toFixed(0)} µs of CPU per save (${baseline.systemPerSave.toFixed(0)} µs kernel), p50 / p99 ${pick(baseline.latencies, 50).toFixed(1)} / ${pick(baseline.latencies, 99).toFixed(1)} ms (after the first interval ${pick(baseline.steady, 99).toFixed(1)}), ${baseline.latencies.length} saves`],
          ['app / bare CPU per save', `${(app.cpuPerSave / baseline.cpuPerSave).toFixed(2)} ×`],
        ]
      : []),
    ['machine load average', os.loadavg().map((l) => l.toFixed(1)).join(' ') + ` on ${os.cpus().length} CPUs`],
    ['errors', `${errorCount}${errorCount ? ` (${[...app.errors].map(([k, n]) => `${k}: ${n}`).join(', ')})` : ''}`],
    ['stale (refused as older)', String(app.stale)],
    ['accepted saves lost', `${lost} of ${app.accepted.size} students checked   (target 0: ${lost === 0 ? 'met' : 'NOT met'})`],
  ];
  process.stdout.write(`\nStudent autosave load\n${rows.map(([k, v]) => `  ${k!.padEnd(26)} ${v}`).join('\n')}\n`);
  process.exitCode = lost === 0 && errorCount === 0 && q(99) < 50 ? 0 : 1;
} finally {
  await cleanup();
}

function sleep(ms: number) {
  return new Promise((r) => setTimeout(r, ms));
}
