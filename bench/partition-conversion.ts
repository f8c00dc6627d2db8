/**
 * The partitioning migrations (0032–0035) on a large history: seeds a scratch
 * database with N events (default 10 million; deliveries, attempts and audit
 * entries for a tenth of them, bench/partition-seed.sql), then applies the
 * migrations through the real runner while a writer inserts an event every
 * 10 ms and a reader lists the newest events every 10 ms, each on its own
 * connection. Prints the duration of each migration and the longest stall
 * the writer and the reader saw (a stall: the time one statement took).
 *
 *   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/assay_h_part10m \
 *   BENCH_EVENTS=10000000 npx tsx bench/partition-conversion.ts
 *
 * The database is dropped and created again: give it a scratch name. Not
 * part of the test suite.
 */
import fs from 'node:fs';
import path from 'node:path';
import os from 'node:os';
import { execFileSync } from 'node:child_process';
import pg from 'pg';
import { migrate, MIGRATIONS_DIR } from '../src/platform/migrate.js';

const url = process.env.BENCH_DATABASE_URL;
if (!url) throw new Error('BENCH_DATABASE_URL (a scratch database: it is dropped and created again) is required');
const events = Number(process.env.BENCH_EVENTS ?? 10_000_000);
const FIRST = '0032';

const dbName = new URL(url).pathname.slice(1);
const admin = new URL(url);
admin.pathname = '/postgres';

async function adminQuery(sql: string): Promise<void> {
  const c = new pg.Client({ connectionString: admin.toString() });
  await c.connect();
  await c.query(sql);
  await c.end();
}

/** The migrations before FIRST, in a directory of their own, for the runner. */
function migrationsBefore(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'assay-partition-bench-'));
  for (const f of fs.readdirSync(MIGRATIONS_DIR)) if (f < FIRST) fs.copyFileSync(path.join(MIGRATIONS_DIR, f), path.join(dir, f));
  return dir;
}

interface Probe {
  stop(): Promise<{ ops: number; errors: number; longestMs: number; longestAt: number }>;
}

/** Runs `op` every 10 ms on its own connection; records the slowest call and when it started. */
async function probe(op: (c: pg.Client, i: number) => Promise<unknown>): Promise<Probe> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  let running = true;
  let ops = 0;
  let errors = 0;
  let longestMs = 0;
  let longestAt = 0;
  const loop = (async () => {
    while (running) {
      const t = performance.now();
      try {
        await op(c, ops);
      } catch {
        errors++;
      }
      const ms = performance.now() - t;
      if (ms > longestMs) [longestMs, longestAt] = [ms, t];
      ops++;
      await new Promise((r) => setTimeout(r, 10));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      await c.end();
      return { ops, errors, longestMs, longestAt };
    },
  };
}

await adminQuery(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
await adminQuery(`CREATE DATABASE ${dbName}`);
const pool = new pg.Pool({ connectionString: url, max: 2 });
await migrate(pool, { dir: migrationsBefore() });
let t = performance.now();
execFileSync('psql', [url, '-q', '-v', 'ON_ERROR_STOP=1', '-v', `n=${events}`, '-f', path.join(import.meta.dirname, 'partition-seed.sql')], { stdio: 'inherit' });
console.log(`seeded ${events} events in ${((performance.now() - t) / 1000).toFixed(1)} s`);
const size = await pool.query<{ s: string }>(`SELECT pg_size_pretty(pg_database_size(current_database())) AS s`);
console.log(`database size: ${size.rows[0]!.s}`);

const writer = await probe((c, i) =>
  c.query(`INSERT INTO events (id, institution_id, type, data, data_json, created_at) VALUES ($1, 'ins_bench', 'bench.tick', '{}', '{}', now())`, [
    `evt_w${process.pid}_${i}`,
  ]),
);
const reader = await probe((c) =>
  c.query(`SELECT id FROM events WHERE institution_id = 'ins_bench' AND livemode AND created_at >= now() - interval '30 days' ORDER BY created_at DESC, id DESC LIMIT 20`),
);
const timings: string[] = [];
const start = performance.now();
// One migration per run, as the runner applies them at boot (each in its own transaction), to time each.
for (const f of fs.readdirSync(MIGRATIONS_DIR).filter((n) => n >= FIRST).sort()) {
  const dir = migrationsBefore();
  for (const g of fs.readdirSync(MIGRATIONS_DIR)) if (g >= FIRST && g <= f) fs.copyFileSync(path.join(MIGRATIONS_DIR, g), path.join(dir, g));
  t = performance.now();
  await migrate(pool, { dir });
  timings.push(`${f}: ${((performance.now() - t) / 1000).toFixed(2)} s`);
}
const total = (performance.now() - start) / 1000;
await new Promise((r) => setTimeout(r, 200));
const w = await writer.stop();
const r = await reader.stop();
const parts = await pool.query<{ part: string; n: string }>(`SELECT tableoid::regclass::text AS part, count(*) AS n FROM events GROUP BY 1 ORDER BY 1`);
await pool.end();
console.log(timings.join('\n'));
console.log(`conversion total: ${total.toFixed(2)} s`);
console.log(`writer: ${w.ops} inserts, ${w.errors} errors, longest ${w.longestMs.toFixed(1)} ms (at +${((w.longestAt - start) / 1000).toFixed(1)} s)`);
console.log(`reader: ${r.ops} reads, ${r.errors} errors, longest ${r.longestMs.toFixed(1)} ms (at +${((r.longestAt - start) / 1000).toFixed(1)} s)`);
console.log(`events by partition: ${parts.rows.map((p) => `${p.part} ${p.n}`).join(', ')}`);
if (process.env.BENCH_KEEP !== '1') await adminQuery(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
