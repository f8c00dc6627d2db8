import { fork } from 'node:child_process';
import { NODE_FLAGS } from '../bin/node-flags.js';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { Pool as HttpPool } from 'undici';
import { openBenchDatabase } from './bench-database.js';
import type { UploadServerReady, UploadSeat } from './upload-server.js';
import { uploadPhaseReport, type Read, type Round } from './upload-phases.js';
import { directUpload, startBucket } from './upload-direct.js';
import type { UploadTrace } from './upload-trace.js';

/**
 * `npm run bench:uploads -- [--students 50 --mb 20 --rounds 3 --reads 50 --baseline 15] [--s3] [--trace-file F] [--profile DIR]`
 *
 * File answers under load at HTTP level: `students` students each upload a
 * `mb` MB PDF to a file_upload question at the same moment, `rounds` times
 * (each round replaces the previous file, so the old one is deleted too).
 * Meanwhile a partner reads `GET /api/partner/v1/assignments/{id}` (the partner API's
 * read, from a process of its own) at `reads` per second; the same reads run
 * first for `baseline` seconds with no upload, and the read's p50/p99 without
 * and with the uploads are compared (target: p99 under load ≤ 1.5 × p99
 * unloaded, measured in the same run). Checks that every accepted upload is
 * the student's answer with its file on disk at its size.
 *
 * Then where the slow reads fell (bench/upload-phases.ts): each round cut
 * into its start, middle and end from the uploads' own phase marks, with the
 * event loop's delay and the pool's waits in each (bench/upload-trace.ts).
 * `--trace-file F` writes the raw trace as JSON; `--profile DIR` runs the
 * server under `--cpu-prof` (the trace's `clock` lines the profile up).
 *
 * `--s3`: storage is an S3 bucket (s3rver, in a process of its own:
 * bench/bucket-process.ts) and each student uploads as the page does then,
 * directly: presign through the service, PUT the file to the bucket, record
 * through the service, which reads the object's two ends only
 * (docs/file-uploads.md, "Direct uploads to S3").
 */
const { values: opts } = parseArgs({
  options: {
    students: { type: 'string', default: '50' },
    mb: { type: 'string', default: '20' },
    rounds: { type: 'string', default: '3' },
    reads: { type: 'string', default: '50' },
    baseline: { type: 'string', default: '15' },
    s3: { type: 'boolean', default: false },
    'trace-file': { type: 'string' },
    profile: { type: 'string' },
  },
});
for (const k of ['students', 'mb', 'rounds', 'reads', 'baseline'] as const) if (!/^\d+$/.test(opts[k])) throw new Error(`--${k} must be a whole number`);
const STUDENTS = Number(opts.students);
const BYTES = Number(opts.mb) * 1024 * 1024;
const ROUNDS = Number(opts.rounds);
const READS_PER_S = Number(opts.reads);
const BASELINE_MS = Number(opts.baseline) * 1000;
/** The reader's first seconds, not counted (its start-up). */
const WARM_UP_MS = 3000;
if (STUDENTS < 1 || BYTES < 1 || BYTES > 20 * 1024 * 1024 || ROUNDS < 1 || READS_PER_S < 1) throw new Error('students, rounds and reads ≥ 1; mb 1 to 20');

/** One PDF-looking body (the magic bytes, then random bytes), shared by every upload: the generator spends no CPU per upload. */
const body = randomBytes(BYTES);
Buffer.from('%PDF-1.7\n').copy(body);

const db = await openBenchDatabase('assay_bench_uploads');
const bucket = opts.s3 ? await startBucket() : null;
const child = fork(path.join(import.meta.dirname, 'upload-server.ts'), [db.url, String(STUDENTS), ...(bucket ? [JSON.stringify(bucket.config)] : [])], {
  execArgv: [...NODE_FLAGS, '--import', 'tsx', ...(opts.profile ? ['--cpu-prof', `--cpu-prof-dir=${opts.profile}`, '--cpu-prof-interval=250'] : [])],
  stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
});
async function cleanup() {
  child.kill('SIGTERM');
  await once(child, 'exit').catch(() => undefined);
  await bucket?.stop();
  await db.close();
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const pick = (xs: number[], p: number) => xs[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))] ?? NaN;
const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);

