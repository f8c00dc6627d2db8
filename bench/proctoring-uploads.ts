import { fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { Pool as HttpPool } from 'undici';
import { openBenchDatabase } from './bench-database.js';
import type { ProctoringServerReady, RecorderSeat } from './proctoring-server.js';

/**
 * `npm run bench:proctoring -- [--students 200 --interval 10 --duration 120 --heartbeat 5 --reads 50 --baseline 15]`
 *
 * A hall of recorded (proctoring: record) students at HTTP level: each
 * uploads a real-sized WebM segment (60–120 KB) every `interval` seconds,
 * and a heartbeat every `heartbeat` seconds (0: none), for `duration`
 * seconds, first uploads spread over the first interval. Files go to the
 * default local storage. Meanwhile a partner reads `GET /assignments/{id}`
 * (a proctored assignment, so the read includes the proctoring summary) at
 * `reads` per second; the same reads run first for `baseline` seconds with no
 * upload load, and the p99 of both is compared (target: without / with ≥ 0.7,
 * the uploads must not starve the partner API). The reads come from a process
 * of their own, so the generator's busy event loop is not what is measured.
 * Prints segment accept latency p50/p99, bytes/s, and lost segments: every
 * segment the server accepted must have exactly one row and its file on disk
 * (target 0 lost).
 */
const { values: opts } = parseArgs({
  options: {
    students: { type: 'string', default: '200' },
    interval: { type: 'string', default: '10' },
    duration: { type: 'string', default: '120' },
    heartbeat: { type: 'string', default: '5' },
    reads: { type: 'string', default: '50' },
    baseline: { type: 'string', default: '15' },
    connections: { type: 'string', default: '256' },
  },
});
for (const [k, v] of Object.entries(opts)) if (!/^\d+$/.test(String(v))) throw new Error(`--${k} must be a whole number`);
const STUDENTS = Number(opts.students);
const INTERVAL_MS = Number(opts.interval) * 1000;
const DURATION_MS = Number(opts.duration) * 1000;
const HEARTBEAT_MS = Number(opts.heartbeat) * 1000;
const READS_PER_S = Number(opts.reads);
const BASELINE_MS = Number(opts.baseline) * 1000;
if (STUDENTS < 1 || INTERVAL_MS < 1000 || DURATION_MS < 1000 || READS_PER_S < 1) throw new Error('students, interval, duration and reads must be ≥ 1');

/** Twenty distinct segment bodies of 60–120 KB (EBML magic first, then a Tracks id), reused round-robin: the generator spends no CPU per upload. */
const bodies = Array.from({ length: 20 }, (_, i) => {
  const b = randomBytes(60_000 + Math.floor((i / 19) * 60_000));
  Buffer.from([0x1a, 0x45, 0xdf, 0xa3]).copy(b);
  Buffer.from([0x16, 0x54, 0xae, 0x6b]).copy(b, 8);
  return b;
});

const db = await openBenchDatabase('assay_bench_proctoring');
const child = fork(path.join(import.meta.dirname, 'proctoring-server.ts'), [db.url, String(STUDENTS)], {
  execArgv: ['--import', 'tsx'],
  stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
});
async function cleanup() {
  child.kill('SIGTERM');
  await once(child, 'exit').catch(() => undefined);
  await db.close();
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const pick = (xs: number[], p: number) => xs[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))] ?? NaN;
const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);

