import { execFile, fork, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { isDeepStrictEqual, parseArgs, promisify } from 'node:util';
import pg from 'pg';
import { Pool as HttpPool } from 'undici';
import { createPool } from '../src/platform/db.js';
import { randomBase62 } from '../src/platform/ids.js';
import { migrate } from '../src/platform/migrate.js';
import { createApiKey } from '../src/modules/institutions/api-keys.js';
import { createInstitution } from '../src/modules/institutions/institutions.js';
import { createTest, publishTest } from '../src/modules/catalog/tests-service.js';
import { HEARTBEAT_MS, SEGMENT_MS, SNAPSHOT_EVERY_MS } from '../src/modules/proctoring/page-state.js';
import { openBenchDatabase } from './bench-database.js';
import { startHaproxy, type Haproxy } from './haproxy.js';
import { directUpload, uploadCounter } from './direct-upload-client.js';
import { startS3Server } from '../test/helpers/s3-server.js';
import { createS3Store } from '../src/platform/storage/s3-store.js';
import { freePort, processCpuUs } from './processes.js';
import { NODE_FLAGS } from '../bin/node-flags.js';

/**
 * `npx tsx bench/exam-day.ts --candidates 1000 [--proctored [--s3]] [--faults] [--burst-only] [--ramp 60 --minutes 4 --window 15 --addresses 1 --submit deadline|self]`
 *
 * Exam day as deployed: two API processes (`node bin/run.js main`, no
 * worker) and one worker process (`node bin/run.js worker`) on one fresh
 * database (DATABASE_URL's server, else an embedded one), behind a real
 * HAProxy (bench/haproxy.ts: round-robin, no stickiness, checks on /readyz).
 * N candidates are simulated at HTTP level, each with its own session cookie:
 *
 * 1. the partner creates every assignment (partner API, before the exam);
 * 2. joins spread over `--ramp` s: the start link (303 + cookie), the start page;
 * 3. Begin at one moment, spread over `--begin-spread` s (the invigilator says
 *    "start"), then the test page: every deadline falls within that spread;
 * 4. the exam: autosave every 10–30 s (random), the status channel (Server-Sent
 *    Events at `/a/:id/events` when the server answers it with
 *    `text/event-stream`, else a status poll every 10 s, as the page does),
 *    and with `--proctored` the page's heartbeat, 10 s WebM segments
 *    (60–120 KB) and a JPEG snapshot a minute (12–20 KB), at the page's rates
 *    (src/modules/proctoring/page-state.ts); with `--s3` the processes store
 *    in an S3 bucket (s3rver, started by the bench: test/helpers/s3-server.ts)
 *    and each segment and snapshot goes as the page sends it there: presign
 *    through the API, PUT to the bucket, record through the API (the report
 *    prints the upload bytes the API received, those S3 received, and
 *    HAProxy's bytes in for the API backend). It opens with one calibration
 *    window of `--window` s per operation, that operation alone at its real
 *    rate, so its CPU per call can be read; then everything at once (the mix);
 * 5. the deadline: the worker auto-submits and marks every attempt
 *    (`--submit self`: each candidate presses Submit in its last 10 s instead);
 *    the burst is timed from the moment the first auto-submit falls due
 *    (first deadline + the 30 s grace) until all N are `completed`, while a
 *    partner reads an assignment at `--reads`/s (their p99 is printed against
 *    the same reads before the exam).
 *
 * CPU: the API and worker processes' from /proc; PostgreSQL's from the
 * backends serving this run's database (pg_stat_activity, sampled each second;
 * the cluster's shared processes are left out). Per operation: app and
 * PostgreSQL CPU per call and the candidates one core holds at that
 * operation's rate; for the mix, per candidate-minute.
 *
 * `--faults`: in the mix, `kill -9` of one API process (restarted after 3 s,
 * as a supervisor would), then once it is back a PostgreSQL restart
 * (`--pg-restart`, default `pg_ctlcluster 15 main restart`); HAProxy's
 * down-markings are counted for each, and every save answered 200 and every
 * attempt must be in the database at the end. `--burst-only`: no exam traffic
 * beyond the save window, for the deadline burst at large N.
 */
const { values: opts } = parseArgs({
  options: {
    candidates: { type: 'string', default: '1000' },
    proctored: { type: 'boolean', default: false },
    s3: { type: 'boolean', default: false },
    faults: { type: 'boolean', default: false },
    'burst-only': { type: 'boolean', default: false },
    ramp: { type: 'string', default: '60' },
    'begin-spread': { type: 'string', default: '10' },
    minutes: { type: 'string', default: '4' },
    window: { type: 'string', default: '15' },
    addresses: { type: 'string', default: '1' },
    submit: { type: 'string', default: 'deadline' },
    connections: { type: 'string', default: '256' },
    reads: { type: 'string', default: '20' },
    'burst-timeout': { type: 'string', default: '900' },
    'pg-restart': { type: 'string', default: 'pg_ctlcluster 15 main restart' },
  },
});
const num = (k: keyof typeof opts, min: number) => {
  const v = Number(opts[k]);
  if (!Number.isInteger(v) || v < min) throw new Error(`--${k} must be a whole number ≥ ${min}`);
  return v;
};
const N = num('candidates', 1);
const RAMP_MS = num('ramp', 0) * 1000;
const BEGIN_SPREAD_MS = num('begin-spread', 0) * 1000;
const MINUTES = num('minutes', 1);
const WINDOW_MS = num('window', 5) * 1000;
const ADDRESSES = num('addresses', 1);
const CONNECTIONS = num('connections', 1);
const READS = num('reads', 1);
const BURST_TIMEOUT_MS = num('burst-timeout', 10) * 1000;
const PROCTORED = opts.proctored!;
/** Storage in S3 (s3rver, started here): the candidates upload directly (presign, PUT to the bucket, record). */
const S3 = opts.s3!;
const FAULTS = opts.faults!;
const BURST_ONLY = opts['burst-only']!;
if (opts.submit !== 'deadline' && opts.submit !== 'self') throw new Error('--submit is deadline or self');
const SELF_SUBMIT = opts.submit === 'self';

type Kind = 'save' | 'status' | 'heartbeat' | 'segment' | 'snapshot';
/** Calls per candidate per minute at the page's rates (a save every 10–30 s: 3 a minute on average). */
const PER_MINUTE: Record<Kind, number> = { save: 3, status: 6, heartbeat: 60_000 / HEARTBEAT_MS, segment: 60_000 / SEGMENT_MS, snapshot: 60_000 / SNAPSHOT_EVERY_MS };
const KINDS: Kind[] = BURST_ONLY ? ['save'] : ['save', 'status', ...(PROCTORED ? (['heartbeat', 'segment', 'snapshot'] as const) : [])];
const examMs = MINUTES * 60_000;
const calibrationMs = (KINDS.length + 1) * WINDOW_MS + BEGIN_SPREAD_MS + 5_000;
if (calibrationMs + (BURST_ONLY ? 0 : 30_000) + (FAULTS ? 150_000 : 0) > examMs) {
  throw new Error(`--minutes ${MINUTES} leaves too little exam after the calibration windows${FAULTS ? ' and the faults (2.5 minutes)' : ''}: raise --minutes`);
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, Math.max(0, ms)));
const pick = (xs: number[], p: number) => xs[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))] ?? NaN;
const fmt = (n: number) => (Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : '–');
const log = (line: string) => process.stdout.write(`[${new Date().toISOString().slice(11, 19)}] ${line}\n`);
const loadavg = () => os.loadavg().map((l) => l.toFixed(1)).join(' ');

