import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { freezeConfig, parseConfig, type Config } from '../src/platform/config.js';
import { randomBase62 } from '../src/platform/ids.js';
import { startEmbeddedDatabase, type EmbeddedDatabase } from '../src/platform/embedded-db.js';

/**
 * A fresh database for one benchmark run: on DATABASE_URL's server when set,
 * else on an embedded PostgreSQL started in a temporary folder (whose
 * processes' CPU time the benches can then read, see postgres-cpu.ts).
 */
export interface BenchDatabase {
  /** The fresh database the run uses. */
  url: string;
  /** The server's version, for the report. */
  version: string;
  embedded: boolean;
  /** The embedded cluster's folder; null on a DATABASE_URL server. */
  clusterDir: string | null;
  /** An open connection to the server, for the run's own checks. */
  admin: pg.Client;
  /** Drops the database and stops the embedded server. */
  close(): Promise<void>;
}

export async function openBenchDatabase(namePrefix: string): Promise<BenchDatabase> {
  let embedded: EmbeddedDatabase | null = null;
  let tempDir: string | null = null;
  let serverUrl = process.env.DATABASE_URL;
  if (!serverUrl) {
    tempDir = fs.mkdtempSync(path.join(os.tmpdir(), 'assay-bench-'));
    embedded = await startEmbeddedDatabase({ dataDir: tempDir, log: () => undefined });
    serverUrl = embedded.url;
  }
  const name = `${namePrefix}_${randomBase62(8).toLowerCase()}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  const version = (await admin.query<{ v: string }>("SELECT current_setting('server_version') AS v")).rows[0]!.v;
  return {
    url: Object.assign(new URL(serverUrl), { pathname: `/${name}` }).toString(),
    version,
    embedded: embedded !== null,
    clusterDir: tempDir ? path.join(tempDir, 'pg') : null,
    admin,
    async close() {
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => undefined);
      await admin.end();
      await embedded?.stop();
      if (tempDir) fs.rmSync(tempDir, { recursive: true, force: true });
    },
  };
}

/**
 * The app's configuration under benchmark, the same for every bench: logs at
 * `warn` (no per-request lines, so logging costs about what it costs a bare
 * baseline), and a rate limiter that runs on every request but never refuses one.
 */
export function benchAppConfig(databaseUrl: string): Readonly<Config> {
  return freezeConfig(
    parseConfig({
      DATABASE_URL: databaseUrl,
      ASSAY_ADMIN_TOKEN: `bench-${randomBase62(32)}`,
      ASSAY_SECRET: randomBase62(48),
      PUBLIC_BASE_URL: 'http://127.0.0.1:3000',
      LOG_LEVEL: 'warn',
      ASSAY_RATE_LIMIT_PER_SECOND: '1000000',
      ASSAY_RATE_LIMIT_BURST: '1000000',
      // Every simulated student comes from 127.0.0.1: the per-address and per-session limits would measure themselves.
      ASSAY_START_LINK_RATE_LIMIT: '1000000',
      ASSAY_STUDENT_RATE_LIMIT: '1000000',
      ASSAY_UNAUTHENTICATED_RATE_LIMIT: '1000000',
      // The worker pool's threads or processes, as the environment of the bench chooses (ASSAY_WORKER_ISOLATION).
      ...(process.env.ASSAY_WORKER_ISOLATION ? { ASSAY_WORKER_ISOLATION: process.env.ASSAY_WORKER_ISOLATION } : {}),
    }),
  );
}
