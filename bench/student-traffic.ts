import { execFileSync, fork } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Pool as HttpPool } from 'undici';
import { openBenchDatabase } from './bench-database.js';
import { postgresCpuUs } from './postgres-cpu.js';
import type { ProctoringServerReady, RecorderSeat } from './proctoring-server.js';

/**
 * `npx tsx bench/student-traffic.ts [--students 1000 --duration 60 --heartbeat 5 --poll 10 --before <git ref>]`
 *
 * What an open proctored test page costs the servers when nothing happens:
 * N candidates (HTTP level, no browser; a real session each, seated by
 * bench/proctoring-server.ts) send the page's idle heartbeat every
 * `heartbeat` seconds and learn of status changes, for `duration` seconds
 * after a warm-up of one poll interval. Rounds, each on its own embedded
 * PostgreSQL (so its processes' CPU is this round's alone, postgres-cpu.ts):
 *
 * - `before` (with `--before <ref>`): the code of that git ref (extracted
 *   with `git archive` into a temporary folder), a write per heartbeat and
 *   a status poll every `poll` seconds;
 * - `polling`: this code, heartbeats coalesced, the status polled (the
 *   page's fallback);
 * - `push`: this code, heartbeats coalesced, one status stream
 *   (`GET /a/{id}/events`) open per candidate instead of polls.
 *
 * Prints, per round, the app's and PostgreSQL's CPU time per candidate per
 * minute and the candidates one core holds at that rate, then the ratios to
 * the first round. CPU time, unlike latency, stays meaningful on a machine
 * busy with other work; the load average is printed beside it.
 */
const { values: opts } = parseArgs({
  options: {
    students: { type: 'string', default: '1000' },
    duration: { type: 'string', default: '60' },
    heartbeat: { type: 'string', default: '5' },
    poll: { type: 'string', default: '10' },
    before: { type: 'string' },
  },
});
for (const k of ['students', 'duration', 'heartbeat', 'poll'] as const) {
  if (!/^\d+$/.test(opts[k]!) || Number(opts[k]) < 1) throw new Error(`--${k} must be a whole number ≥ 1`);
}
const STUDENTS = Number(opts.students);
const DURATION_MS = Number(opts.duration) * 1000;
const HEARTBEAT_MS = Number(opts.heartbeat) * 1000;
const POLL_MS = Number(opts.poll) * 1000;
// The embedded PostgreSQL of each round: its CPU is measured from /proc, which a shared server would not allow.
delete process.env.DATABASE_URL;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Round {
  name: string;
  appCpuUs: number;
  pgCpuUs: number | null;
  seconds: number;
  requests: number;
  events: number;
  errors: Map<string, number>;
}

/** The code of a git ref in a temporary folder, sharing this checkout's node_modules. */
function extract(ref: string): string {
  const root = execFileSync('git', ['rev-parse', '--show-toplevel'], { encoding: 'utf8' }).trim();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'assay-bench-before-'));
  try {
    const tar = path.join(dir, 'tree.tar');
    execFileSync('git', ['-C', root, 'archive', '-o', tar, ref, 'src', 'bench', 'migrations', 'package.json', 'tsconfig.json']);
    execFileSync('tar', ['-x', '-f', tar, '-C', dir]);
    fs.rmSync(tar);
    fs.symlinkSync(fs.realpathSync(path.join(root, 'node_modules')), path.join(dir, 'node_modules'));
    return dir;
  } catch (err) {
    fs.rmSync(dir, { recursive: true, force: true });
    throw err;
  }
}