/** Synthetic recordings the server accepts: WebM (EBML magic, then a Tracks id), JPEG (its magic); reused round-robin, so the generator spends nothing per upload. */
const segmentBodies = Array.from({ length: 20 }, (_, i) => {
  const b = randomBytes(60_000 + Math.floor((i / 19) * 60_000));
  Buffer.from([0x1a, 0x45, 0xdf, 0xa3]).copy(b);
  Buffer.from([0x16, 0x54, 0xae, 0x6b]).copy(b, 40);
  return b;
});
const snapshotBodies = Array.from({ length: 10 }, (_, i) => {
  const b = randomBytes(12_000 + i * 900);
  Buffer.from([0xff, 0xd8, 0xff, 0xe0]).copy(b);
  return b;
});

// ---- database, seed, processes, HAProxy --------------------------------------------------------------------
const db = await openBenchDatabase('assay_examday');
const dbName = new URL(db.url).pathname.slice(1);
// A PostgreSQL restart (--faults) ends this connection: an error event, not a crash (cleanup drops the database from a fresh one).
db.admin.on('error', () => undefined);
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'assay-examday-'));
const seedPool = createPool(db.url, 4);
const children = new Map<string, ChildProcess>();
let haproxy: Haproxy | null = null;
let pgRestarted = false;
const cpu = createCpuSampler(db.url, dbName);
const s3 = S3 ? await startS3Server() : null;
const uploadBytes = uploadCounter(s3);
const s3Store = s3 ? createS3Store(s3.config) : null;
let sampling: NodeJS.Timeout | undefined;

