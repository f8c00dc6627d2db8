import { fork } from 'node:child_process';
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import fs from 'node:fs';
import { Session } from 'node:inspector/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { Agent, request } from 'undici';
import { systemClock } from '../src/platform/clock.js';
import { freezeConfig, parseConfig } from '../src/platform/config.js';
import { createPool, withTransaction } from '../src/platform/db.js';
import { openBenchDatabase } from './bench-database.js';
import { newId, randomBase62 } from '../src/platform/ids.js';
import { migrate } from '../src/platform/migrate.js';
import { appendEvent } from '../src/modules/lifecycle/append-event.js';
import { createInstitution } from '../src/modules/institutions/institutions.js';
import { applyTransition } from '../src/modules/lifecycle/apply-transition.js';
import { createTest, publishTest } from '../src/modules/catalog/tests-service.js';
import { createWebhookDispatcher } from '../src/modules/webhooks/dispatcher.js';
import { installWebhookFanOut } from '../src/modules/webhooks/fan-out.js';
import { createEndpoint } from '../src/modules/webhooks/manage-endpoints.js';
import { postgresCpuUs } from './postgres-cpu.js';

/**
 * `npm run bench:webhooks [-- --deliveries 8000 --endpoints 8 --rounds 3 --rate 200 --seconds 10 --profile dir]`
 *
 * On a real PostgreSQL (DATABASE_URL's server, else an embedded one in a temp
 * dir), in a fresh database, with a receiver in a child process on loopback:
 * 1. Throughput: `deliveries` pending deliveries (events fanned out to
 *    `endpoints` endpoints of one institution) sent by the dispatcher, against
 *    a raw keep-alive undici POST loop to the same receiver with the same
 *    number of requests in flight, in alternating rounds. Prints the median
 *    deliveries/s of each and the median of the per-round ratios. Each round
 *    also runs a bare durable loop (a one-table queue, claim and settle only,
 *    see bareDurableLoop) to show what durability alone costs on this machine,
 *    and a cursor loop (a log read in order, see cursorLoop) to show what a
 *    different storage of delivery state would allow.
 * 2. Latency: `rate` state changes per second (assignment started, one
 *    endpoint) for `seconds`; for each event, the time from its transaction's
 *    commit to its arrival at the receiver. Prints p50, p99 and max.
 * --profile dir: V8 CPU profiles of this process during the last round's
 * raw loop and dispatcher run only (no seeding), as .cpuprofile files.
 */
const RECEIVER_ROLE = 'webhook-bench-receiver';

if (process.argv[2] === RECEIVER_ROLE) {
  // ---- receiver (child process) ---------------------------------------------
  const arrivals = new Map<string, number>();
  let count = 0;
  const server = http.createServer((req, res) => {
    req.on('data', () => undefined);
    req.on('end', () => {
      count++;
      if (req.url === '/latency') arrivals.set(String(req.headers['webhook-id']), performance.timeOrigin + performance.now());
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('ok');
    });
  });
  server.keepAliveTimeout = 60_000;
  server.listen(0, '127.0.0.1', () => process.send!({ port: (server.address() as AddressInfo).port }));
  // Never outlive the benchmark, even when it crashes.
  process.on('disconnect', () => process.exit(0));
  process.on('message', (m: string) => {
    if (m === 'count') process.send!({ count });
    if (m === 'cpu') process.send!({ cpu: process.cpuUsage() });
    if (m === 'arrivals') process.send!({ arrivals: Object.fromEntries(arrivals) });
  });
} else {
  await main();
}

