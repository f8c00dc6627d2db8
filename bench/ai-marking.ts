import { fork } from 'node:child_process';
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { Pool as HttpPool } from 'undici';
import { openBenchDatabase } from './bench-database.js';
import type { AiSeat, AiServerReady } from './ai-marking-server.js';

/**
 * `npm run bench:ai -- [--essays 1000 --delay 500 --concurrency 4 --baseline-seconds 15 --read-rate 50 --submit-rate 2]`
 *
 * AI marking under load. A model server on loopback speaks the Chat
 * Completions API and answers every call after a fixed delay (`--delay` ms)
 * with a confident reply, so every essay is decided by the model. The app
 * and its AI worker run in a child process (as `npm start` runs them).
 *
 * Phase 1, AI idle: partner reads (GET an assignment, `--read-rate`/s) and
 * student submissions (`--submit-rate`/s) for `--baseline-seconds`.
 * Phase 2: the AI worker starts, `--essays` students submit at once, and the
 * same reads and submissions run until every essay is marked. Prints the
 * marking throughput (bounded by concurrency / delay), the most calls the
 * model saw at once (the cap), and read and submission latency without and
 * with marking running (phase 2 split into the submission burst and the
 * marking that follows it). Figures are for the lead's quiet machine; a run on a
 * busy one proves the bench, not the numbers.
 */
const { values: opts } = parseArgs({
  options: {
    essays: { type: 'string', default: '1000' },
    delay: { type: 'string', default: '500' },
    concurrency: { type: 'string', default: '4' },
    'baseline-seconds': { type: 'string', default: '15' },
    'read-rate': { type: 'string', default: '50' },
    'submit-rate': { type: 'string', default: '2' },
  },
});
for (const [k, v] of Object.entries(opts)) if (!/^\d+$/.test(String(v)) || Number(v) < 1) throw new Error(`--${k} must be a whole number ≥ 1`);
const ESSAYS = Number(opts.essays);
const DELAY_MS = Number(opts.delay);
const CONCURRENCY = Number(opts.concurrency);
const BASELINE_S = Number(opts['baseline-seconds']);
const READ_RATE = Number(opts['read-rate']);
const SUBMIT_RATE = Number(opts['submit-rate']);
const boundPerSecond = (CONCURRENCY * 1000) / DELAY_MS;
const expectedMarkingS = ESSAYS / boundPerSecond;
const probes = Math.ceil((BASELINE_S + expectedMarkingS * 1.5 + 30) * SUBMIT_RATE);

const model = await startModelServer(DELAY_MS);
const db = await openBenchDatabase('assay_bench_ai');
const child = fork(path.join(import.meta.dirname, 'ai-marking-server.ts'), [db.url, model.baseUrl, String(ESSAYS + probes), String(CONCURRENCY)], {
  execArgv: ['--import', 'tsx'],
  stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
});
async function cleanup() {
  child.kill('SIGTERM');
  await once(child, 'exit').catch(() => undefined);
  await db.close();
  model.close();
}

