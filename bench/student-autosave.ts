import { fork } from 'node:child_process';
import { once } from 'node:events';
import os from 'node:os';
import path from 'node:path';
import { isDeepStrictEqual, parseArgs } from 'node:util';
import pg from 'pg';
import { Pool as HttpPool } from 'undici';
import { openBenchDatabase } from './bench-database.js';
import type { StudentServerReady } from './student-server.js';
import type { Question } from '../src/modules/catalog/schemas.js';
import { benchAnswer, POOLED_DRAWN } from './pooled-test.js';

/**
 * `npx tsx bench/student-autosave.ts [--students 2000 --interval 10 --duration 120 --connections 256 --db-pool 10 --pooled on --baseline on --rounds 1]`
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
 * ratio of the two, and again against the same upsert batched per event-loop
 * turn (bench/batched-bare-save.ts); `--baseline off` skips both rounds.
 * With `--pooled on` (the default) the same number of students again sit a
 * pooled, sectioned test (bench/pooled-test.ts: 40 questions drawn from 80,
 * all nine types, questions and options shuffled), each save going to one of
 * the autosaved questions drawn for that student (every type but
 * file_upload, whose answer is an upload) with a valid answer of its type;
 * that round runs right after the flat one, on the same schedule, and is
 * printed with its ratios to the flat test. `--pooled off` runs the flat test alone.
 * Before that round, every drawn question holds an empty answer row (as some
 * minutes into an exam), so its saves update rows as the flat test's do;
 * `--prefill off` leaves the table empty (then a short run's pooled saves are
 * nearly all first saves of their question: INSERTs).
 * CPU per save falls as the rate rises (fixed per-wake-up costs are shared by
 * more saves, and caches stay warm): compare figures at the same rate, and
 * use a high one (`--interval 2`: 1,000 saves/s) for capacity planning.
 * `--rounds N` runs the flat round and the two bare rounds N times, alternating
 * (app, bare, batched bare, app, …), so that none of them always runs on a
 * colder process or a busier minute, and prints each round's CPU per save and
 * the median of the rounds' ratios (the pooled round runs once, after the
 * first flat round). Each round's saves carry versions above the last
 * round's, so every save is a real update.
 * BENCH_PROFILE_DIR=dir writes a V8 CPU profile of the app process there for
 * each round (flat.cpuprofile, pooled.cpuprofile, bare.cpuprofile), seeding left out.
 */
const { values: opts } = parseArgs({
  options: {
    students: { type: 'string', default: '2000' },
    interval: { type: 'string', default: '10' },
    duration: { type: 'string', default: '120' },
    connections: { type: 'string', default: '256' },
    'db-pool': { type: 'string', default: '10' },
    baseline: { type: 'string', default: 'on' },
    pooled: { type: 'string', default: 'on' },
    prefill: { type: 'string', default: 'on' },
    rounds: { type: 'string', default: '1' },
  },
});
const BASELINE = opts.baseline !== 'off';
const POOLED = opts.pooled !== 'off';
if (opts.baseline !== 'on' && opts.baseline !== 'off') throw new Error('--baseline must be on or off');
if (opts.pooled !== 'on' && opts.pooled !== 'off') throw new Error('--pooled must be on or off');
if (opts.prefill !== 'on' && opts.prefill !== 'off') throw new Error('--prefill must be on or off');
const STUDENTS = Number(opts.students);
const INTERVAL_MS = Number(opts.interval) * 1000;
const DURATION_MS = Number(opts.duration) * 1000;
for (const [k, v] of Object.entries(opts)) if (k !== 'baseline' && k !== 'pooled' && k !== 'prefill' && (!/^\d+$/.test(String(v)) || Number(v) < 1)) throw new Error(`--${k} must be a whole number ≥ 1`);

const db = await openBenchDatabase('assay_bench_students');

const child = fork(path.join(import.meta.dirname, 'student-server.ts'), [db.url, String(STUDENTS), opts['db-pool']!, POOLED ? 'on' : 'off', opts.prefill!], {
  execArgv: ['--import', 'tsx'],
  stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
});
async function cleanup() {
  child.kill('SIGTERM');
  await once(child, 'exit').catch(() => undefined);
  await db.close();
}