async function main() {
  const { values: opts } = parseArgs({
    options: {
      deliveries: { type: 'string', default: '8000' },
      endpoints: { type: 'string', default: '8' },
      rate: { type: 'string', default: '200' },
      seconds: { type: 'string', default: '10' },
      rounds: { type: 'string', default: '3' },
      profile: { type: 'string' },
    },
  });
  const N = Number(opts.deliveries);
  const ENDPOINTS = Number(opts.endpoints);
  const RATE = Number(opts.rate);
  const SECONDS = Number(opts.seconds);
  const ROUNDS = Number(opts.rounds);
  const profiler = opts.profile ? new Session() : null;
  profiler?.connect();
  /** Starts the CPU profiler when --profile is given and `on`; the returned function stops it and writes `name`.cpuprofile. */
  async function startProfile(name: string, on: boolean): Promise<() => Promise<void>> {
    if (!profiler || !on) return async () => undefined;
    await profiler.post('Profiler.enable');
    await profiler.post('Profiler.start');
    return async () => {
      const { profile } = await profiler.post('Profiler.stop');
      fs.mkdirSync(opts.profile!, { recursive: true });
      fs.writeFileSync(path.join(opts.profile!, `${name}.cpuprofile`), JSON.stringify(profile));
    };
  }


  // ---- database -----------------------------------------------------------
  const db = await openBenchDatabase('assay_bench_wh');
  const dbUrl = db.url;
  const config = freezeConfig({
    ...parseConfig({}),
    databaseUrl: dbUrl,
    adminToken: 'bench-admin-token-0123456789abcdef',
    secrets: [randomBase62(48)],
    allowInsecureUrls: true,
    logLevel: 'silent',
  });
  const pool = createPool(dbUrl, config.dbPoolSize);
  await migrate(pool);
  installWebhookFanOut();
  const ctx = { config, pool, clock: systemClock };

  // ---- receiver -----------------------------------------------------------
  const receiver = fork(new URL(import.meta.url).pathname, [RECEIVER_ROLE], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const [{ port }] = (await once(receiver, 'message')) as [{ port: number }];
  const ask = async <T>(what: string): Promise<T> => {
    const reply = once(receiver, 'message') as Promise<[T]>;
    receiver.send(what);
    return (await reply)[0];
  };
  const receivedCount = async () => (await ask<{ count: number }>('count')).count;
  /** CPU time so far of this process, the receiver and (embedded only) PostgreSQL, in µs. */
  const clusterDir = db.clusterDir;
  const cpuNow = async () => {
    const own = process.cpuUsage();
    const rx = (await ask<{ cpu: NodeJS.CpuUsage }>('cpu')).cpu;
    return { node: own.user + own.system, receiver: rx.user + rx.system, pg: clusterDir ? postgresCpuUs(clusterDir) : null };
  };
  type Cpu = Awaited<ReturnType<typeof cpuNow>>;
  /**
   * PostgreSQL's work so far, counted by the server: buffer accesses in the bench database and WAL
   * records (cluster-wide, so only meaningful on the embedded server). Unlike CPU time, these do not
   * move when other work shares the machine. Backends report them when they exit or idle, so read
   * them after the dispatcher's pool has ended.
   */
  const pgWork = async () => {
    const { rows } = await db.admin.query<{ blocks: number; wal: number }>(
      `SELECT (SELECT blks_hit + blks_read FROM pg_stat_database WHERE datname = $1)::float8 AS blocks,
              (SELECT wal_records FROM pg_stat_wal)::float8 AS wal`,
      [new URL(dbUrl).pathname.slice(1)],
    );
    return rows[0]!;
  };
  const cpuPer = (a: Cpu, b: Cpu, n: number) => ({
    node: (b.node - a.node) / n,
    receiver: (b.receiver - a.receiver) / n,
    pg: a.pg !== null && b.pg !== null ? (b.pg - a.pg) / n : null,
  });

  // ---- seed -----------------------------------------------------------------
  const test = await createTest(pool, {
    title: 'Bench',
    description: 'Bench',
    durationMinutes: 10,
    proctoring: 'none',
    marking: 'auto',
    resultVisibility: 'immediate',
    questions: [{ type: 'numeric', prompt: '1+1?', points: 1, answer: 2 }],
  });
  async function institutionWith(name: string, paths: string[]) {
    const inst = await createInstitution(pool, { name, callbackDomains: ['bench.example'] });
    await publishTest(pool, test.testId, inst.institutionId);
    for (const p of paths) await createEndpoint(ctx, inst.institutionId, { url: `http://127.0.0.1:${port}${p}` });
    return inst.institutionId;
  }
  async function assignments(institutionId: string, n: number): Promise<string[]> {
    const userId = newId('usr');
    await pool.query("INSERT INTO users (id, institution_id, external_user_id, email) VALUES ($1, $2, 'bench-user', 'u@bench.example')", [userId, institutionId]);
    const ids = Array.from({ length: n }, () => newId('asg'));
    await pool.query(
      `INSERT INTO assignments (id, institution_id, user_id, test_id, test_version_id, status, callback_url, metadata)
       SELECT unnest($1::text[]), $2, $3, $4, (SELECT id FROM test_versions WHERE test_id = $4 AND version = 1),
              'assigned', 'https://bench.example/r', '{"course":"BENCH-101"}'`,
      [ids, institutionId, userId, test.testId],
    );
    return ids;
  }

  // ---- 1. throughput --------------------------------------------------------
  const concurrency = config.webhooks.concurrency;
  const body = JSON.stringify({
    id: newId('evt'),
    type: 'exam.started',
    timestamp: new Date().toISOString(),
    data: { partnerAssignmentId: newId('asg'), externalUserId: 'bench-user', testId: test.testId, status: 'started', metadata: { course: 'BENCH-101' }, sequence: 1 },
  });
  async function rawLoop(n: number, profile = false): Promise<{ rate: number; cpu: ReturnType<typeof cpuPer> }> {
    const agent = new Agent({ connections: concurrency, keepAliveTimeout: 30_000 });
    let next = 0;
    const stopProfile = await startProfile('raw-loop', profile);
    const cpu0 = await cpuNow();
    const started = performance.now();
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next < n) {
          const i = next++;
          const res = await request(`http://127.0.0.1:${port}/raw/${i % ENDPOINTS}`, {
            method: 'POST',
            dispatcher: agent,
            headers: { 'content-type': 'application/json', 'webhook-id': `evt_${i}`, 'webhook-timestamp': '0', 'webhook-signature': 'v1,x' },
            body,
          });
          await res.body.text();
          if (res.statusCode !== 200) throw new Error(`raw POST answered ${res.statusCode}`);
        }
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    const cpu = cpuPer(cpu0, await cpuNow(), n);
    await stopProfile();
    await agent.close();
    return { rate: n / seconds, cpu };
  }

  type QueuedRow = { id: string; path: string; body: string };
  /** How a reference loop gets rows to send and keeps its progress (see runQueue). */
  interface QueueSide {
    /** Up to `limit` more rows to send, oldest first; none once drained. */
    fetch(limit: number): Promise<QueuedRow[]>;
    /** Notes that a row was delivered; the next `save` writes it. */
    delivered(id: number): void;
    /** Writes the progress noted since the last call. */
    save(): Promise<unknown>;
  }
  /**
   * Sends `n` queued rows to the receiver with `concurrency` in flight over a keep-alive agent, rows
   * fetched ahead of the free slots (as the dispatcher does, so a finished request is replaced at
   * once), progress saved per 64 deliveries or after 5 ms.
   */
  async function runQueue(n: number, side: QueueSide): Promise<{ rate: number; cpu: ReturnType<typeof cpuPer> }> {
    const agent = new Agent({ connections: concurrency, keepAliveTimeout: 30_000 });
    const ready: QueuedRow[] = [];
    let running = 0;
    let fetching = false;
    let drained = false;
    let sent = 0;
    let unsaved = 0;
    let saveTimer: NodeJS.Timeout | null = null;
    let finish!: () => void;
    const finished = new Promise<void>((r) => (finish = r));
    const save = (): Promise<unknown> => {
      if (saveTimer) clearTimeout(saveTimer);
      saveTimer = null;
      unsaved = 0;
      return side.save();
    };
    const start = (): void => {
      while (running < concurrency && ready.length > 0) {
        const row = ready.shift()!;
        running++;
        void request(`http://127.0.0.1:${port}${row.path}`, {
          method: 'POST',
          dispatcher: agent,
          headers: { 'content-type': 'application/json', 'webhook-id': `evt_${row.id}`, 'webhook-timestamp': '0', 'webhook-signature': 'v1,x' },
          body: row.body,
        }).then(async (res) => {
          await res.body.text();
          running--;
          side.delivered(Number(row.id));
          if (++unsaved >= 64) void save();
          else saveTimer ??= setTimeout(save, 5);
          if (++sent === n) return finish();
          start();
          if (ready.length < concurrency / 2) void fetch();
        });
      }
    };
    const fetch = async (): Promise<void> => {
      if (fetching || drained) return;
      fetching = true;
      const rows = await side.fetch(concurrency);
      fetching = false;
      drained = rows.length === 0;
      ready.push(...rows);
      start();
    };
    const cpu0 = await cpuNow();
    const started = performance.now();
    await fetch();
    await finished;
    const seconds = (performance.now() - started) / 1000;
    const cpu = cpuPer(cpu0, await cpuNow(), n);
    await save();
    await agent.close();
    return { rate: n / seconds, cpu };
  }

  /**
   * The floor of durable delivery on this machine: the least a PostgreSQL-backed sender must do, with
   * none of Assay's work. Rows of a one-table queue are claimed with one UPDATE … RETURNING (a lease,
   * FOR UPDATE SKIP LOCKED) and settled in batches with one UPDATE; asynchronous commit, as the
   * dispatcher's. No signing, attempt log, per-endpoint limit, retry schedule, metrics or spans.
   */
  const bareQueue = new pg.Pool({ connectionString: dbUrl, max: 3, options: '-c synchronous_commit=off' });
  bareQueue.on('error', () => undefined);
  await bareQueue.query(
    `CREATE TABLE bench_bare_queue (id bigserial PRIMARY KEY, path text NOT NULL, body text NOT NULL,
       status text NOT NULL DEFAULT 'pending', locked_until timestamptz);
     CREATE INDEX bench_bare_queue_due ON bench_bare_queue (id) WHERE status = 'pending'`,
  );
  async function bareDurableLoop(n: number): Promise<{ rate: number; cpu: ReturnType<typeof cpuPer> }> {
    await bareQueue.query(`INSERT INTO bench_bare_queue (path, body) SELECT '/bare/' || (i % $2), $3 FROM generate_series(1, $1) AS i`, [n, ENDPOINTS, body]);
    let settling: number[] = [];
    return runQueue(n, {
      fetch: async (limit) =>
        (
          await bareQueue.query<QueuedRow>(
            `UPDATE bench_bare_queue SET locked_until = now() + interval '30 seconds'
              WHERE id IN (SELECT id FROM bench_bare_queue WHERE status = 'pending' AND locked_until IS NULL
                            ORDER BY id LIMIT $1 FOR UPDATE SKIP LOCKED)
              RETURNING id, path, body`,
            [limit],
          )
        ).rows,
      delivered: (id) => settling.push(id),
      save: () => {
        const ids = settling;
        settling = [];
        return bareQueue.query(`UPDATE bench_bare_queue SET status = 'done', locked_until = NULL WHERE id = ANY ($1::bigint[])`, [ids]);
      },
    });
  }

  /**
   * What a different storage of delivery state would allow: a cursor. Deliveries are rows of a log
   * read in order (no lock, no lease, no per-row write), and progress is one row holding the highest
   * id up to which everything was delivered. The reader owns the log through an advisory lock; after
   * a crash, everything past the cursor is sent again. A success then writes nothing of its own: the
   * figure shows how far that would move the ratio.
   */
  await bareQueue.query(
    `CREATE TABLE bench_cursor_log (id bigserial PRIMARY KEY, path text NOT NULL, body text NOT NULL);
     CREATE TABLE bench_cursor (id int PRIMARY KEY, upto bigint NOT NULL);
     INSERT INTO bench_cursor VALUES (1, 0)`,
  );
  async function cursorLoop(n: number): Promise<{ rate: number; cpu: ReturnType<typeof cpuPer> }> {
    await bareQueue.query(`INSERT INTO bench_cursor_log (path, body) SELECT '/cursor/' || (i % $2), $3 FROM generate_series(1, $1) AS i`, [n, ENDPOINTS, body]);
    const owner = await bareQueue.connect();
    try {
      await owner.query('SELECT pg_advisory_lock(1)');
      /** Everything up to `upto` is delivered; `readUpto` is the last id fetched. */
      let upto = Number((await owner.query<{ upto: string }>('SELECT upto FROM bench_cursor WHERE id = 1')).rows[0]!.upto);
      let readUpto = upto;
      const deliveredAbove = new Set<number>();
      const result = await runQueue(n, {
        fetch: async (limit) => {
          const { rows } = await bareQueue.query<QueuedRow>('SELECT id, path, body FROM bench_cursor_log WHERE id > $1 ORDER BY id LIMIT $2', [readUpto, limit]);
          if (rows.length > 0) readUpto = Number(rows.at(-1)!.id);
          return rows;
        },
        delivered: (id) => {
          deliveredAbove.add(id);
          while (deliveredAbove.delete(upto + 1)) upto++;
        },
        save: () => bareQueue.query('UPDATE bench_cursor SET upto = $1 WHERE id = 1', [upto]),
      });
      await owner.query('SELECT pg_advisory_unlock(1)');
      return result;
    } finally {
      owner.release();
    }
  }

  const throughputInstitution = await institutionWith('Throughput', Array.from({ length: ENDPOINTS }, (_, i) => `/e${i}`));
  const [holder] = await assignments(throughputInstitution, 1);
  async function dispatcherRun(
    n: number,
    profile = false,
  ): Promise<{ rate: number; recordedRate: number; cpu: ReturnType<typeof cpuPer>; pgBlocks: number; pgWal: number; perClaim: number; perRecord: number }> {
    const events = Math.ceil(n / ENDPOINTS);
    for (let done = 0; done < events; done += 200) {
      await withTransaction(pool, async (tx) => {
        for (let i = done; i < Math.min(events, done + 200); i++) {
          await appendEvent(tx, {
            institutionId: throughputInstitution,
            assignmentId: holder!,
            type: 'exam.started',
            createdAt: new Date(),
            data: { partnerAssignmentId: holder, externalUserId: 'bench-user', testId: test.testId, status: 'started', metadata: { course: 'BENCH-101' } },
          });
        }
      });
    }
    const target = (await receivedCount()) + events * ENDPOINTS;
    const dispatcher = createWebhookDispatcher({ connectionString: dbUrl, clock: systemClock, config });
    const stopProfile = await startProfile('dispatcher', profile);
    const work0 = await pgWork();
    const cpu0 = await cpuNow();
    const started = performance.now();
    await dispatcher.start();
    while ((await receivedCount()) < target) await new Promise((r) => setTimeout(r, 5));
    const delivered = performance.now();
    const cpu = cpuPer(cpu0, await cpuNow(), events * ENDPOINTS);
    await stopProfile();
    for (;;) {
      const { rows } = await pool.query("SELECT count(*)::int AS n FROM webhook_deliveries WHERE status = 'pending'");
      if (rows[0].n === 0) break;
      await new Promise((r) => setTimeout(r, 5));
    }
    const recorded = performance.now();
    const { claims, claimed, records } = dispatcher.counters();
    await dispatcher.stop();
    await new Promise((r) => setTimeout(r, 200)); // the dispatcher's backends report their counters as they exit
    const work1 = await pgWork();
    return {
      rate: (events * ENDPOINTS) / ((delivered - started) / 1000),
      recordedRate: (events * ENDPOINTS) / ((recorded - started) / 1000),
      cpu,
      pgBlocks: (work1.blocks - work0.blocks) / (events * ENDPOINTS),
      pgWal: (work1.wal - work0.wal) / (events * ENDPOINTS),
      perClaim: claimed / Math.max(1, claims),
      perRecord: claimed / Math.max(1, records),
    };
  }

  process.stdout.write(`Webhook delivery benchmark: PostgreSQL ${db.version} (${db.embedded ? 'embedded' : 'DATABASE_URL'}), ${os.cpus().length} CPUs, node ${process.version}\n`);
  await rawLoop(Math.min(2000, N)); // warm-up
  await dispatcherRun(Math.min(800, N)); // warm-up
  await bareDurableLoop(Math.min(800, N)); // warm-up
  await cursorLoop(Math.min(800, N)); // warm-up
  // Alternating rounds, each compared with the raw loop run just before it, so a load change on the machine
  // between rounds does not skew the ratio; the medians are reported.
  const rounds: Array<{
    raw: number;
    rawCpu: ReturnType<typeof cpuPer>;
    rate: number;
    recordedRate: number;
    cpu: ReturnType<typeof cpuPer>;
    pgBlocks: number;
    pgWal: number;
    perClaim: number;
    perRecord: number;
    bare: number;
    bareCpu: ReturnType<typeof cpuPer>;
    cursor: number;
    cursorCpu: ReturnType<typeof cpuPer>;
  }> = [];
  for (let r = 0; r < ROUNDS; r++) {
    const last = r === ROUNDS - 1;
    const baseline = await rawLoop(N, last);
    const assay = await dispatcherRun(N, last);
    const bare = await bareDurableLoop(N);
    const cursor = await cursorLoop(N);
    rounds.push({ raw: baseline.rate, rawCpu: baseline.cpu, ...assay, bare: bare.rate, bareCpu: bare.cpu, cursor: cursor.rate, cursorCpu: cursor.cpu });
  }
  const fmt = (n: number, d = 0) => n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const raw = median(rounds.map((r) => r.raw));
  const run = { rate: median(rounds.map((r) => r.rate)), recordedRate: median(rounds.map((r) => r.recordedRate)) };
  const ratio = median(rounds.map((r) => r.rate / r.raw));
  const medCpu = (pick: (r: (typeof rounds)[number]) => ReturnType<typeof cpuPer>) => ({
    node: median(rounds.map((r) => pick(r).node)),
    receiver: median(rounds.map((r) => pick(r).receiver)),
    pg: rounds.some((r) => pick(r).pg === null) ? null : median(rounds.map((r) => pick(r).pg!)),
  });
  const cpuAssay = medCpu((r) => r.cpu);
  const cpuRaw = medCpu((r) => r.rawCpu);
  const cpuBare = medCpu((r) => r.bareCpu);
  const cpuCursor = medCpu((r) => r.cursorCpu);
  const cpuText = (c: ReturnType<typeof cpuPer>) =>
    `${fmt(c.node)} µs sender + ${fmt(c.receiver)} µs receiver${c.pg === null ? '' : ` + ${fmt(c.pg)} µs PostgreSQL`}`;

  // ---- 2. latency at a steady rate -----------------------------------------
  const latencyInstitution = await institutionWith('Latency', ['/latency']);
  const toStart = await assignments(latencyInstitution, RATE * SECONDS);
  const dispatcher = createWebhookDispatcher({ connectionString: dbUrl, clock: systemClock, config });
  await dispatcher.start();
  const committedAt = new Map<string, number>();
  const t0 = performance.now() + 100;
  await Promise.all(
    toStart.map(async (assignmentId, i) => {
      const wait = t0 + (i * 1000) / RATE - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      const outcome = await withTransaction(pool, (tx) => applyTransition(tx, assignmentId, [{ type: 'start' }], new Date()));
      const now = performance.timeOrigin + performance.now();
      if (outcome.ok) committedAt.set(outcome.events[0]!.id, now);
    }),
  );
  const until = Date.now() + 30_000;
  let arrivals: Record<string, number> = {};
  while (Date.now() < until) {
    arrivals = (await ask<{ arrivals: Record<string, number> }>('arrivals')).arrivals;
    if ([...committedAt.keys()].every((id) => id in arrivals)) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  await dispatcher.stop();
  const latencies = [...committedAt].map(([id, at]) => (arrivals[id] ?? Infinity) - at).sort((a, b) => a - b);
  const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))]!;
  const lost = latencies.filter((l) => l === Infinity).length;

  // ---- report -----------------------------------------------------------------
  const rows: string[][] = [
    ['Throughput (deliveries/s)', `${fmt(run.rate)} (all recorded: ${fmt(run.recordedRate)})`, `raw keep-alive POST loop: ${fmt(raw)}`, fmt(ratio, 2), '≥ 0.50'],
    [
      'Bare durable loop (deliveries/s)',
      `${fmt(median(rounds.map((r) => r.bare)))}: one-table queue, claim and settle only`,
      `raw keep-alive POST loop: ${fmt(raw)}`,
      fmt(median(rounds.map((r) => r.bare / r.raw)), 2),
      '',
    ],
    ['Assay / bare durable loop', '', '', fmt(median(rounds.map((r) => r.rate / r.bare)), 2), ''],
    [
      'Cursor loop (deliveries/s)',
      `${fmt(median(rounds.map((r) => r.cursor)))}: a log read in order, progress saved per batch`,
      `raw keep-alive POST loop: ${fmt(raw)}`,
      fmt(median(rounds.map((r) => r.cursor / r.raw)), 2),
      '',
    ],
    [`Commit → delivered p50 @ ${RATE} events/s`, `${fmt(pct(50), 1)} ms`, '', '', '< 20 ms'],
    [`Commit → delivered p99 @ ${RATE} events/s`, `${fmt(pct(99), 1)} ms`, '', '', '< 100 ms'],
    [`Commit → delivered max @ ${RATE} events/s`, `${fmt(latencies.at(-1)!, 1)} ms`, '', '', ''],
  ];
  // The raw loop makes no database calls (the cluster's figure then only shows backends of the previous run exiting).
  rows.push(['CPU per delivery', cpuText(cpuAssay), cpuText({ ...cpuRaw, pg: null }), '', '']);
  rows.push(['CPU per delivery, bare durable loop', cpuText(cpuBare), '', '', '']);
  rows.push(['CPU per delivery, cursor loop', cpuText(cpuCursor), '', '', '']);
  rows.push([
    'PostgreSQL work per delivery',
    `${fmt(median(rounds.map((r) => r.pgBlocks)), 1)} buffer accesses, ${fmt(median(rounds.map((r) => r.pgWal)), 1)} WAL records${db.embedded ? '' : ' (WAL: whole server)'}; ` +
      `${fmt(median(rounds.map((r) => r.perClaim)), 1)} deliveries per claim, ${fmt(median(rounds.map((r) => r.perRecord)), 1)} per record statement`,
    '',
    '',
    '',
  ]);
  const widths = [0, 1, 2, 3, 4].map((c) => Math.max(...[['Measure', 'Assay', 'Baseline', 'Ratio', 'Target'], ...rows].map((r) => r[c]!.length)));
  const line = (r: string[]) => `| ${r.map((v, i) => v.padEnd(widths[i]!)).join(' | ')} |`;
  process.stdout.write(
    [
      '',
      `${fmt(N)} deliveries to ${ENDPOINTS} endpoints, ${concurrency} in flight (the raw loop too), median of ${ROUNDS} rounds ` +
        `(ratios per round: ${rounds.map((r) => fmt(r.rate / r.raw, 2)).join(', ')}); latency: ${fmt(RATE * SECONDS)} events over ${SECONDS} s, ${lost} not delivered`,
      line(['Measure', 'Assay', 'Baseline', 'Ratio', 'Target']),
      line(widths.map((w) => '-'.repeat(w))),
      ...rows.map(line),
      '',
    ].join('\n'),
  );

  receiver.kill();
  await bareQueue.end();
  await pool.end();
  await db.close();
  // Exit explicitly, with the verdict as the code.
  process.exit(lost > 0 ? 1 : 0);
}