try {
  process.stdout.write(`Seeding ${ESSAYS} essay students and ${probes} probe students…\n`);
  const [ready] = (await Promise.race([
    once(child, 'message'),
    once(child, 'exit').then(() => {
      throw new Error('the bench server exited before it was ready');
    }),
  ])) as [AiServerReady];
  const bulk = ready.seats.slice(0, ESSAYS);
  const probeSeats = ready.seats.slice(ESSAYS);
  const client = new HttpPool(ready.url, { connections: 64, pipelining: 1 });
  const errors: string[] = [];

  const submit = async (seat: AiSeat): Promise<number> => {
    const t0 = performance.now();
    const res = await client.request({
      method: 'POST',
      path: `/a/${seat.assignmentId}/submit`,
      headers: { cookie: seat.cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: `csrf=${seat.csrf}`,
    });
    await res.body.dump();
    if (res.statusCode !== 303) errors.push(`submit HTTP ${res.statusCode}`);
    return performance.now() - t0;
  };
  const read = async (): Promise<number> => {
    const seat = ready.seats[Math.floor(Math.random() * ready.seats.length)]!;
    const t0 = performance.now();
    const res = await client.request({ method: 'GET', path: `/api/partner/v1/assignments/${seat.assignmentId}`, headers: { authorization: `Bearer ${ready.apiKey}` } });
    await res.body.dump();
    if (res.statusCode !== 200) errors.push(`read HTTP ${res.statusCode}`);
    return performance.now() - t0;
  };

  /** Open-loop load at fixed rates until `done()`: reads and probe submissions, each latency recorded. */
  async function measure(done: () => boolean | Promise<boolean>) {
    const reads: Sample[] = [];
    const submits: Sample[] = [];
    const pending = new Set<Promise<unknown>>();
    const track = (p: Promise<number>, into: Sample[]) => {
      const at = performance.now();
      const q = p.then((ms) => into.push({ at, ms })).catch((err) => errors.push((err as Error).message));
      pending.add(q);
      void q.finally(() => pending.delete(q));
    };
    const readTimer = setInterval(() => track(read(), reads), 1000 / READ_RATE);
    const submitTimer = setInterval(() => {
      const seat = probeSeats.shift();
      if (seat) track(submit(seat), submits);
    }, 1000 / SUBMIT_RATE);
    while (!(await done())) await sleep(250);
    clearInterval(readTimer);
    clearInterval(submitTimer);
    await Promise.all([...pending]);
    return { reads, submits };
  }

  process.stdout.write(`Phase 1: AI marking idle, ${BASELINE_S} s of reads (${READ_RATE}/s) and submissions (${SUBMIT_RATE}/s)…\n`);
  const phase1End = performance.now() + BASELINE_S * 1000;
  const idle = await measure(() => performance.now() >= phase1End);

  child.send('start-ai');
  await once(child, 'message');
  process.stdout.write(`Phase 2: ${ESSAYS} essays submitted at once; marking with ${CONCURRENCY} calls at a time, ${DELAY_MS} ms each…\n`);
  const watcher = new pg.Client({ connectionString: db.url });
  await watcher.connect();
  const bulkIds = bulk.map((s) => s.assignmentId);
  const markedAt = Date.now();
  model.resetStats();
  const bulkSubmits: number[] = [];
  let burstEnd = Infinity;
  const bulkDone = (async () => {
    const queue = [...bulk];
    await Promise.all(
      Array.from({ length: 32 }, async () => {
        for (let s = queue.shift(); s; s = queue.shift()) bulkSubmits.push(await submit(s));
      }),
    );
    burstEnd = performance.now();
  })();
  let completed = 0;
  let lastCompletion: Date | null = null;
  const deadline = performance.now() + (expectedMarkingS * 3 + 120) * 1000;
  const busy = await measure(async () => {
    const { rows } = await watcher.query<{ n: number; last: Date | null }>(
      "SELECT count(*)::int AS n, max(completed_at) AS last FROM assignments WHERE id = ANY($1) AND status = 'completed'",
      [bulkIds],
    );
    completed = rows[0]!.n;
    lastCompletion = rows[0]!.last;
    return completed >= ESSAYS || performance.now() > deadline;
  });
  await bulkDone;
  const suggestions = await watcher.query<{ status: string; n: number }>('SELECT status, count(*)::int AS n FROM ai_suggestions GROUP BY status ORDER BY status');
  await watcher.end();
  await client.close();

  const markingS = lastCompletion ? ((lastCompletion as Date).getTime() - markedAt) / 1000 : NaN;
  // Phase 2 split: while the essays are being submitted (a burst of submissions), then while only marking runs.
  const during = (xs: Sample[]) => xs.filter((x) => x.at < burstEnd).map((x) => x.ms);
  const after = (xs: Sample[]) => xs.filter((x) => x.at >= burstEnd).map((x) => x.ms);
  const fmt = (xs: Array<number | Sample>) => {
    const s = xs.map((x) => (typeof x === 'number' ? x : x.ms)).sort((a, b) => a - b);
    const p = (q: number) => s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? NaN;
    return `p50 ${p(0.5).toFixed(1)} ms, p99 ${p(0.99).toFixed(1)} ms, max ${(s.at(-1) ?? NaN).toFixed(1)} ms (n=${s.length})`;
  };
  const rows = [
    ['PostgreSQL', `${db.version} (${db.embedded ? 'embedded, temp dir' : 'DATABASE_URL server'})`],
    ['essays marked', `${completed} of ${ESSAYS} completed by the model (decide mode)`],
    ['marking time', `${markingS.toFixed(1)} s from the first submission to the last completion`],
    ['marking throughput', `${(completed / markingS).toFixed(2)} essays/s (bound: ${CONCURRENCY} calls × 1000/${DELAY_MS} ms = ${boundPerSecond.toFixed(2)}/s)`],
    ['model calls', `${model.calls} answered in phase 2, at most ${model.maxInFlight} at once (cap ${CONCURRENCY})`],
    ['suggestions', suggestions.rows.map((r) => `${r.status} ${r.n}`).join(', ')],
    ['bulk submissions', fmt(bulkSubmits)],
    ['partner reads, AI idle', fmt(idle.reads)],
    ['partner reads, burst', fmt(during(busy.reads))],
    ['partner reads, marking', fmt(after(busy.reads))],
    ['submissions, AI idle', fmt(idle.submits)],
    ['submissions, burst', fmt(during(busy.submits))],
    ['submissions, marking', fmt(after(busy.submits))],
    ['machine load average', os.loadavg().map((l) => l.toFixed(1)).join(' ') + ` on ${os.cpus().length} CPUs`],
    ['errors', errors.length ? `${errors.length} (${[...new Set(errors)].slice(0, 5).join('; ')})` : '0'],
  ];
  process.stdout.write(`\nAI marking load\n${rows.map(([k, v]) => `  ${k!.padEnd(24)} ${v}`).join('\n')}\n`);
  process.exitCode = completed === ESSAYS && errors.length === 0 && model.maxInFlight <= CONCURRENCY ? 0 : 1;
} finally {
  await cleanup();
}

/** The stand-in model: Chat Completions on loopback, a confident reply after a fixed delay. */
async function startModelServer(delayMs: number) {
  let inFlight = 0;
  const stats = { calls: 0, maxInFlight: 0 };
  const reply = JSON.stringify({
    criteria: [
      { criterion: 'Process', points: 5, rationale: 'Explains light capture and carbon fixation.' },
      { criterion: 'Products', points: 4, rationale: 'Names glucose and oxygen.' },
    ],
    points: 9,
    confidence: 0.9,
    flags: [],
  });
  const server = http.createServer((req, res) => {
    inFlight++;
    stats.maxInFlight = Math.max(stats.maxInFlight, inFlight);
    req.resume();
    setTimeout(() => {
      inFlight--;
      stats.calls++;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          id: `chatcmpl-bench-${stats.calls}`,
          object: 'chat.completion',
          choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: reply } }],
          usage: { prompt_tokens: 500, completion_tokens: 80 },
        }),
      );
    }, delayMs);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    get calls() {
      return stats.calls;
    },
    get maxInFlight() {
      return stats.maxInFlight;
    },
    resetStats() {
      stats.calls = 0;
      stats.maxInFlight = inFlight;
    },
    close: () => server.close(),
  };
}

interface Sample {
  at: number;
  ms: number;
}

function sleep(ms: number) {
  return new Promise((r) => setTimeout(r, ms));
}
