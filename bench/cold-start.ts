import { fork } from 'node:child_process';
import { once } from 'node:events';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { request } from 'undici';
import { NODE_FLAGS } from '../bin/node-flags.js';
import { openBenchDatabase } from './bench-database.js';
import type { ImportServerReady } from './import-server.js';

/**
 * `npm run bench:cold-start [-- --pairs 2 --rounds 3 --duration 6]`: the
 * partner read from the first second of a freshly started process, with the
 * heap settled the way src/main.ts settles it now (once the app is ready,
 * after Fastify has compiled the routes' schemas) against the order it had
 * before (collected first, the schemas compiled at listen). The server is
 * bench/import-server.ts (the product's V8 flags, through tsx), a fresh
 * process and database per start; the two orders take turns, `pairs` times.
 * Each start: one assignment created, then `rounds` runs of autocannon
 * (32 connections, `duration` s each) reading it. Printed per round: req/s
 * and p99 of each order, and the ratio of the two.
 */
const { values: opts } = parseArgs({
  options: {
    pairs: { type: 'string', default: '2' },
    rounds: { type: 'string', default: '3' },
    duration: { type: 'string', default: '6' },
  },
});
const PAIRS = Number(opts.pairs);
const ROUNDS = Number(opts.rounds);
const DURATION = Number(opts.duration);
for (const [name, v] of Object.entries({ pairs: PAIRS, rounds: ROUNDS, duration: DURATION })) {
  if (!Number.isInteger(v) || v < 1) throw new Error(`--${name} must be a whole number ≥ 1`);
}

type Order = 'once-ready' | 'settle-before-ready';
interface Round {
  rps: number;
  p99: number;
}

async function start(order: Order): Promise<Round[]> {
  const db = await openBenchDatabase('assay_cold');
  const server = fork(path.join(import.meta.dirname, 'import-server.ts'), [db.url, order], {
    execArgv: [...NODE_FLAGS, '--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  try {
    const [ready] = (await once(server, 'message')) as [ImportServerReady];
    const headers = { authorization: `Bearer ${ready.apiKey}`, 'content-type': 'application/json' };
    const tests = (await (await request(`${ready.url}/api/partner/v1/tests?limit=1`, { headers })).body.json()) as { data: Array<{ testId: string }> };
    const created = await request(`${ready.url}/api/partner/v1/assignments`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ testId: tests.data[0]!.testId, externalUserId: 'cold', user: { email: 'cold@bench.example' }, callbackUrl: 'https://bench.example/return' }),
    });
    const { assignmentId } = (await created.body.json()) as { assignmentId: string };
    if (created.statusCode !== 201) throw new Error(`creating the assignment answered ${created.statusCode}`);
    const rounds: Round[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      const r = await autocannon({ url: `${ready.url}/api/partner/v1/assignments/${assignmentId}`, headers: { authorization: headers.authorization }, connections: 32, duration: DURATION });
      if (r.non2xx > 0 || r.errors > 0) throw new Error(`the reads failed: ${r.non2xx} non-2xx, ${r.errors} errors`);
      rounds.push({ rps: r.requests.average, p99: r.latency.p99 });
    }
    return rounds;
  } finally {
    server.send('stop');
    await Promise.race([once(server, 'exit'), new Promise((r) => setTimeout(r, 5_000))]);
    if (server.exitCode === null) server.kill();
    await db.close();
  }
}

console.log(`The partner read from a cold start: ${PAIRS} pairs of starts, ${ROUNDS} rounds of ${DURATION} s at 32 connections each`);
console.log(`load average ${os.loadavg().map((l) => l.toFixed(2)).join(' ')} on ${os.cpus().length} cores, Node ${process.version}\n`);
for (let pair = 1; pair <= PAIRS; pair++) {
  const before = await start('settle-before-ready');
  const now = await start('once-ready');
  for (let i = 0; i < ROUNDS; i++) {
    const b = before[i]!;
    const n = now[i]!;
    console.log(
      `pair ${pair} round ${i + 1}: settled before ready ${Math.round(b.rps).toLocaleString('en-US').padStart(7)} req/s (p99 ${b.p99} ms); ` +
        `once ready ${Math.round(n.rps).toLocaleString('en-US').padStart(7)} req/s (p99 ${n.p99} ms); ratio ${(n.rps / b.rps).toFixed(2)}`,
    );
  }
}
console.log(`\nload average at the end ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}`);
