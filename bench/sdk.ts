import { once } from 'node:events';
import os from 'node:os';
import { parseArgs } from 'node:util';
import { Assay } from '../packages/partner-sdk/src/index.js';
import { openBenchDatabase } from './bench-database.js';
import { startBenchServers } from './start-servers.js';

/**
 * `npm run bench:sdk [-- --duration 5 --rounds 3 --concurrency 10]`
 *
 * The partner SDK's own cost: the same calls (GET /assignments/{id}, GET
 * /tests) made through the SDK and through plain fetch against the same
 * running app (bench/servers.ts in a child process, on DATABASE_URL's server
 * or an embedded PostgreSQL), `concurrency` loops each, alternating SDK and
 * fetch round by round after a warm-up of each. Prints req/s for both (means
 * over the rounds) and the ratio SDK / fetch (the median of the rounds'
 * ratios); the target is 0.9. Also the client process's CPU time per request
 * on each side, the SDK's own cost measured without the server's noise.
 */
const { values: opts } = parseArgs({
  options: {
    duration: { type: 'string', default: '5' },
    rounds: { type: 'string', default: '3' },
    concurrency: { type: 'string', default: '10' },
    warmup: { type: 'string', default: '2' },
  },
});
const DURATION_MS = Number(opts.duration) * 1000;
const ROUNDS = Number(opts.rounds);
const CONCURRENCY = Number(opts.concurrency);
const WARMUP_MS = Number(opts.warmup) * 1000;
const TARGET = 0.9;

const db = await openBenchDatabase('assay_bench_sdk');
const { child, ready } = await startBenchServers(db.url);

const assay = new Assay({ apiKey: ready.apiKey, baseUrl: ready.appUrl });
const headers = { authorization: `Bearer ${ready.apiKey}`, accept: 'application/json' };

/** What a partner would write without the SDK: fetch, check the status, parse the JSON. */
async function plainGet(pathAndQuery: string): Promise<unknown> {
  const res = await fetch(`${ready.appUrl}${pathAndQuery}`, { headers, signal: AbortSignal.timeout(30_000) });
  if (!res.ok) throw new Error(`HTTP ${res.status}: ${await res.text()}`);
  return res.json();
}

interface Case {
  name: string;
  sdk: () => Promise<unknown>;
  fetch: () => Promise<unknown>;
}
const cases: Case[] = [
  {
    name: 'GET /assignments/{id}',
    sdk: () => assay.assignments.get(ready.assignmentId),
    fetch: () => plainGet(`/api/partner/v1/assignments/${ready.assignmentId}`),
  },
  { name: 'GET /tests', sdk: () => assay.tests.list(), fetch: () => plainGet('/api/partner/v1/tests') },
];

/**
 * `CONCURRENCY` loops calling `call` back to back for `ms`: requests per second, and this
 * process's CPU time per request (the client's own cost, which barely moves when other work
 * shares the machine, unlike req/s).
 */
async function drive(call: () => Promise<unknown>, ms: number): Promise<{ rps: number; cpuUs: number }> {
  const until = performance.now() + ms;
  let done = 0;
  const started = performance.now();
  const cpu = process.cpuUsage();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (performance.now() < until) {
        await call();
        done++;
      }
    }),
  );
  const used = process.cpuUsage(cpu);
  return { rps: done / ((performance.now() - started) / 1000), cpuUs: (used.user + used.system) / done };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

console.log(`bench:sdk: ${os.cpus().length} CPUs, Node ${process.version}, PostgreSQL ${db.version}${db.embedded ? ' (embedded)' : ''}`);
console.log(`${ROUNDS} rounds of ${DURATION_MS / 1000} s per side, ${CONCURRENCY} concurrent loops, warm-up ${WARMUP_MS / 1000} s each\n`);
const rows: Array<{ name: string; sdk: number; fetch: number; ratio: number; sdkCpu: number; fetchCpu: number }> = [];
for (const c of cases) {
  await drive(c.sdk, WARMUP_MS);
  await drive(c.fetch, WARMUP_MS);
  const sdk: number[] = [];
  const plain: number[] = [];
  const ratios: number[] = [];
  const sdkCpu: number[] = [];
  const plainCpu: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    // Alternate which side goes first, so drift on a shared machine falls on both.
    const first = round % 2 === 0 ? 'sdk' : 'fetch';
    const a = await drive(first === 'sdk' ? c.sdk : c.fetch, DURATION_MS);
    const b = await drive(first === 'sdk' ? c.fetch : c.sdk, DURATION_MS);
    const [s, f] = first === 'sdk' ? [a, b] : [b, a];
    sdk.push(s.rps);
    plain.push(f.rps);
    ratios.push(s.rps / f.rps);
    sdkCpu.push(s.cpuUs);
    plainCpu.push(f.cpuUs);
  }
  rows.push({ name: c.name, sdk: mean(sdk), fetch: mean(plain), ratio: median(ratios), sdkCpu: mean(sdkCpu), fetchCpu: mean(plainCpu) });
}

const pad = (s: string, n: number) => s.padEnd(n);
console.log(`${pad('case', 24)}${pad('SDK req/s', 11)}${pad('fetch req/s', 13)}${pad('SDK / fetch', 13)}${pad('', 14)}client CPU µs/req SDK, fetch`);
for (const r of rows) {
  const verdict = r.ratio >= TARGET ? 'ok' : 'BELOW TARGET';
  console.log(
    `${pad(r.name, 24)}${pad(r.sdk.toFixed(0), 11)}${pad(r.fetch.toFixed(0), 13)}${pad(r.ratio.toFixed(3), 13)}${pad(`(≥ ${TARGET}: ${verdict})`, 14)}${r.sdkCpu.toFixed(0)}, ${r.fetchCpu.toFixed(0)}`,
  );
}

child.kill('SIGTERM');
await once(child, 'exit');
await db.close();
