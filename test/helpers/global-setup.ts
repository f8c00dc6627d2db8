import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { startEmbeddedDatabase, type EmbeddedDatabase } from '../../src/platform/embedded-db.js';
import { migrate } from '../../src/platform/migrate.js';
import { createPool } from '../../src/platform/db.js';

/**
 * Before the suite: reach PostgreSQL (DATABASE_URL, or an embedded server of
 * our own in a fresh temporary folder, so concurrent runs never share a
 * cluster), and build a migrated template database that every
 * test file clones (CREATE DATABASE … TEMPLATE), as graphile-worker's tests do.
 */
declare module 'vitest' {
  export interface ProvidedContext {
    adminDatabaseUrl: string;
    templateDatabase: string;
  }
}

/**
 * The server, shared by the projects that use this setup (integration and browser run their global
 * setups one after the other in one process): one embedded PostgreSQL for a whole `vitest run`, not one
 * per project. Kept on globalThis because each project loads this file through its own module runner.
 */
interface SharedServer {
  adminUrl: Promise<string>;
  users: number;
  stop(): Promise<void>;
}
const shared = globalThis as typeof globalThis & { __assayTestServer?: SharedServer };

function acquireServer(): SharedServer {
  if (shared.__assayTestServer) {
    shared.__assayTestServer.users++;
    return shared.__assayTestServer;
  }
  let embedded: EmbeddedDatabase | null = null;
  let dataDir: string | null = null;
  const fromEnv = process.env.DATABASE_URL;
  const server: SharedServer = {
    users: 1,
    adminUrl: fromEnv
      ? Promise.resolve(fromEnv)
      : (async () => {
          dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'assay-test-'));
          embedded = await startEmbeddedDatabase({ dataDir, log: () => undefined });
          return embedded.url;
        })(),
    async stop() {
      await (embedded as EmbeddedDatabase | null)?.stop();
      if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
  shared.__assayTestServer = server;
  return server;
}

export default async function setup(project: TestProject) {
  const server = acquireServer();
  const adminUrl = await server.adminUrl;
  // One template per project: both projects' setups run in this process, so the PID alone would clash.
  const template = `assay_template_${process.pid}_${project.name.replace(/[^a-z0-9]/gi, '_').toLowerCase()}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${template}`);
  await admin.query(`CREATE DATABASE ${template}`);
  const templateUrl = withDatabase(adminUrl, template);
  const pool = createPool(templateUrl, 2);
  await migrate(pool);
  await pool.end();

  project.provide('adminDatabaseUrl', adminUrl);
  project.provide('templateDatabase', template);

  return async () => {
    await admin.query(`DROP DATABASE IF EXISTS ${template}`).catch(() => undefined);
    await admin.end();
    if (--server.users === 0) {
      delete shared.__assayTestServer;
      await server.stop();
    }
  };
}

export function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}