try {
  process.stdout.write(`Seeding ${STUDENTS} students (assignment, start link, Begin)…\n`);
  const [ready] = (await Promise.race([
    once(child, 'message'),
    once(child, 'exit').then(() => {
      throw new Error('the bench server exited before it was ready');
    }),
  ])) as [UploadServerReady];
  // One connection per student: every upload really is in flight at once.
  const http = new HttpPool(ready.url, { connections: STUDENTS, pipelining: 1 });
  /**
   * Each student has the test page open before uploading, as in the field: the browser's connection to the service
   * is open from loading the page (and its autosaves keep it so). Without this, the first round alone also opened
   * fifty connections and ran the client's upload code cold, on the same two cores as the server.
   */
  await Promise.all(
    ready.seats.map(async (seat) => {
      const res = await http.request({ method: 'GET', path: `/a/${seat.assignmentId}`, headers: { cookie: seat.cookie } });
      await res.body.dump();
      if (res.statusCode !== 200) throw new Error(`the test page answered ${res.statusCode}`);
    }),
  );
  const readTarget = ready.seats[0]!.assignmentId;
  const errors = new Map<string, number>();
  const countError = (what: string) => void errors.set(what, (errors.get(what) ?? 0) + 1);

  /**
   * One reader process for the whole run, warmed up before anything is measured: a reader started just before
   * the first round spent that round's start compiling and warming up on the same two cores.
   */
  const reader = fork(path.join(import.meta.dirname, 'partner-reader.ts'), [ready.url, `/api/partner/v1/assignments/${readTarget}`, ready.apiKey, String(READS_PER_S)], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  await once(reader, 'message');
  /** The reads finished since the last call. */
  async function takeReads(message: 'take' | 'stop'): Promise<Read[]> {
    const result = once(reader, 'message') as Promise<[{ latencies: number[]; errors: string[]; starts: number[]; ids: number[] }]>;
    reader.send(message);
    const [{ latencies, errors: readErrors, starts, ids }] = await result;
    for (const e of readErrors) countError(e);
    return latencies.map((latency, i) => ({ latency, start: starts[i]!, id: ids[i]! }));
  }

  /** The server's trace since the last call (bench/upload-trace.ts). */
  const takeTrace = async () => {
    child.send('trace');
    const [m] = (await once(child, 'message')) as [{ trace: UploadTrace }];
    return m.trace;
  };
  process.stdout.write(`Baseline: partner reads at ${READS_PER_S}/s for ${BASELINE_MS / 1000} s (after ${WARM_UP_MS / 1000} s not counted), no uploads…\n`);
  await sleep(WARM_UP_MS);
  await takeReads('take');
  await takeTrace();
  await sleep(BASELINE_MS);
  const baseLatencies = sorted((await takeReads('take')).map((r) => r.latency));
  const baseTrace = await takeTrace();

  const uploadLatencies: number[] = [];
  const answers = new Map<string, string>();
  async function upload(seat: UploadSeat, version: number): Promise<void> {
    const t0 = performance.now();
    try {
      if (bucket) {
        const fileId = await directUpload(http, seat, version, body);
        uploadLatencies.push(performance.now() - t0);
        answers.set(seat.assignmentId, fileId);
        return;
      }
      const res = await http.request({
        method: 'POST',
        path: `/a/${seat.assignmentId}/files/portfolio`,
        headers: {
          cookie: seat.cookie,
          'x-csrf-token': seat.csrf,
          'content-type': 'application/pdf',
          'x-file-name': encodeURIComponent(`portfolio-${version}.pdf`),
          'x-answer-version': String(version),
        },
        body,
      });
      const text = await res.body.text();
      uploadLatencies.push(performance.now() - t0);
      if (res.statusCode === 200 && JSON.parse(text).saved) answers.set(seat.assignmentId, JSON.parse(text).fileId);
      else countError(`upload HTTP ${res.statusCode} ${text.slice(0, 80)}`);
    } catch (err) {
      uploadLatencies.push(performance.now() - t0);
      countError(`upload ${(err as Error).message}`);
    }
  }

  process.stdout.write(`Load: ${STUDENTS} students upload ${BYTES / 1024 / 1024} MB each at once, ${ROUNDS} rounds, partner reads at ${READS_PER_S}/s…\n`);
  const cpu = async () => {
    child.send('cpu');
    const [m] = (await once(child, 'message')) as [{ cpu: NodeJS.CpuUsage; mainThread: number | null }];
    return { all: m.cpu.user + m.cpu.system, main: m.mainThread };
  };
  const cpuBefore = await cpu();
  const started = performance.now();
  const epoch = () => performance.timeOrigin + performance.now();
  const rounds: Round[] = [];
  for (let round = 1; round <= ROUNDS; round++) {
    const from = epoch();
    await Promise.all(ready.seats.map((seat) => upload(seat, round)));
    rounds.push({ from, to: epoch() });
  }
  const elapsed = (performance.now() - started) / 1000;
  const loadedReads = await takeReads('stop');
  const loadTrace = await takeTrace();
  const loadedLatencies = sorted(loadedReads.map((r) => r.latency));
  if (opts['trace-file']) fs.writeFileSync(opts['trace-file'], JSON.stringify({ loadTrace, baseTrace, loadedReads, rounds }));
  const cpuAfter = await cpu();
  const cpuUsed = cpuAfter.all - cpuBefore.all;
  const mainUsed = cpuAfter.main !== null && cpuBefore.main !== null ? cpuAfter.main - cpuBefore.main : null;
  await http.close();

  // Every student's answer names their last file, whose row and object exist at full size; replaced files are gone.
  const c = new pg.Client({ connectionString: db.url });
  await c.connect();
  const { rows } = await c.query<{ assignment_id: string; id: string; storage_key: string; bytes: string; answer: string | null }>(
    `SELECT f.assignment_id, f.id, f.storage_key, f.bytes, a.value ->> 'fileId' AS answer
       FROM answer_files f LEFT JOIN answers a ON a.assignment_id = f.assignment_id AND a.question_id = f.question_id`,
  );
  await c.end();
  const storedSize = async (key: string): Promise<number | null> => {
    if (bucket) return (await bucket.store.head(key))?.size ?? null;
    const file = path.join(ready.dataDir, 'storage', ...key.split('/'));
    return fs.existsSync(file) ? fs.statSync(file).size : null;
  };
  let wrong = 0;
  for (const [assignmentId, fileId] of answers) {
    const r = rows.find((x) => x.assignment_id === assignmentId);
    if (!r || r.id !== fileId || r.answer !== fileId || (await storedSize(r.storage_key)) !== Number(r.bytes) || Number(r.bytes) !== BYTES) wrong++;
  }
  const leftovers = rows.length - answers.size;
  const objectsLeft = bucket ? (await bucket.store.list('answers/')).length - answers.size : 0;

  const up = sorted(uploadLatencies);
  const p99Base = pick(baseLatencies, 99);
  const p99Load = pick(loadedLatencies, 99);
  const ratio = p99Load / p99Base;
  const errorCount = [...errors.values()].reduce((s, n) => s + n, 0);
  const total = STUDENTS * ROUNDS * BYTES;
  const out = [
    ['PostgreSQL', `${db.version} (${db.embedded ? 'embedded, temp dir' : 'DATABASE_URL server'}), app pool 10 connections`],
    [
      'storage',
      bucket
        ? `S3 (s3rver, its own process): direct uploads; the bucket received ${((await bucket.bytes()) / 1e9).toFixed(2)} GB, the service only the presign and record calls`
        : 'local files (the default), temp ASSAY_DATA_DIR',
    ],
    ['uploads', `${STUDENTS} students × ${ROUNDS} rounds of ${BYTES / 1024 / 1024} MB at once: ${(total / 1e9).toFixed(2)} GB in ${elapsed.toFixed(1)} s (${(total / 1e6 / elapsed).toFixed(0)} MB/s)`],
    ['upload p50 / p99', `${(pick(up, 50) / 1000).toFixed(2)} s / ${(pick(up, 99) / 1000).toFixed(2)} s`],
    [
      'app CPU',
      `${((cpuUsed / 1e6 / elapsed) * 100).toFixed(0)}% of one core during the uploads` +
        (mainUsed === null ? '' : `; the event loop's thread ${(mainUsed / 1e6).toFixed(1)} s (${((mainUsed / 1e6 / elapsed) * 100).toFixed(0)}%), ${(mainUsed / 1e3 / (total / 1e9)).toFixed(0)} ms per GB`),
    ],
    ['partner read, no load', `p50 ${pick(baseLatencies, 50).toFixed(1)} ms, p99 ${p99Base.toFixed(1)} ms  (${baseLatencies.length} reads)`],
    ['partner read, during uploads', `p50 ${pick(loadedLatencies, 50).toFixed(1)} ms, p99 ${p99Load.toFixed(1)} ms  (${loadedLatencies.length} reads)`],
    ['ratio (p99 loaded / no load)', `${ratio.toFixed(2)}   (target ≤ 1.5: ${ratio <= 1.5 ? 'met' : 'NOT met'})`],
    ['machine load average', os.loadavg().map((l) => l.toFixed(1)).join(' ') + ` on ${os.cpus().length} CPUs`],
    ['errors', `${errorCount}${errorCount ? ` (${[...errors].map(([k, n]) => `${k}: ${n}`).join(', ')})` : ''}`],
    [
      'answers checked',
      `${answers.size - wrong} of ${answers.size} name their last file, stored at full size; ${leftovers} files left over (replaced files must be gone)` +
        (bucket ? `; ${objectsLeft} objects left over in the bucket` : ''),
    ],
  ];
  process.stdout.write(`\nFile uploads under load\n${out.map(([k, v]) => `  ${k!.padEnd(30)} ${v}`).join('\n')}\n`);
  process.stdout.write(`\n${uploadPhaseReport(loadTrace, baseTrace, loadedReads, rounds, 1.5 * p99Base)}\n`);
  process.exitCode = wrong === 0 && leftovers === 0 && objectsLeft === 0 && errorCount === 0 && ratio <= 1.5 ? 0 : 1;
} finally {
  await cleanup();
}