try {
  process.stdout.write(`Seeding ${STUDENTS} recorded students (assignment, start link, Begin)…\n`);
  const [ready] = (await Promise.race([
    once(child, 'message'),
    once(child, 'exit').then(() => {
      throw new Error('the bench server exited before it was ready');
    }),
  ])) as [ProctoringServerReady];
  const http = new HttpPool(ready.url, { connections: Number(opts.connections), pipelining: 1 });
  const readTarget = ready.seats[0]!.assignmentId;
  const errors = new Map<string, number>();
  const countError = (what: string) => void errors.set(what, (errors.get(what) ?? 0) + 1);

  /** Partner reads at a fixed rate (open loop) from their own process (bench/partner-reader.ts) until `stop()`. */
  async function partnerReads() {
    const reader = fork(path.join(import.meta.dirname, 'partner-reader.ts'), [ready.url, `/api/partner/v1/assignments/${readTarget}`, ready.apiKey, String(READS_PER_S)], {
      execArgv: ['--import', 'tsx'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    await once(reader, 'message');
    return {
      async stop(): Promise<number[]> {
        const result = once(reader, 'message') as Promise<[{ latencies: number[]; errors: string[] }]>;
        reader.send('stop');
        const [{ latencies, errors: readErrors }] = await result;
        for (const e of readErrors) countError(e);
        return latencies;
      },
    };
  }

  process.stdout.write(`Baseline: partner reads at ${READS_PER_S}/s for ${BASELINE_MS / 1000} s, no uploads…\n`);
  const base = await partnerReads();
  await sleep(BASELINE_MS);
  const baseLatencies = sorted(await base.stop());

  const uploadLatencies: number[] = [];
  const accepted = new Map<string, Set<number>>();
  let acceptedBytes = 0;
  let duplicates = 0;
  let heartbeats = 0;

  async function upload(seat: RecorderSeat, seq: number): Promise<void> {
    const body = bodies[(seq + seat.assignmentId.charCodeAt(5)) % bodies.length]!;
    const t0 = performance.now();
    try {
      const res = await http.request({
        method: 'POST',
        path: `/a/${seat.assignmentId}/proctoring/segments/${seq}`,
        headers: {
          cookie: seat.cookie,
          'x-csrf-token': seat.csrf,
          'content-type': 'video/webm;codecs=vp8',
          'x-segment-started-at': new Date(Date.now() - INTERVAL_MS).toISOString(),
          'x-segment-duration-ms': String(INTERVAL_MS),
        },
        body,
      });
      const text = await res.body.text();
      uploadLatencies.push(performance.now() - t0);
      if (res.statusCode === 201) {
        accepted.get(seat.assignmentId)!.add(seq);
        acceptedBytes += body.length;
      } else if (res.statusCode === 200) duplicates++;
      else countError(`segment HTTP ${res.statusCode} ${text.slice(0, 80)}`);
    } catch (err) {
      uploadLatencies.push(performance.now() - t0);
      countError(`segment ${(err as Error).message}`);
    }
  }

  async function heartbeat(seat: RecorderSeat): Promise<void> {
    try {
      const res = await http.request({
        method: 'POST',
        path: `/a/${seat.assignmentId}/proctoring/heartbeat`,
        headers: { cookie: seat.cookie, 'x-csrf-token': seat.csrf, 'content-type': 'application/json' },
        body: '{"signals":[],"cameraActive":true,"fullscreen":true}',
      });
      await res.body.text();
      if (res.statusCode !== 200) countError(`heartbeat HTTP ${res.statusCode}`);
      else heartbeats++;
    } catch (err) {
      countError(`heartbeat ${(err as Error).message}`);
    }
  }

  process.stdout.write(
    `Load: ${STUDENTS} students, a segment every ${INTERVAL_MS / 1000} s${HEARTBEAT_MS ? ` and a heartbeat every ${HEARTBEAT_MS / 1000} s` : ''} each, for ${DURATION_MS / 1000} s, partner reads at ${READS_PER_S}/s…\n`,
  );
  const cpu = async () => {
    child.send('cpu');
    const [m] = (await once(child, 'message')) as [{ cpu: NodeJS.CpuUsage }];
    return m.cpu.user + m.cpu.system;
  };
  const cpuBefore = await cpu();
  const loaded = await partnerReads();
  const started = performance.now();
  const inFlight = new Set<Promise<void>>();
  const track = (p: Promise<void>) => {
    inFlight.add(p);
    void p.finally(() => inFlight.delete(p));
  };
  await Promise.all(
    ready.seats.map(async (seat) => {
      accepted.set(seat.assignmentId, new Set());
      await sleep(Math.random() * INTERVAL_MS);
      let seq = 0;
      let nextBeat = performance.now();
      let nextSegment = performance.now();
      while (performance.now() - started < DURATION_MS) {
        const now = performance.now();
        if (now >= nextSegment) {
          track(upload(seat, seq++));
          nextSegment += INTERVAL_MS;
        }
        if (HEARTBEAT_MS && now >= nextBeat) {
          track(heartbeat(seat));
          nextBeat += HEARTBEAT_MS;
        }
        await sleep(Math.max(1, Math.min(nextSegment, HEARTBEAT_MS ? nextBeat : Infinity) - performance.now()));
      }
    }),
  );
  await Promise.all([...inFlight]);
  const elapsed = (performance.now() - started) / 1000;
  const loadedLatencies = sorted(await loaded.stop());
  const cpuUsed = (await cpu()) - cpuBefore;
  await http.close();

  // Lost: an accepted segment without exactly one row, or whose row's file is not on disk with its size.
  const c = new pg.Client({ connectionString: db.url });
  await c.connect();
  const { rows } = await c.query<{ assignment_id: string; seq: number; storage_key: string; size_bytes: number }>(
    'SELECT assignment_id, seq, storage_key, size_bytes FROM recording_segments',
  );
  await c.end();
  const stored = new Map(rows.map((r) => [`${r.assignment_id}:${r.seq}`, r]));
  let lost = 0;
  let acceptedCount = 0;
  for (const [assignmentId, seqs] of accepted) {
    for (const seq of seqs) {
      acceptedCount++;
      const r = stored.get(`${assignmentId}:${seq}`);
      const file = r ? path.join(ready.dataDir, 'storage', ...r.storage_key.split('/')) : null;
      if (!r || !file || !fs.existsSync(file) || fs.statSync(file).size !== r.size_bytes) lost++;
    }
  }
  const extraRows = rows.length - acceptedCount;

  const up = sorted(uploadLatencies);
  const p99Base = pick(baseLatencies, 99);
  const p99Load = pick(loadedLatencies, 99);
  const ratio = p99Base / p99Load;
  const errorCount = [...errors.values()].reduce((s, n) => s + n, 0);
  const out = [
    ['PostgreSQL', `${db.version} (${db.embedded ? 'embedded, temp dir' : 'DATABASE_URL server'}), app pool 10 connections`],
    ['storage', 'local files (the default), temp ASSAY_DATA_DIR'],
    ['students', `${STUDENTS}, a ${bodies[0]!.length / 1000}–${bodies[bodies.length - 1]!.length / 1000} KB segment every ${INTERVAL_MS / 1000} s${HEARTBEAT_MS ? `, a heartbeat every ${HEARTBEAT_MS / 1000} s` : ''}`],
    ['segments accepted', `${acceptedCount} in ${elapsed.toFixed(1)} s (${(acceptedCount / elapsed).toFixed(1)}/s), ${duplicates} answered as duplicates`],
    ['bytes stored', `${(acceptedBytes / 1e6).toFixed(1)} MB, ${(acceptedBytes / 1e6 / elapsed).toFixed(2)} MB/s`],
    ['segment accept p50', `${pick(up, 50).toFixed(1)} ms`],
    ['segment accept p99', `${pick(up, 99).toFixed(1)} ms   (max ${up[up.length - 1]?.toFixed(1)} ms)`],
    ['heartbeats', `${heartbeats}`],
    ['app CPU', `${((cpuUsed / 1e6 / elapsed) * 100).toFixed(0)}% of one core during the load`],
    ['partner read p99, no load', `${p99Base.toFixed(1)} ms  (p50 ${pick(baseLatencies, 50).toFixed(1)} ms, ${baseLatencies.length} reads)`],
    ['partner read p99, under load', `${p99Load.toFixed(1)} ms  (p50 ${pick(loadedLatencies, 50).toFixed(1)} ms, ${loadedLatencies.length} reads)`],
    ['ratio (p99 no load / loaded)', `${ratio.toFixed(2)}   (target ≥ 0.7: ${ratio >= 0.7 ? 'met' : 'NOT met'})`],
    ['machine load average', os.loadavg().map((l) => l.toFixed(1)).join(' ') + ` on ${os.cpus().length} CPUs`],
    ['errors', `${errorCount}${errorCount ? ` (${[...errors].map(([k, n]) => `${k}: ${n}`).join(', ')})` : ''}`],
    ['accepted segments lost', `${lost} of ${acceptedCount} (row and file checked)${extraRows ? `; ${extraRows} rows not acknowledged` : ''}   (target 0: ${lost === 0 ? 'met' : 'NOT met'})`],
  ];
  process.stdout.write(`\nProctoring uploads under load\n${out.map(([k, v]) => `  ${k!.padEnd(30)} ${v}`).join('\n')}\n`);
  process.exitCode = lost === 0 && errorCount === 0 && ratio >= 0.7 ? 0 : 1;
} finally {
  await cleanup();
}