async function cleanup() {
  clearInterval(sampling);
  await cpu.close();
  await haproxy?.stop().catch(() => undefined);
  await Promise.all(
    [...children.values()].map(async (c) => {
      if (c.exitCode !== null || c.signalCode !== null) return;
      const exited = once(c, 'exit');
      c.kill('SIGTERM');
      const force = setTimeout(() => c.kill('SIGKILL'), 30_000);
      await exited;
      clearTimeout(force);
    }),
  );
  await seedPool.end().catch(() => undefined);
  await s3?.close().catch(() => undefined);
  if (pgRestarted) {
    // The bench database's admin connection died with the restart: drop the database from a fresh one.
    const c = new pg.Client({ connectionString: Object.assign(new URL(db.url), { pathname: '/postgres' }).toString() });
    c.on('error', () => undefined);
    await c.connect().then(() => c.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`)).catch(() => undefined);
    await c.end().catch(() => undefined);
  }
  await db.close().catch(() => undefined);
  fs.rmSync(tmp, { recursive: true, force: true });
}

try {
  await migrate(seedPool);
  const institution = await createInstitution(seedPool, { name: 'Exam Day University', callbackDomains: ['bench.example'] });
  const { apiKey } = await createApiKey(seedPool, institution.institutionId, 'exam-day');
  const test = await createTest(seedPool, {
    title: PROCTORED ? 'Recorded exam' : 'Exam',
    description: 'Exam day under load.',
    durationMinutes: MINUTES,
    proctoring: PROCTORED ? 'record' : 'none',
    marking: 'auto',
    resultVisibility: 'immediate',
    passPercent: null,
    questions: [
      { id: 'essay', type: 'short_text', prompt: 'Type anything', points: 1, acceptedAnswers: ['anything'] },
      { id: 'pick', type: 'short_text', prompt: 'Type anything again', points: 1, acceptedAnswers: ['anything'] },
    ],
  });
  await publishTest(seedPool, test.testId, institution.institutionId);

  const haproxyPort = await freePort();
  const publicUrl = `http://127.0.0.1:${haproxyPort}`;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: 'development',
    DATABASE_URL: db.url,
    ASSAY_ADMIN_TOKEN: `examday-${randomBase62(32)}`,
    ASSAY_SECRET: randomBase62(48),
    ASSAY_MIGRATE: 'check',
    ASSAY_DATA_DIR: tmp, // both API processes store recordings here: shared storage, as a bucket would be
    PUBLIC_BASE_URL: publicUrl,
    ASSAY_TRUST_PROXY: '127.0.0.1',
    // The partner creates every assignment in a burst before the exam: its per-key limit is not under test.
    // The start-link and student limits keep their defaults: they are part of exam day.
    ASSAY_RATE_LIMIT_PER_SECOND: '1000000',
    ASSAY_RATE_LIMIT_BURST: '1000000',
    LOG_LEVEL: 'warn',
    HOST: '127.0.0.1',
    ...(s3?.env ?? {}),
  };
  const processLog = fs.openSync(path.join(tmp, 'processes.log'), 'a');
  const start = (name: string, entry: 'main' | 'worker', extra: Record<string, string>) => {
    const child = spawn(process.execPath, [...NODE_FLAGS, path.join(import.meta.dirname, '..', 'bin', 'run.js'), entry], {
      env: { ...env, ...extra },
      stdio: ['ignore', 'ignore', processLog],
    });
    children.set(name, child);
    cpu.watch(name, child.pid!);
    return child;
  };
  const apiPorts = [await freePort(), await freePort()];
  const startApi = (i: number) => start(`api${i + 1}`, 'main', { PORT: String(apiPorts[i]), ASSAY_RUN_WORKER: '0' });

  log(`starting 2 API processes and 1 worker on database ${dbName}; HAProxy on ${publicUrl}`);
  const bootStart = performance.now();
  startApi(0);
  startApi(1);
  start('worker', 'worker', {});
  haproxy = await startHaproxy(tmp, haproxyPort, apiPorts.map((port, i) => ({ name: `api${i + 1}`, port })));
  await untilUp(haproxy, ['api1', 'api2'], 180_000);
  log(`ready through HAProxy after ${((performance.now() - bootStart) / 1000).toFixed(1)} s`);
  /** HAProxy's down-markings once every process is up: the ones while they booted are not the run's. */
  const bootStats = await haproxy.stats();
  sampling = setInterval(() => void cpu.sample(), 1000);

  // ---- the simulated candidates ----------------------------------------------------------------------
  const http = new HttpPool(publicUrl, { connections: CONNECTIONS, pipelining: 1, headersTimeout: 60_000, bodyTimeout: 60_000 });
  const stats = new Map<string, { lat: number[]; errors: Map<string, number> }>();
  const stat = (op: string) => {
    let s = stats.get(op);
    if (!s) stats.set(op, (s = { lat: [], errors: new Map() }));
    return s;
  };
  const fail = (op: string, what: string) => {
    const e = stat(op).errors;
    e.set(what, (e.get(what) ?? 0) + 1);
  };
  let segmentBytes = 0;
  /** One request, timed under `op`; an answer outside `ok` (or no answer) is counted as that op's error and returned as null. */
  async function call(op: string, ok: number[], req: { method: 'GET' | 'POST'; path: string; headers?: Record<string, string>; body?: string | Buffer }) {
    const t0 = performance.now();
    try {
      const res = await http.request({ method: req.method, path: req.path, headers: req.headers ?? {}, body: req.body ?? null });
      const text = await res.body.text();
      stat(op).lat.push(performance.now() - t0);
      if (!ok.includes(res.statusCode)) {
        fail(op, `HTTP ${res.statusCode}`);
        return null;
      }
      return { status: res.statusCode, headers: res.headers, text };
    } catch (err) {
      stat(op).lat.push(performance.now() - t0);
      fail(op, (err as { code?: string }).code ?? (err as Error).message);
      return null;
    }
  }

  interface Candidate {
    i: number;
    addr: string;
    assignmentId: string;
    startPath: string;
    cookie: string;
    csrf: string;
    began: number;
    deadline: number;
    version: number;
    accepted: { version: number; value: string } | null;
    seq: number;
    acceptedSegments: Set<number>;
    submitted: boolean;
  }
  const partnerAuth = { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' };
  const candidates: Candidate[] = [];

  // 1. The partner creates the assignments (before exam day, 32 at a time).
  log(`partner creates ${N} assignments…`);
  let w = cpu.window();
  await inParallel(N, 32, async (i) => {
    const r = await call('create', [201], {
      method: 'POST',
      path: '/api/partner/v1/assignments',
      headers: partnerAuth,
      body: JSON.stringify({ externalUserId: `candidate-${i}`, testId: test.testId, user: { email: `c${i}@bench.example` }, callbackUrl: 'https://bench.example/return' }),
    });
    if (!r) throw new Error(`creating assignment ${i} failed: ${[...stat('create').errors.keys()].join(', ')}`);
    const { assignmentId, startUrl } = JSON.parse(r.text) as { assignmentId: string; startUrl: string };
    candidates[i] = {
      i,
      addr: `198.18.${Math.floor((i % ADDRESSES) / 250)}.${(i % ADDRESSES) % 250 + 1}`,
      assignmentId,
      startPath: new URL(startUrl).pathname,
      cookie: '',
      csrf: '',
      began: 0,
      deadline: 0,
      version: 0,
      accepted: null,
      seq: 0,
      acceptedSegments: new Set(),
      submitted: false,
    };
  });
  const windows: Array<{ name: string; calls: number; perMinute?: number; w: Awaited<ReturnType<typeof w.end>> }> = [];
  windows.push({ name: 'create (partner API, before the exam)', calls: N, w: await w.end() });

  // Partner reads on a quiet system, for the burst's comparison.
  const readPath = `/api/partner/v1/assignments/${candidates[0]!.assignmentId}`;
  log(`partner reads at ${READS}/s for 10 s on the quiet system…`);
  const quietReader = await partnerReader(publicUrl, readPath, apiKey, READS);
  await sleep(10_000);
  const quietReads = await quietReader.stop();

  // 2. Joins over the ramp: start link (from the candidate's address), then the start page.
  log(`${N} candidates join over ${RAMP_MS / 1000} s from ${ADDRESSES} address(es)…`);
  let tooMany = 0;
  w = cpu.window();
  const rampStart = performance.now();
  await Promise.all(
    candidates.map(async (c) => {
      await sleep(Math.random() * RAMP_MS);
      for (let tries = 0; ; tries++) {
        const opened = await call('open start link', [303, 429], { method: 'GET', path: c.startPath, headers: { 'x-forwarded-for': c.addr } });
        if (opened?.status === 303) {
          c.cookie = String(opened.headers['set-cookie']).split(';')[0]!;
          break;
        }
        if (opened?.status === 429) tooMany++;
        if (tries >= 20) throw new Error(`candidate ${c.i} could not open the start link`);
        // "Too many attempts" or no answer: the candidate tries again a little later, as a person would.
        await sleep(opened?.status === 429 ? Number(opened.headers['retry-after'] ?? 5) * 1000 : 2000);
      }
      for (let tries = 0; !c.csrf; tries++) {
        const page = await call('start page', [200], { method: 'GET', path: `/a/${c.assignmentId}`, headers: { cookie: c.cookie, 'x-forwarded-for': c.addr } });
        const csrf = page && /name="csrf" value="([^"]+)"/.exec(page.text)?.[1];
        if (csrf) c.csrf = csrf;
        else if (tries >= 10) throw new Error(`candidate ${c.i} got no start page`);
        else await sleep(2000);
      }
    }),
  );
  windows.push({ name: 'join (start link + start page)', calls: N, w: await w.end() });
  log(`joined in ${((performance.now() - rampStart) / 1000).toFixed(1)} s; ${tooMany} "Too many attempts" answers on the start link`);

  // 3. Begin at one moment, then the test page.
  log(`Begin (spread over ${BEGIN_SPREAD_MS / 1000} s)…`);
  w = cpu.window();
  await Promise.all(
    candidates.map(async (c) => {
      await sleep(Math.random() * BEGIN_SPREAD_MS);
      for (let tries = 0; ; tries++) {
        const t = Date.now();
        const begun = await call('begin', [303], {
          method: 'POST',
          path: `/a/${c.assignmentId}/begin`,
          headers: { cookie: c.cookie, 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': c.addr },
          body: `csrf=${encodeURIComponent(c.csrf)}`,
        });
        if (begun) {
          c.began = t;
          c.deadline = t + examMs;
          break;
        }
        if (tries >= 10) throw new Error(`candidate ${c.i} could not begin`);
        await sleep(2000);
      }
      await call('test page', [200], { method: 'GET', path: `/a/${c.assignmentId}`, headers: { cookie: c.cookie, 'x-forwarded-for': c.addr } });
    }),
  );
  windows.push({ name: 'begin (Begin + test page)', calls: N, w: await w.end() });

  // What the processes and the database spend with nobody calling (timers, the worker's polling, the
  // health checks): subtracted from every window by its length, so a call's cost is its own.
  log(`idle window: ${WINDOW_MS / 1000} s, every candidate seated, no requests…`);
  w = cpu.window();
  await sleep(WINDOW_MS);
  const idle = await w.end();
  const idleApp = idle.app / idle.ms;
  const idlePg = idle.pg / idle.ms;
  const aboveIdle = (x: Awaited<ReturnType<typeof w.end>>) => ({ app: Math.max(0, x.app - idleApp * x.ms), pg: Math.max(0, x.pg - idlePg * x.ms) });

  // 4. The exam.
  const studentHeaders = (c: Candidate, extra: Record<string, string> = {}) => ({ cookie: c.cookie, 'x-csrf-token': c.csrf, 'x-forwarded-for': c.addr, ...extra });
  const stopAt = (c: Candidate) => c.deadline - (SELF_SUBMIT ? 12_000 : 1_000);
  const ops: Record<Kind, (c: Candidate) => Promise<unknown>> = {
    async save(c) {
      const version = ++c.version;
      const value = `answer ${version} of ${c.assignmentId}`;
      const r = await call('save', [200], {
        method: 'POST',
        path: `/a/${c.assignmentId}/answers`,
        headers: studentHeaders(c, { 'content-type': 'application/json' }),
        body: JSON.stringify({ answers: [{ questionId: 'essay', value, version }] }),
      });
      const result = r && (JSON.parse(r.text) as { results: Array<{ saved: boolean }> }).results[0];
      if (result?.saved && (c.accepted?.version ?? 0) < version) c.accepted = { version, value };
    },
    status: (c) => call('status poll', [200], { method: 'GET', path: `/a/${c.assignmentId}/status`, headers: studentHeaders(c) }),
    heartbeat: (c) =>
      call('heartbeat', [200], {
        method: 'POST',
        path: `/a/${c.assignmentId}/proctoring/heartbeat`,
        headers: studentHeaders(c, { 'content-type': 'application/json' }),
        body: '{"signals":[],"cameraActive":true,"fullscreen":true}',
      }),
    async segment(c) {
      const seq = c.seq++;
      const body = segmentBodies[(seq + c.i) % segmentBodies.length]!;
      const startedAt = Math.max(c.began, Date.now() - SEGMENT_MS);
      if (s3) {
        const status = await directUpload(call, uploadBytes, 'segment', `/a/${c.assignmentId}/proctoring`, studentHeaders(c), { kind: 'segment', seq, startedAt: new Date(startedAt).toISOString(), durationMs: SEGMENT_MS }, body);
        if (status === 201) {
          c.acceptedSegments.add(seq);
          segmentBytes += body.length;
        }
        return;
      }
      uploadBytes.apiMedia += body.length;
      const r = await call('segment', [200, 201], {
        method: 'POST',
        path: `/a/${c.assignmentId}/proctoring/segments/${seq}`,
        headers: studentHeaders(c, { 'content-type': 'video/webm;codecs=vp8', 'x-segment-started-at': new Date(startedAt).toISOString(), 'x-segment-duration-ms': String(SEGMENT_MS) }),
        body,
      });
      if (r?.status === 201) {
        c.acceptedSegments.add(seq);
        segmentBytes += body.length;
      }
    },
    snapshot: (c) => {
      const body = snapshotBodies[c.i % snapshotBodies.length]!;
      const snapshotId = `snp${randomBase62(20)}`;
      if (s3) return directUpload(call, uploadBytes, 'snapshot', `/a/${c.assignmentId}/proctoring`, studentHeaders(c), { kind: 'snapshot', takenAt: new Date().toISOString(), snapshotId }, body);
      uploadBytes.apiMedia += body.length;
      return call('snapshot', [200, 201], {
        method: 'POST',
        path: `/a/${c.assignmentId}/proctoring/snapshots`,
        headers: studentHeaders(c, { 'content-type': 'image/jpeg', 'x-snapshot-taken-at': new Date().toISOString(), 'x-snapshot-id': snapshotId }),
        body,
      });
    },
  };
  const period = (k: Kind) => (k === 'save' ? 10_000 + Math.random() * 20_000 : 60_000 / PER_MINUTE[k]);

  // The status channel: Server-Sent Events when the server offers them, else the page's poll.
  const sse = await (async () => {
    const c = candidates[0]!;
    const ac = new AbortController();
    try {
      const res = await http.request({ method: 'GET', path: `/a/${c.assignmentId}/events`, headers: { ...studentHeaders(c), accept: 'text/event-stream' }, signal: ac.signal });
      const yes = res.statusCode === 200 && String(res.headers['content-type']).startsWith('text/event-stream');
      ac.abort();
      await res.body.text().catch(() => undefined);
      return yes;
    } catch {
      return false;
    }
  })();
  const streams = new HttpPool(publicUrl, { connections: N + 16, pipelining: 1, headersTimeout: 60_000, bodyTimeout: 0 });
  const streamAborts: AbortController[] = [];
  let streamEvents = 0;
  /** One candidate's event stream, reopened when it closes while the attempt runs (as EventSource does). */
  async function eventStream(c: Candidate): Promise<void> {
    const ac = new AbortController();
    streamAborts.push(ac);
    while (!ac.signal.aborted && Date.now() < c.deadline + 60_000) {
      const t0 = performance.now();
      try {
        const res = await streams.request({ method: 'GET', path: `/a/${c.assignmentId}/events`, headers: { ...studentHeaders(c), accept: 'text/event-stream' }, signal: ac.signal });
        stat('event stream open').lat.push(performance.now() - t0);
        if (res.statusCode !== 200) {
          fail('event stream open', `HTTP ${res.statusCode}`);
          await res.body.text();
          if (res.statusCode === 409 || res.statusCode === 404) return;
        } else {
          for await (const chunk of res.body) streamEvents += (String(chunk).match(/\n\n/g) ?? []).length;
        }
      } catch (err) {
        if (ac.signal.aborted) return;
        fail('event stream open', (err as { code?: string }).code ?? (err as Error).message);
      }
      await sleep(3000);
    }
  }

  const inFlight = new Set<Promise<unknown>>();
  const track = (p: Promise<unknown>) => {
    inFlight.add(p);
    void p.finally(() => inFlight.delete(p));
  };
  /** Every candidate runs the given kinds at their rates, first calls spread over one period, until `until` (or its own stop time). */
  async function run(kinds: Kind[], until: (c: Candidate) => number): Promise<void> {
    await Promise.all(
      candidates.flatMap((c) =>
        kinds.map(async (k) => {
          if (k === 'status' && sse) return; // the stream was opened once, in its window
          await sleep(Math.min(Math.random() * (k === 'save' ? 10_000 : 60_000 / PER_MINUTE[k]), until(c) - Date.now()));
          while (Date.now() < until(c)) {
            track(ops[k](c));
            // Never past the end: a window's CPU must hold its calls and nothing after them.
            await sleep(Math.min(period(k), until(c) - Date.now()));
          }
        }),
      ),
    );
    await Promise.all([...inFlight]);
  }
  const count = (op: string) => stat(op).lat.length;
  // With --s3 an upload is two API calls (presign, record): counted once, by its record; its CPU is both calls'.
  const opName: Record<Kind, string> = { save: 'save', status: sse ? 'event stream open' : 'status poll', heartbeat: 'heartbeat', segment: s3 ? 'segment record' : 'segment', snapshot: s3 ? 'snapshot record' : 'snapshot' };
  const windowName = (k: Kind) => (s3 && (k === 'segment' || k === 'snapshot') ? `${k}, direct (presign + record)` : opName[k]);

  log(`the exam: ${MINUTES} min; status channel: ${sse ? 'Server-Sent Events (/a/:id/events)' : 'status poll every 10 s (no event stream answered)'}`);
  for (const k of KINDS) {
    log(`calibration window: ${k} alone for ${WINDOW_MS / 1000} s…`);
    const before = count(opName[k]);
    const windowEnd = Date.now() + WINDOW_MS;
    w = cpu.window();
    if (k === 'status' && sse) {
      for (const c of candidates) void eventStream(c);
      await sleep(WINDOW_MS);
    } else {
      await run([k], () => windowEnd);
    }
    windows.push({ name: k === 'status' && sse ? 'status (event stream, per open + idle)' : windowName(k), calls: count(opName[k]) - before, perMinute: k === 'status' && sse ? 0 : PER_MINUTE[k], w: await w.end() });
  }

  let mix: Awaited<ReturnType<typeof w.end>> | null = null;
  let mixMinutes = 0;
  const faultReport: string[] = [];
  if (!BURST_ONLY) {
    const mixStart = Date.now();
    const bytesBefore = segmentBytes;
    log(`the mix: every operation at its rate until the deadline${FAULTS ? ', with faults' : ''}…`);
    w = cpu.window();
    const faults = FAULTS ? injectFaults() : Promise.resolve();
    const selfSubmits = SELF_SUBMIT
      ? Promise.all(
          candidates.map(async (c) => {
            await sleep(c.deadline - 10_000 + Math.random() * 9_000 - Date.now());
            const r = await call('submit', [303], {
              method: 'POST',
              path: `/a/${c.assignmentId}/submit`,
              headers: { cookie: c.cookie, 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': c.addr },
              body: `csrf=${encodeURIComponent(c.csrf)}`,
            });
            c.submitted = r !== null;
          }),
        )
      : Promise.resolve();
    await run(KINDS, stopAt);
    mix = await w.end();
    mixMinutes = (Date.now() - mixStart) / 60_000;
    if (PROCTORED) faultReport.push(`segment ingress in the mix: ${((segmentBytes - bytesBefore) * 8 / 1e6 / (mixMinutes * 60)).toFixed(1)} Mbit/s`);
    await faults;
    await selfSubmits;
  }

  /** kill -9 of one API process (a supervisor restarts it 3 s later), then, once it is back, a PostgreSQL restart. */
  async function injectFaults(): Promise<void> {
    await sleep(5_000);
    const down0 = await haproxy!.stats();
    log('fault: kill -9 of api1 (restarted after 3 s)…');
    const killedAt = performance.now();
    children.get('api1')!.kill('SIGKILL');
    await sleep(3_000);
    startApi(0);
    await untilUp(haproxy!, ['api1'], 180_000).catch(() => undefined);
    const down1 = await haproxy!.stats();
    faultReport.push(
      `kill -9 api1: back in rotation after ${((performance.now() - killedAt) / 1000).toFixed(1)} s; marked down ${downs(down0, down1)} (the killed one is expected)`,
    );
    log('fault: PostgreSQL restart…');
    const t0 = performance.now();
    pgRestarted = true;
    const restart = await promisify(execFile)('sh', ['-c', opts['pg-restart']!]).then(
      () => null,
      (err: Error) => err.message,
    );
    let back = NaN;
    for (let i = 0; i < 300; i++) {
      const c = new pg.Client({ connectionString: db.url });
      c.on('error', () => undefined);
      const ok = await c.connect().then(() => c.query('SELECT 1')).then(() => true, () => false);
      await c.end().catch(() => undefined);
      if (ok) {
        back = (performance.now() - t0) / 1000;
        break;
      }
      await sleep(100);
    }
    await sleep(15_000);
    const down2 = await haproxy!.stats();
    faultReport.push(
      `PostgreSQL restart (${opts['pg-restart']}): ${restart ? `FAILED: ${restart}` : `answering again after ${back.toFixed(1)} s`}; instances marked down ${downs(down1, down2)}  (goal: 0 for a blip under 5 s)`,
    );
  }

  // 5. The deadline burst.
  const { rows: [dl] } = await seedPool.query<{ first: Date; last: Date }>(
    `SELECT min(deadline_at) AS first, max(deadline_at) AS last FROM attempts WHERE institution_id = $1`,
    [institution.institutionId],
  );
  const firstDue = dl!.first.getTime() + (SELF_SUBMIT ? 0 : 30_000);
  log(`deadlines ${dl!.first.toISOString().slice(11, 19)}–${dl!.last.toISOString().slice(11, 19)} UTC; ${SELF_SUBMIT ? 'the candidates submit' : 'auto-submits fall due 30 s after each'}; waiting for the burst…`);
  // The burst's CPU window opens at the first deadline, before any auto-submit can run; its clock at the first due time.
  await sleep(dl!.first.getTime() - Date.now());
  w = cpu.window();
  await sleep(firstDue - 3_000 - Date.now());
  const burstReader = await partnerReader(publicUrl, readPath, apiKey, READS);
  await sleep(firstDue - Date.now());
  const burstStart = Date.now();
  let completedAt = NaN;
  let completed = 0;
  const progress: string[] = [];
  while (Date.now() - burstStart < BURST_TIMEOUT_MS) {
    const r = await seedPool
      .query<{ n: number }>(`SELECT count(*)::int AS n FROM assignments WHERE institution_id = $1 AND status = 'completed'`, [institution.institutionId])
      .catch(() => null);
    if (r) completed = r.rows[0]!.n;
    const s = Math.floor((Date.now() - burstStart) / 1000);
    if (s % 10 === 0 && progress.length <= s / 10) progress.push(`${s} s: ${completed}`);
    if (completed >= N) {
      completedAt = (Date.now() - burstStart) / 1000;
      break;
    }
    await sleep(250);
  }
  const burst = await w.end();
  const burstReads = await burstReader.stop();
  log(`burst: ${completed} of ${N} completed${Number.isFinite(completedAt) ? ` after ${completedAt.toFixed(1)} s` : ` (gave up after ${BURST_TIMEOUT_MS / 1000} s)`}`);
  for (const a of streamAborts) a.abort();

  // Every assignment read back through the partner API; every accepted save and segment in the database.
  let notCompleted = 0;
  let lostSubmits = 0;
  await inParallel(N, 16, async (i) => {
    const r = await call('partner read (final check)', [200], { method: 'GET', path: `/api/partner/v1/assignments/${candidates[i]!.assignmentId}`, headers: partnerAuth });
    const status = r && (JSON.parse(r.text) as { status: string }).status;
    if (status !== 'completed') notCompleted++;
    // A Submit answered 303 must have left the attempt submitted (marked or not).
    if (candidates[i]!.submitted && !['submitted', 'marking', 'completed'].includes(status ?? '')) lostSubmits++;
  });
  const { rows: answers } = await seedPool.query<{ assignment_id: string; value: unknown; version: number }>(
    `SELECT assignment_id, value, version::float8 AS version FROM answers WHERE institution_id = $1 AND question_id = 'essay'`,
    [institution.institutionId],
  );
  const stored = new Map(answers.map((a) => [a.assignment_id, a]));
  const lostSaves = candidates.filter((c) => c.accepted && !(stored.get(c.assignmentId)?.version === c.accepted.version && isDeepStrictEqual(stored.get(c.assignmentId)?.value, c.accepted.value))).length;
  const { rows: segs } = await seedPool.query<{ assignment_id: string; seq: number; storage_key: string }>(
    `SELECT assignment_id, seq, storage_key FROM recording_segments WHERE institution_id = $1`,
    [institution.institutionId],
  );
  const segKeys = new Map(segs.map((s) => [`${s.assignment_id}:${s.seq}`, s.storage_key]));
  let acceptedSegments = 0;
  let lostSegments = 0;
  for (const c of candidates) {
    for (const seq of c.acceptedSegments) {
      acceptedSegments++;
      const key = segKeys.get(`${c.assignmentId}:${seq}`);
      if (!key || !(s3Store ? (await s3Store.head(key)) !== null : fs.existsSync(path.join(tmp, 'storage', ...key.split('/'))))) lostSegments++;
    }
  }
  const haproxyStats = await haproxy.stats();
  const apiBytesIn = await haproxy.bytesIn();
  await http.close();
  await streams.destroy();

  // ---- the report --------------------------------------------------------------------------------------
  const cpus = os.cpus();
  const out: string[] = [];
  out.push('', `Exam day: ${N.toLocaleString('en-US')} candidates${PROCTORED ? ', proctored (record)' : ''}${BURST_ONLY ? ', burst only' : ''}${FAULTS ? ', with faults' : ''}`);
  out.push(
    `  machine ${cpus.length} x ${cpus[0]?.model.trim()}, Node ${process.version}, PostgreSQL ${db.version} (${db.embedded ? 'embedded' : 'DATABASE_URL server'}), 2 API processes + 1 worker (pool 10 each) behind HAProxy, round-robin`,
  );
  out.push(`  status channel: ${sse ? 'Server-Sent Events' : 'poll every 10 s'}; joins over ${RAMP_MS / 1000} s from ${ADDRESSES} address(es); Begin over ${BEGIN_SPREAD_MS / 1000} s; ${MINUTES}-minute exam; submit: ${SELF_SUBMIT ? 'by the candidates' : 'auto-submit at the deadline'}`);
  out.push('', '  CPU per operation above idle (app = API + worker processes, PostgreSQL = this database\'s backends); "per core" = candidates one core holds at that operation\'s rate');
  out.push(`  idle (seated, no requests): app ${(idleApp / 1000).toFixed(3)} cores, PostgreSQL ${(idlePg / 1000).toFixed(3)} cores, subtracted from each window below by its length`);
  out.push(`  ${'operation'.padEnd(40)} ${'calls'.padStart(7)} ${'app µs'.padStart(8)} ${'PG µs'.padStart(8)} ${'/cand/min'.padStart(9)} ${'per app core'.padStart(12)} ${'per PG core'.padStart(12)}`);
  for (const x of windows) {
    const app = aboveIdle(x.w).app / Math.max(1, x.calls);
    const pgc = aboveIdle(x.w).pg / Math.max(1, x.calls);
    const perCore = (us: number) => (x.perMinute ? fmt(60e6 / (us * x.perMinute)) : '');
    out.push(`  ${x.name.padEnd(40)} ${fmt(x.calls).padStart(7)} ${fmt(app).padStart(8)} ${fmt(pgc).padStart(8)} ${(x.perMinute ? String(x.perMinute) : '').padStart(9)} ${perCore(app).padStart(12)} ${perCore(pgc).padStart(12)}`);
    if (x.name.startsWith('status (event')) {
      const perCandMin = (us: number) => us / N / (WINDOW_MS / 60_000);
      out.push(`  ${'  per candidate-minute (streams open)'.padEnd(40)} ${''.padStart(7)} ${fmt(perCandMin(aboveIdle(x.w).app)).padStart(8)} ${fmt(perCandMin(aboveIdle(x.w).pg)).padStart(8)} ${'1'.padStart(9)} ${fmt(60e6 / perCandMin(x.w.app)).padStart(12)} ${fmt(60e6 / perCandMin(x.w.pg)).padStart(12)}`);
    }
  }
  if (mix) {
    const app = aboveIdle(mix).app / N / mixMinutes;
    const pgc = aboveIdle(mix).pg / N / mixMinutes;
    out.push(`  ${'the mix, per candidate-minute'.padEnd(40)} ${fmt(N * mixMinutes).padStart(7)} ${fmt(app).padStart(8)} ${fmt(pgc).padStart(8)} ${'1'.padStart(9)} ${fmt(60e6 / app).padStart(12)} ${fmt(60e6 / pgc).padStart(12)}`);
    out.push(`  ${''.padEnd(40)} (${mixMinutes.toFixed(1)} min; app ${(mix.app / 1e6 / (mixMinutes * 60)).toFixed(2)} cores, PostgreSQL ${(mix.pg / 1e6 / (mixMinutes * 60)).toFixed(2)} cores, load average ${mix.loadavg})`);
  }
  out.push(`  ${'deadline burst, per attempt'.padEnd(40)} ${fmt(N).padStart(7)} ${fmt(aboveIdle(burst).app / N).padStart(8)} ${fmt(aboveIdle(burst).pg / N).padStart(8)}   (of the app's, the worker's: ${fmt((burst.byName.worker ?? 0) / N)} µs/attempt with its idle)`);
  out.push('', `  ${'latency (all calls)'.padEnd(40)} ${'calls'.padStart(7)} ${'p50 ms'.padStart(8)} ${'p99 ms'.padStart(8)} ${'max ms'.padStart(8)}  errors`);
  for (const [op, s] of stats) {
    const lat = [...s.lat].sort((a, b) => a - b);
    const errs = [...s.errors].map(([k, n]) => `${k}: ${n}`).join(', ');
    out.push(`  ${op.padEnd(40)} ${fmt(lat.length).padStart(7)} ${pick(lat, 50).toFixed(1).padStart(8)} ${pick(lat, 99).toFixed(1).padStart(8)} ${(lat[lat.length - 1] ?? NaN).toFixed(0).padStart(8)}  ${errs || '0'}`);
  }
  if (sse) out.push(`  event stream: ${fmt(streamEvents)} events received`);
  const q = [...quietReads.latencies].sort((a, b) => a - b);
  const b = [...burstReads.latencies].sort((a, b) => a - b);
  out.push('', '  Deadline burst');
  out.push(
    `  ${'all completed'.padEnd(40)} ${Number.isFinite(completedAt) ? `${completedAt.toFixed(1)} s` : `NOT within ${BURST_TIMEOUT_MS / 1000} s (${completed} of ${N})`} after the first ${SELF_SUBMIT ? 'deadline' : 'auto-submit fell due (deadline + 30 s grace)'}; deadlines spread over ${((dl!.last.getTime() - dl!.first.getTime()) / 1000).toFixed(1)} s  (goal: 60 s)`,
  );
  out.push(`  ${'progress (completed)'.padEnd(40)} ${progress.join(', ')}`);
  out.push(`  ${'burst CPU'.padEnd(40)} app ${(burst.app / 1e6).toFixed(1)} s (worker ${((burst.byName.worker ?? 0) / 1e6).toFixed(1)} s), PostgreSQL ${(burst.pg / 1e6).toFixed(1)} s; load average ${burst.loadavg}`);
  out.push(`  ${'partner read p50 / p99, quiet'.padEnd(40)} ${pick(q, 50).toFixed(1)} / ${pick(q, 99).toFixed(1)} ms (${q.length} reads at ${READS}/s)`);
  out.push(`  ${'partner read p50 / p99, in the burst'.padEnd(40)} ${pick(b, 50).toFixed(1)} / ${pick(b, 99).toFixed(1)} ms (${b.length} reads${burstReads.errors.length ? `, ${burstReads.errors.length} errors: ${[...new Set(burstReads.errors)].join(', ')}` : ''})`);
  out.push('', '  Checks');
  out.push(`  ${'start link "Too many attempts"'.padEnd(40)} ${tooMany} (${N} candidates from ${ADDRESSES} address(es) over ${RAMP_MS / 1000} s; retried after Retry-After)`);
  out.push(`  ${'accepted saves lost'.padEnd(40)} ${lostSaves} of ${candidates.filter((c) => c.accepted).length} candidates' last accepted save  (target 0)`);
  if (PROCTORED) out.push(`  ${'accepted segments lost'.padEnd(40)} ${lostSegments} of ${acceptedSegments} (row and file)  (target 0)`);
  if (PROCTORED) {
    out.push(`  ${'storage'.padEnd(40)} ${s3 ? 'S3 (s3rver): uploads direct (presign, PUT to the bucket, record)' : 'local (shared folder): uploads through the API'}`);
    out.push(`  ${'upload bytes through the API'.padEnd(40)} ${fmt(uploadBytes.apiMedia)} (segment and snapshot bodies sent to the API's upload routes)`);
    out.push(`  ${'  presign + record JSON to the API'.padEnd(40)} ${fmt(uploadBytes.apiJson)}`);
    out.push(`  ${'upload bytes S3 received'.padEnd(40)} ${fmt(uploadBytes.s3())}`);
    out.push(`  ${'HAProxy bytes in, api backend (all)'.padEnd(40)} ${fmt(apiBytesIn)} (every request of the run: saves, polls, heartbeats, uploads' JSON or bodies)`);
  }
  if (SELF_SUBMIT) out.push(`  ${'accepted submissions lost'.padEnd(40)} ${lostSubmits} of ${candidates.filter((c) => c.submitted).length}`);
  out.push(`  ${'not completed (partner read)'.padEnd(40)} ${notCompleted} of ${N}  (target 0)`);
  out.push(`  ${'HAProxy'.padEnd(40)} ${haproxyStats.map((s) => s.name + ' ' + s.status).join(', ')}; marked down since all were up: ${downs(bootStats, haproxyStats)}`);
  for (const f of faultReport) out.push(`  ${f}`);
  out.push(`  ${'load average at the end'.padEnd(40)} ${loadavg()} on ${cpus.length} CPUs`);
  const errorLines = fs.readFileSync(path.join(tmp, 'processes.log'), 'utf8').split('\n').filter((l) => /"level":(50|60)/.test(l));
  out.push(`  ${'error lines in the processes\' logs'.padEnd(40)} ${errorLines.length}${errorLines.length ? `: first ${errorLines[0]!.slice(0, 200)}` : ''}`);
  process.stdout.write(`${out.join('\n')}\n`);
  process.exitCode = lostSaves === 0 && lostSegments === 0 && notCompleted === 0 && lostSubmits === 0 ? 0 : 1;
} finally {
  await cleanup();
}

/** `fn(i)` for i in 0..n-1, at most `width` at once. */
async function inParallel(n: number, width: number, fn: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(width, n) }, async () => {
      while (next < n) await fn(next++);
    }),
  );
}