async function round(name: string, tree: string, mode: 'poll' | 'push'): Promise<Round> {
  const db = await openBenchDatabase('assay_bench_traffic');
  const child = fork(path.join(tree, 'bench', 'proctoring-server.ts'), [db.url, String(STUDENTS)], {
    cwd: tree,
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const [ready] = (await once(child, 'message')) as [ProctoringServerReady];
  const cpu = async () => {
    child.send('cpu');
    const [m] = (await once(child, 'message')) as [{ cpu: NodeJS.CpuUsage }];
    return m.cpu.user + m.cpu.system;
  };
  const api = new HttpPool(ready.url, { connections: 256, pipelining: 1 });
  const agent = new http.Agent({ keepAlive: true, maxSockets: Infinity });
  const errors = new Map<string, number>();
  const countError = (what: string) => errors.set(what, (errors.get(what) ?? 0) + 1);
  let requests = 0;
  let events = 0;
  let measuring = false;
  let stopped = false;

  async function send(method: 'GET' | 'POST', seat: RecorderSeat, suffix: string, body?: string): Promise<void> {
    try {
      const res = await api.request({
        method,
        path: `/a/${seat.assignmentId}${suffix}`,
        headers: { cookie: seat.cookie, 'x-csrf-token': seat.csrf, ...(body ? { 'content-type': 'application/json' } : {}) },
        ...(body ? { body } : {}),
      });
      await res.body.text();
      if (res.statusCode !== 200) countError(`${suffix} HTTP ${res.statusCode}`);
      else if (measuring) requests++;
    } catch (err) {
      countError(`${suffix} ${(err as Error).message}`);
    }
  }

  const streams: http.ClientRequest[] = [];
  function stream(seat: RecorderSeat): void {
    const req = http.get(`${ready.url}/a/${seat.assignmentId}/events`, { agent, headers: { cookie: seat.cookie, accept: 'text/event-stream' } }, (res) => {
      if (res.statusCode !== 200) countError(`/events HTTP ${res.statusCode}`);
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        if (measuring) events += chunk.split('event: status').length - 1;
      });
      res.on('end', () => stopped || countError('/events ended'));
    });
    req.on('error', (err) => stopped || countError(`/events ${err.message}`));
    streams.push(req);
  }

  async function candidate(seat: RecorderSeat, until: () => boolean): Promise<void> {
    await sleep(Math.random() * Math.max(HEARTBEAT_MS, POLL_MS));
    if (mode === 'push') stream(seat);
    let nextBeat = performance.now();
    let nextPoll = performance.now();
    const beat = JSON.stringify({ signals: [], cameraActive: true, fullscreen: true });
    const inFlight: Promise<void>[] = [];
    while (!until()) {
      const now = performance.now();
      if (now >= nextBeat) {
        inFlight.push(send('POST', seat, '/proctoring/heartbeat', beat));
        nextBeat += HEARTBEAT_MS;
      }
      if (mode === 'poll' && now >= nextPoll) {
        inFlight.push(send('GET', seat, '/status'));
        nextPoll += POLL_MS;
      }
      await sleep(Math.max(1, Math.min(nextBeat, mode === 'poll' ? nextPoll : Infinity) - performance.now()));
    }
    await Promise.all(inFlight);
  }

  const startedAll = performance.now();
  const warmUpMs = Math.max(HEARTBEAT_MS, POLL_MS) * 2;
  let appBefore = 0;
  let pgBefore: number | null = null;
  let measuredFrom = 0;
  const endAt = startedAll + warmUpMs + DURATION_MS;
  const load = Promise.all(ready.seats.map((seat) => candidate(seat, () => performance.now() >= endAt)));
  await sleep(warmUpMs);
  appBefore = await cpu();
  pgBefore = db.clusterDir ? postgresCpuUs(db.clusterDir) : null;
  measuredFrom = performance.now();
  measuring = true;
  await load;
  measuring = false;
  const seconds = (performance.now() - measuredFrom) / 1000;
  const appCpuUs = (await cpu()) - appBefore;
  const pgAfter = db.clusterDir ? postgresCpuUs(db.clusterDir) : null;
  stopped = true;
  for (const s of streams) s.destroy();
  await api.close();
  agent.destroy();
  child.kill('SIGTERM');
  await once(child, 'exit');
  await db.close();
  return { name, appCpuUs, pgCpuUs: pgBefore !== null && pgAfter !== null ? pgAfter - pgBefore : null, seconds, requests, events, errors };
}

const here = path.resolve(import.meta.dirname, '..');
const rounds: Round[] = [];
let beforeTree: string | null = null;
try {
  if (opts.before) {
    beforeTree = extract(opts.before);
    process.stdout.write(`Round before (${opts.before}): ${STUDENTS} candidates, heartbeat every ${HEARTBEAT_MS / 1000} s, status poll every ${POLL_MS / 1000} s…\n`);
    rounds.push(await round(`before (${opts.before})`, beforeTree, 'poll'));
  }
  process.stdout.write(`Round polling: this code, heartbeats coalesced, status poll every ${POLL_MS / 1000} s…\n`);
  rounds.push(await round('polling (coalesced beats)', here, 'poll'));
  process.stdout.write(`Round push: this code, heartbeats coalesced, one status stream per candidate…\n`);
  rounds.push(await round('push (coalesced beats + SSE)', here, 'push'));
} finally {
  if (beforeTree) fs.rmSync(beforeTree, { recursive: true, force: true });
}

/** CPU µs per candidate per minute of exam. */
const perCandidateMinute = (us: number, r: Round) => us / STUDENTS / (r.seconds / 60);
const ms = (us: number) => `${(us / 1000).toFixed(2)} ms`;
const base = rounds[0]!;
console.log(`\n${STUDENTS} candidates for ${(base.seconds).toFixed(0)} s measured (after a ${(Math.max(HEARTBEAT_MS, POLL_MS) * 2) / 1000} s warm-up), heartbeat every ${HEARTBEAT_MS / 1000} s`);
console.log('round | requests/s | app CPU per candidate-minute | PostgreSQL CPU per candidate-minute | candidates per app core | candidates per PostgreSQL core | errors');
for (const r of rounds) {
  const app = perCandidateMinute(r.appCpuUs, r);
  const pg = r.pgCpuUs === null ? null : perCandidateMinute(r.pgCpuUs, r);
  const errors = [...r.errors].map(([k, n]) => `${k} ×${n}`).join(', ') || '0';
  console.log(
    `${r.name} | ${(r.requests / r.seconds).toFixed(0)} | ${ms(app)} | ${pg === null ? 'n/a' : ms(pg)} | ${Math.floor(60e6 / app)} | ${pg === null ? 'n/a' : Math.floor(60e6 / pg)} | ${errors}`,
  );
}
for (const r of rounds.slice(1)) {
  const appRatio = r.appCpuUs / r.seconds / (base.appCpuUs / base.seconds);
  const pgRatio = r.pgCpuUs !== null && base.pgCpuUs !== null ? r.pgCpuUs / r.seconds / (base.pgCpuUs / base.seconds) : null;
  console.log(`${r.name} / ${base.name}: app CPU ×${appRatio.toFixed(2)}, PostgreSQL CPU ×${pgRatio === null ? 'n/a' : pgRatio.toFixed(2)}`);
}
console.log(`machine load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')} on ${os.cpus().length} CPUs`);
