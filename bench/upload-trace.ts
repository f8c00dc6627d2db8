import { AsyncLocalStorage } from 'node:async_hooks';
import diagnostics from 'node:diagnostics_channel';
import fs from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { PerformanceObserver } from 'node:perf_hooks';
import type pg from 'pg';
import { uploadPhases } from '../src/modules/attempts/store-answer-file.js';

/**
 * What the upload bench's server records so bench/upload-phases.ts can say in
 * which phase of a round the slow partner reads fall, and why: each upload's
 * phases (from Node's and Fastify's diagnostics channels and the service's
 * own, `assay.answer-file.phase`), the event loop's delay sampled every 5 ms,
 * every wait for a pool connection (who waited: an upload's or a read's
 * handler, or a hook before any handler), and each partner read as the server
 * saw it, the loop thread's time on and waiting for a CPU, and its garbage
 * collections. Times are epoch milliseconds, comparable with the reader
 * process's.
 */
export interface UploadTrace {
  /** [assignmentId, phase, at] */
  phases: Array<[string, string, number]>;
  /** [at, delay ms]: how late a 5 ms timer fired. */
  loop: Array<[number, number]>;
  /** [at (connection asked), wait ms, who, requests already waiting] */
  pool: Array<[number, number, string, number]>;
  /** [arrived, answered, the reader's number for it (X-Bench-Read)]: the partner reads as the server saw them. */
  reads: Array<[number, number, number]>;
  /** [monotonic µs, epoch ms] at the same moment: lines a CPU profile (--cpu-prof) up with the rest. */
  clock: [number, number];
  /**
   * [at, ms on a CPU, ms waiting for one] of the event loop's thread, cumulative, every 50 ms (Linux's
   * /proc/self/task/<pid>/schedstat; empty elsewhere): a loop delay with the thread runnable but not
   * running is the machine's other work, not this process's.
   */
  sched: Array<[number, number, number]>;
  /** [at (start), ms]: each garbage collection's pause of the loop's thread. */
  gc: Array<[number, number]>;
}

const now = () => performance.timeOrigin + performance.now();
const UPLOAD = /^\/a\/([^/]+)\/files\/[^/]+$/;
const READ = /^\/api\/partner\/v1\/assignments\//;
/** A direct upload (`--s3`) in the same phases: its presign is its start (arrive → checked), its record its end (received → finish). */
const PRESIGN = /^\/a\/([^/]+)\/files\/[^/]+\/uploads$/;
const RECORD = /^\/a\/([^/]+)\/files\/uploads\/record$/;
const marks = (url: string): [string, string, string] | null => {
  let m = UPLOAD.exec(url);
  if (m) return [m[1]!, 'arrive', 'finish'];
  if ((m = PRESIGN.exec(url))) return [m[1]!, 'arrive', 'checked'];
  if ((m = RECORD.exec(url))) return [m[1]!, 'received', 'finish'];
  return null;
};

export function traceUploads(pool: pg.Pool): { take(): UploadTrace } {
  const trace: UploadTrace = { phases: [], loop: [], pool: [], reads: [], clock: [0, 0], sched: [], gc: [] };
  const arrived = new WeakMap<IncomingMessage, [number, number]>();

  diagnostics.subscribe('http.server.request.start', (m) => {
    const { request } = m as { request: IncomingMessage };
    const url = request.url ?? '';
    const upload = marks(url);
    if (upload) trace.phases.push([upload[0], upload[1], now()]);
    else if (READ.test(url)) arrived.set(request, [now(), Number(request.headers['x-bench-read'] ?? -1)]);
  });
  diagnostics.subscribe('http.server.response.finish', (m) => {
    const { request } = m as { request: IncomingMessage };
    const upload = marks(request.url ?? '');
    if (upload) trace.phases.push([upload[0], upload[2], now()]);
    const read = arrived.get(request);
    if (read !== undefined) trace.reads.push([read[0], now(), read[1]]);
  });
  uploadPhases.subscribe((m) => {
    const { assignmentId, phase, at } = m as { assignmentId: string; phase: string; at: number };
    trace.phases.push([assignmentId, phase, at]);
  });

  // Who is asking for a connection: the handler's route, carried through its awaits.
  const who = new AsyncLocalStorage<string>();
  const handler = diagnostics.tracingChannel('fastify.request.handler');
  handler.start.bindStore(who, (store) => {
    const url = (store as { request: { url: string } }).request.url;
    return UPLOAD.test(url) ? 'upload' : READ.test(url) ? 'read' : 'other';
  });
  handler.start.subscribe((m) => {
    const url = (m as { request: { url: string } }).request.url;
    const upload = UPLOAD.exec(url);
    if (upload) trace.phases.push([upload[1]!, 'handler', now()]);
  });

  const connect = pool.connect.bind(pool) as (cb?: (err: Error | undefined, client: pg.PoolClient, done: () => void) => void) => Promise<pg.PoolClient> | void;
  (pool as unknown as { connect: typeof connect }).connect = (cb) => {
    const t0 = now();
    const tag = who.getStore() ?? 'hook';
    const waiting = pool.waitingCount;
    const record = () => void trace.pool.push([t0, now() - t0, tag, waiting]);
    if (cb) {
      return connect((err, client, done) => {
        record();
        cb(err, client, done);
      });
    }
    return (connect() as Promise<pg.PoolClient>).then((c) => (record(), c));
  };

  let last = performance.now();
  const tick = () => {
    const t = performance.now();
    trace.loop.push([performance.timeOrigin + t, Math.max(0, t - last - 5)]);
    last = t;
  };
  const timer = setInterval(tick, 5);
  timer.unref();
  const schedstat = `/proc/self/task/${process.pid}/schedstat`;
  const sched = () => {
    try {
      const [onCpu, waiting] = fs.readFileSync(schedstat, 'utf8').split(' ').map(Number);
      trace.sched.push([now(), onCpu! / 1e6, waiting! / 1e6]);
    } catch {
      clearInterval(schedTimer);
    }
  };
  const schedTimer = setInterval(sched, 50);
  schedTimer.unref();
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) trace.gc.push([performance.timeOrigin + e.startTime, e.duration]);
  }).observe({ entryTypes: ['gc'] });

  return {
    take() {
      const taken = { ...trace, clock: [Number(process.hrtime.bigint() / 1000n), now()] as [number, number] };
      trace.phases = [];
      trace.loop = [];
      trace.pool = [];
      trace.reads = [];
      trace.sched = [];
      trace.gc = [];
      return taken;
    },
  };
}