try {
  process.stdout.write(`Seeding ${STUDENTS} students${POOLED ? ' on each test' : ''} (assignment, start link, Begin)…\n`);
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

  type Seat = StudentServerReady['seats'][number];
  /** What a seat's seq-th save sends: one answer, as the page sends it. */
  type Answer = (seat: Seat, seq: number) => { questionId: string; value: unknown };
  const flatAnswer: Answer = (seat, seq) => ({ questionId: ready.questionId, value: `answer ${seq} from ${seat.assignmentId}` });
  const pooledQuestions = new Map((ready.pooled?.questions ?? []).map((q): [string, Question] => [q.id, q]));
  /** Pooled test: the seat's drawn questions in turn, each with a valid answer of its type. */
  const pooledAnswer: Answer = (seat, seq) => {
    const ids = seat.questionIds!;
    const questionId = ids[(seq - 1) % ids.length]!;
    return { questionId, value: benchAnswer(pooledQuestions.get(questionId)!, seq) };
  };

  /** One round: every seat saves every interval for the duration, against `baseUrl`. */
  const profile = async (m: { profile: 'start' | 'stop'; name?: string }) => {
    if (!process.env.BENCH_PROFILE_DIR) return;
    child.send(m);
    await once(child, 'message');
  };

  /** Versions of round r start above every version of the rounds before it. */
  let roundNo = 0;
  async function round(name: string, baseUrl: string, seats: Seat[], answer: Answer) {
    const versionBase = roundNo++ * 1_000_000;
    const http = new HttpPool(baseUrl, { connections: Number(opts.connections), pipelining: 1 });
    const latencies: number[] = [];
    /** Saves sent after the first interval, when every session has saved once. */
    const steady: number[] = [];
    const errors = new Map<string, number>();
    /** Per student and question: the highest version the server said it stored, and its value. */
    const accepted = new Map<string, { version: number; value: unknown }>();
    let stale = 0;
    const countError = (what: string): void => {
      errors.set(what, (errors.get(what) ?? 0) + 1);
    };

    let started = performance.now();
    async function save(seat: Seat, seq: number): Promise<void> {
      const { questionId, value } = answer(seat, seq);
      const key = `${seat.assignmentId} ${questionId}`;
      const version = versionBase + seq;
      const body = JSON.stringify({ answers: [{ questionId, value, version }] });
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
        else if ((accepted.get(key)?.version ?? 0) < version) accepted.set(key, { version, value });
      } catch (err) {
        record();
        countError((err as Error).message);
      }
    }

    await profile({ profile: 'start' });
    const cpuBefore = await cpu();
    const batchesBefore = batches;
    started = performance.now();
    const inFlight = new Set<Promise<void>>();
    await Promise.all(
      seats.map(async (seat) => {
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
    await profile({ profile: 'stop', name });
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

  /** Every accepted save must be what the database holds now (the latest accepted one per student and question). */
  async function countLost(seats: Seat[], accepted: Map<string, { version: number; value: unknown }>): Promise<number> {
    const c = new pg.Client({ connectionString: db.url });
    await c.connect();
    const { rows } = await c.query<{ assignment_id: string; question_id: string; value: unknown; version: number }>(
      'SELECT assignment_id, question_id, value, version::float8 AS version FROM answers WHERE assignment_id = ANY($1)',
      [seats.map((s) => s.assignmentId)],
    );
    await c.end();
    const stored = new Map(rows.map((r) => [`${r.assignment_id} ${r.question_id}`, r]));
    let lost = 0;
    for (const [key, a] of accepted) {
      const s = stored.get(key);
      if (!s || s.version !== a.version || !isDeepStrictEqual(s.value, a.value)) lost++;
    }
    return lost;
  }

  const ROUNDS = Number(opts.rounds);
  process.stdout.write(`Running: ${STUDENTS} students, a save every ${INTERVAL_MS / 1000} s each, for ${DURATION_MS / 1000} s${ROUNDS > 1 ? `, ${ROUNDS} rounds of each server, alternating` : ''}…\n`);
  type Round = Awaited<ReturnType<typeof round>>;
  const appRounds: Array<Round & { lost: number }> = [];
  const bareRounds: Round[] = [];
  const batchedRounds: Round[] = [];
  let pooled: (Round & { lost: number }) | null = null;
  for (let r = 0; r < ROUNDS; r++) {
    const flat = await round(ROUNDS > 1 ? `flat-${r + 1}` : 'flat', ready.url, ready.seats, flatAnswer);
    appRounds.push({ ...flat, lost: await countLost(ready.seats, flat.accepted) });
    if (ready.pooled && r === 0) {
      process.stdout.write(`Pooled: ${STUDENTS} more students on the pooled, sectioned test (${POOLED_DRAWN} questions each, mixed types), the same schedule…\n`);
      const p = await round('pooled', ready.url, ready.pooled.seats, pooledAnswer);
      pooled = { ...p, lost: await countLost(ready.pooled.seats, p.accepted) };
    }
    if (BASELINE) {
      process.stdout.write(`Baseline: the same schedule against a bare Fastify + pg route doing the same upsert…\n`);
      bareRounds.push(await round(ROUNDS > 1 ? `bare-${r + 1}` : 'bare', ready.baselineUrl, ready.seats, flatAnswer));
      process.stdout.write(`Batched baseline: the same schedule against the bare route with one statement per event-loop turn…\n`);
      batchedRounds.push(await round(ROUNDS > 1 ? `bare-batched-${r + 1}` : 'bare-batched', ready.batchedBaselineUrl, ready.seats, flatAnswer));
    }
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  /** The round whose app CPU per save is the median: its figures are the ones printed. */
  const app = [...appRounds].sort((a, b) => a.cpuPerSave - b.cpuPerSave)[Math.floor(ROUNDS / 2)]!;
  const lost = appRounds.reduce((n, r) => n + r.lost, 0);
  const mid = (rounds: Round[]) => [...rounds].sort((a, b) => a.cpuPerSave - b.cpuPerSave)[Math.floor(rounds.length / 2)] ?? null;
  const baseline = mid(bareRounds);
  const batchedBaseline = mid(batchedRounds);
  /** Ratios of the same round number (app round r against baseline round r), their median and range. */
  const ratios = (rounds: Round[]) => {
    const xs = rounds.map((b, i) => appRounds[i]!.cpuPerSave / b.cpuPerSave);
    const sorted = [...xs].sort((a, b) => a - b);
    return { median: median(xs), text: ROUNDS > 1 ? ` (rounds ${sorted.map((x) => x.toFixed(2)).join(', ')})` : '' };
  };
  const perRound = (rounds: Round[]) => (ROUNDS > 1 ? `; rounds ${rounds.map((x) => x.cpuPerSave.toFixed(0)).join(', ')} µs` : '');

  const pick = (xs: number[], p: number) => xs[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))] ?? NaN;
  const q = (p: number) => pick(app.latencies, p);
  const errorCount = appRounds.reduce((sum, r) => sum + [...r.errors.values()].reduce((s, n) => s + n, 0), 0);
  const rows = [
    ['PostgreSQL', `${db.version} (${db.embedded ? 'embedded, temp dir' : 'DATABASE_URL server'}), app pool ${opts['db-pool']} connections`],
    ['students', String(STUDENTS)],
    ['saves', `${app.latencies.length} in ${app.elapsed.toFixed(1)} s (${(app.latencies.length / app.elapsed).toFixed(0)}/s)`],
    ['latency p50', `${q(50).toFixed(1)} ms`],
    ['latency p90', `${q(90).toFixed(1)} ms`],
    ['latency p99', `${q(99).toFixed(1)} ms   (target < 50 ms: ${q(99) < 50 ? 'met' : 'NOT met'})`],
    ['latency max', `${app.latencies[app.latencies.length - 1]!.toFixed(1)} ms`],
    ['after the first interval', `p50 / p99 ${pick(app.steady, 50).toFixed(1)} / ${pick(app.steady, 99).toFixed(1)} ms (every session has saved once)`],
    ['inside the app p50/p99', `${pick(app.serverMs, 50).toFixed(1)} / ${pick(app.serverMs, 99).toFixed(1)} ms (received → sent)`],
    ['app CPU per save', `${app.cpuPerSave.toFixed(0)} µs (the app process; ${((app.cpuPerSave * app.latencies.length) / 1e6 / app.elapsed * 100).toFixed(0)}% of one core)${perRound(appRounds)}`],
    ['  of which in the kernel', `${app.systemPerSave.toFixed(0)} µs (system time: socket reads and writes to the client and PostgreSQL)`],
    ['saves per statement', `${(app.batchedRequests / Math.max(1, app.statements)).toFixed(2)} (${app.statements} statements: saves arriving together share one)`],
    ...(baseline
      ? [
          ['bare Fastify + pg save', `${baseline.cpuPerSave.toFixed(0)} µs of CPU per save (${baseline.systemPerSave.toFixed(0)} µs kernel), p50 / p99 ${pick(baseline.latencies, 50).toFixed(1)} / ${pick(baseline.latencies, 99).toFixed(1)} ms (after the first interval ${pick(baseline.steady, 99).toFixed(1)}), ${baseline.latencies.length} saves${perRound(bareRounds)}`],
          ['app / bare CPU per save', `${ratios(bareRounds).median.toFixed(2)} ×${ratios(bareRounds).text}`],
        ]
      : []),
    ...(batchedBaseline
      ? [
          ['bare batched save', `${batchedBaseline.cpuPerSave.toFixed(0)} µs of CPU per save (${batchedBaseline.systemPerSave.toFixed(0)} µs kernel), p50 / p99 ${pick(batchedBaseline.latencies, 50).toFixed(1)} / ${pick(batchedBaseline.latencies, 99).toFixed(1)} ms, ${batchedBaseline.latencies.length} saves${perRound(batchedRounds)}`],
          ['app / bare batched CPU', `${ratios(batchedRounds).median.toFixed(2)} ×${ratios(batchedRounds).text}   (target <= 1.1: ${ratios(batchedRounds).median <= 1.1 ? 'met' : 'MISSED'})`],
        ]
      : []),
    ...(pooled
      ? [
          ['POOLED, SECTIONED TEST', `${POOLED_DRAWN} of 80 questions drawn per student, all nine types (file_upload not autosaved); answer rows ${opts.prefill === 'on' ? 'prefilled' : 'not prefilled'}`],
          ['  saves', `${pooled.latencies.length} in ${pooled.elapsed.toFixed(1)} s`],
          ['  latency p50 / p99', `${pick(pooled.latencies, 50).toFixed(1)} / ${pick(pooled.latencies, 99).toFixed(1)} ms (after the first interval ${pick(pooled.steady, 50).toFixed(1)} / ${pick(pooled.steady, 99).toFixed(1)})`],
          ['  inside the app p50/p99', `${pick(pooled.serverMs, 50).toFixed(1)} / ${pick(pooled.serverMs, 99).toFixed(1)} ms`],
          ['  app CPU per save', `${pooled.cpuPerSave.toFixed(0)} µs (${pooled.systemPerSave.toFixed(0)} µs kernel)`],
          ['  saves per statement', (pooled.batchedRequests / Math.max(1, pooled.statements)).toFixed(2)],
          ['  pooled / flat', `CPU per save ${(pooled.cpuPerSave / app.cpuPerSave).toFixed(2)} ×, p50 ${(pick(pooled.latencies, 50) / q(50)).toFixed(2)} ×, p99 ${(pick(pooled.latencies, 99) / q(99)).toFixed(2)} ×, in-app p50 ${(pick(pooled.serverMs, 50) / pick(app.serverMs, 50)).toFixed(2)} ×`],
          ['  errors / stale / lost', `${[...pooled.errors.values()].reduce((s, n) => s + n, 0)} / ${pooled.stale} / ${pooled.lost} of ${pooled.accepted.size} answers checked${pooled.errors.size ? ` (${[...pooled.errors].map(([k, n]) => `${k}: ${n}`).join(', ')})` : ''}`],
        ]
      : []),
    ['machine load average', os.loadavg().map((l) => l.toFixed(1)).join(' ') + ` on ${os.cpus().length} CPUs`],
    ['errors', `${errorCount}${errorCount ? ` (${appRounds.flatMap((r) => [...r.errors]).map(([k, n]) => `${k}: ${n}`).join(', ')})` : ''}`],
    ['stale (refused as older)', String(app.stale)],
    ['accepted saves lost', `${lost} of ${app.accepted.size} students checked${ROUNDS > 1 ? ' in each round' : ''}   (target 0: ${lost === 0 ? 'met' : 'NOT met'})`],
  ];
  process.stdout.write(`\nStudent autosave load\n${rows.map(([k, v]) => `  ${k!.padEnd(26)} ${v}`).join('\n')}\n`);
  const pooledOk = !pooled || (pooled.lost === 0 && pooled.errors.size === 0);
  process.exitCode = lost === 0 && errorCount === 0 && q(99) < 50 && pooledOk ? 0 : 1;
} finally {
  await cleanup();
}

function sleep(ms: number) {
  return new Promise((r) => setTimeout(r, ms));
}
