import { parseArgs } from 'node:util';
import pg from 'pg';
import { systemClock } from '../src/platform/clock.js';
import { freezeConfig } from '../src/platform/config.js';
import { createPool, type Pool } from '../src/platform/db.js';
import { migrate } from '../src/platform/migrate.js';
import { buildServer, serverContext } from '../src/server.js';
import { startWorker } from '../src/worker.js';
import { hasPgbouncer, PGBOUNCER_PATH, startPgbouncer, type PgBouncer } from '../test/helpers/pgbouncer.js';
import { benchAppConfig, openBenchDatabase } from './bench-database.js';

/**
 * `npm run bench:pgbouncer -- [--api 4 --workers 2 --pool 10 --pgbouncer-pool 10 --modes direct,pgbouncer]`
 *
 * The connections PostgreSQL holds for `--api` API and `--workers` worker
 * instances, each with its pool of `--pool` busy at once, first straight to
 * PostgreSQL, then with the pools through a real PgBouncer in transaction
 * mode (`default_pool_size` = `--pgbouncer-pool`) and the session work on
 * the direct URL (ASSAY_DATABASE_SESSION_URL). The instances run in this
 * process (each its own pool, LISTEN connections, readiness connection and
 * dispatcher, exactly as a separate process would open them); PostgreSQL's
 * pg_stat_activity is sampled every 20 ms and the peak of each kind printed.
 * On DATABASE_URL's server when set, else an embedded one of its own.
 */
const { values: args } = parseArgs({
  options: {
    api: { type: 'string', default: '4' },
    workers: { type: 'string', default: '2' },
    pool: { type: 'string', default: '10' },
    'pgbouncer-pool': { type: 'string', default: '10' },
    modes: { type: 'string', default: 'direct,pgbouncer' },
  },
});
const API = Number(args.api);
const WORKERS = Number(args.workers);
const POOL = Number(args.pool);
const PGB_POOL = Number(args['pgbouncer-pool']);

if (!hasPgbouncer) {
  console.error(`no ${PGBOUNCER_PATH}: apt-get install -y pgbouncer`);
  process.exit(1);
}

/** What each backend of the database is, by the application_name Assay gives its session connections. */
const KINDS_SQL = `
  SELECT CASE WHEN application_name LIKE 'assay-listen%' OR application_name IN ('assay-status-listener', 'assay-key-listener') THEN 'listen'
              WHEN application_name = 'assay-readiness' THEN 'readiness'
              WHEN application_name = 'assay-webhook-dispatcher' THEN 'dispatcher'
              ELSE 'pool' END AS kind, count(*)::int AS n
    FROM pg_stat_activity WHERE datname = $1 AND backend_type = 'client backend' AND pid <> pg_backend_pid()
   GROUP BY 1`;

interface Instance {
  pool: Pool;
  close(): Promise<void>;
}

async function run(mode: 'direct' | 'pgbouncer', databaseUrl: string, counter: pg.Client, dbName: string) {
  let pgb: PgBouncer | null = null;
  if (mode === 'pgbouncer') pgb = await startPgbouncer({ serverUrl: databaseUrl, poolSize: PGB_POOL, maxClientConn: 1000, statementTimeoutMs: 60_000 });
  const poolUrl = pgb ? pgb.through(databaseUrl) : databaseUrl;
  const config = freezeConfig({ ...benchAppConfig(poolUrl), databaseSessionUrl: pgb ? databaseUrl : null, dbPoolSize: POOL });
  const instances: Instance[] = [];
  try {
    await measure(mode, poolUrl, databaseUrl, config, instances, counter, dbName);
  } catch (err) {
    // Straight to PostgreSQL, enough processes run out of max_connections: that is the finding, not a crash.
    console.log(`${mode.padEnd(9)}  failed: ${(err as Error).message}`);
  } finally {
    for (const it of instances) await it.close().catch(() => undefined);
    await pgb?.stop();
  }
}

async function measure(
  mode: string,
  poolUrl: string,
  databaseUrl: string,
  config: ReturnType<typeof freezeConfig>,
  instances: Instance[],
  counter: pg.Client,
  dbName: string,
) {
  const pooled = poolUrl !== databaseUrl;
  const newPool = () => createPool(poolUrl, POOL, { statementTimeoutMs: 60_000, ...(pooled ? { sessionConnectionString: databaseUrl } : {}) });
  for (let i = 0; i < API; i++) {
    const pool = newPool();
    const app = await buildServer(serverContext({ config, pool, clock: systemClock }), { logger: false });
    await app.ready();
    if ((await app.inject({ method: 'GET', url: '/readyz' })).statusCode !== 200) throw new Error('an API instance is not ready');
    instances.push({ pool, close: async () => (await app.close(), await pool.end()) });
  }
  for (let i = 0; i < WORKERS; i++) {
    const pool = newPool();
    const worker = await startWorker({ config, pool, clock: systemClock }, config.databaseSessionUrl ?? databaseUrl);
    instances.push({ pool, close: async () => (await worker.stop(), await pool.end()) });
  }
  // Let the LISTEN connections and the dispatchers settle, then every pool busy at once, twice over.
  await new Promise((r) => setTimeout(r, 1_000));
  const peak = new Map<string, number>();
  let peakTotal = 0;
  let peakClients = 0;
  let done = false;
  const burst = Promise.all(instances.flatMap((it) => Array.from({ length: POOL * 2 }, () => it.pool.query('SELECT pg_sleep(0.3)'))))
    .then(
      () => null,
      (err: Error) => err,
    )
    .finally(() => (done = true));
  while (!done) {
    const { rows } = await counter.query<{ kind: string; n: number }>(KINDS_SQL, [dbName]);
    for (const r of rows) peak.set(r.kind, Math.max(peak.get(r.kind) ?? 0, r.n));
    peakTotal = Math.max(peakTotal, rows.reduce((s, r) => s + r.n, 0));
    peakClients = Math.max(peakClients, instances.reduce((s, it) => s + it.pool.totalCount, 0));
    await new Promise((r) => setTimeout(r, 20));
  }
  const failed = await burst;
  if (failed) throw failed;
  const kinds = ['pool', 'listen', 'readiness', 'dispatcher'].map((k) => `${k} ${peak.get(k) ?? 0}`).join(', ');
  console.log(`${mode.padEnd(9)}  pools' client connections ${String(peakClients).padStart(4)}  PostgreSQL backends at peak ${String(peakTotal).padStart(4)}  (${kinds})`);
}

const db = await openBenchDatabase('assay_pgbc');
try {
  const migrationPool = createPool(db.url, 1);
  await migrate(migrationPool);
  await migrationPool.end();
  const dbName = new URL(db.url).pathname.slice(1);
  console.log(`PostgreSQL ${db.version}${db.embedded ? ' (embedded)' : ''}; ${API} API + ${WORKERS} worker instances, pool ${POOL} each; PgBouncer default_pool_size ${PGB_POOL}`);
  for (const mode of (args.modes ?? '').split(',')) {
    if (mode !== 'direct' && mode !== 'pgbouncer') throw new Error(`--modes: direct and/or pgbouncer, got "${mode}"`);
    await run(mode, db.url, db.admin, dbName);
  }
} finally {
  await db.close();
}
process.exit(0);