/** Waits until HAProxy's checks show every named server UP. */
async function untilUp(h: Haproxy, names: string[], timeoutMs: number): Promise<void> {
  const t0 = performance.now();
  while (performance.now() - t0 < timeoutMs) {
    const s = await h.stats().catch(() => []);
    if (names.every((n) => s.find((x) => x.name === n)?.status === 'UP')) return;
    await sleep(250);
  }
  throw new Error(`${names.join(', ')} not UP in HAProxy after ${timeoutMs / 1000} s`);
}

function downs(before: Array<{ name: string; chkdown: number }>, after: Array<{ name: string; chkdown: number }>): string {
  const parts = after.map((a) => `${a.name} ${a.chkdown - (before.find((b) => b.name === a.name)?.chkdown ?? 0)}×`);
  return parts.join(', ');
}

/** Partner reads at a fixed rate from their own process (bench/partner-reader.ts), so the generator's busy loop is not what is measured. */
async function partnerReader(url: string, readPath: string, apiKey: string, rate: number) {
  const reader = fork(path.join(import.meta.dirname, 'partner-reader.ts'), [url, readPath, apiKey, String(rate)], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  await once(reader, 'message');
  return {
    async stop(): Promise<{ latencies: number[]; errors: string[] }> {
      const result = once(reader, 'message') as Promise<[{ latencies: number[]; errors: string[] }]>;
      reader.send('stop');
      return (await result)[0];
    },
  };
}

/**
 * CPU time of the app processes (from /proc, by name: a restarted process adds its own) and of the
 * PostgreSQL backends serving one database (their pids from pg_stat_activity). Sampled each second:
 * a process that exits keeps its last sample, so at most about a second of its CPU is missed.
 */
function createCpuSampler(databaseUrl: string, databaseName: string) {
  const ticks = new Map<number, { name: string; us: number }>();
  let admin: pg.Client | null = null;
  const read = processCpuUs;
  async function sample(): Promise<void> {
    try {
      if (!admin) {
        const c = new pg.Client({ connectionString: Object.assign(new URL(databaseUrl), { pathname: '/postgres' }).toString() });
        c.on('error', () => (admin = null));
        await c.connect();
        admin = c;
      }
      const { rows } = await admin.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = $1', [databaseName]);
      for (const r of rows) if (!ticks.has(r.pid)) ticks.set(r.pid, { name: 'pg', us: 0 });
    } catch {
      admin?.end().catch(() => undefined);
      admin = null; // PostgreSQL restarting: the next sample reconnects
    }
    for (const [pid, t] of ticks) {
      const us = read(pid);
      if (us !== null && us > t.us) t.us = us;
    }
  }
  const totals = () => {
    const byName: Record<string, number> = {};
    for (const t of ticks.values()) byName[t.name] = (byName[t.name] ?? 0) + t.us;
    return byName;
  };
  return {
    watch(name: string, pid: number) {
      ticks.set(pid, { name: name.replace(/\d+$/, ''), us: read(pid) ?? 0 });
    },
    sample,
    async close() {
      await admin?.end().catch(() => undefined);
      admin = null;
    },
    /** CPU used from now until `end()`: app (API + worker), PostgreSQL, and by process kind. */
    window() {
      const t0 = performance.now();
      const startP = sample().then(totals);
      return {
        async end() {
          const s = await startP;
          await sample();
          const e = totals();
          const byName: Record<string, number> = {};
          for (const k of Object.keys(e)) byName[k] = e[k]! - (s[k] ?? 0);
          return { app: (byName.api ?? 0) + (byName.worker ?? 0), pg: byName.pg ?? 0, byName, ms: performance.now() - t0, loadavg: loadavg() };
        },
      };
    },
  };
}
