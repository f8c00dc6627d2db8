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

let embedded: EmbeddedDatabase | null = null;
let dataDir: string | null = null;

export default async function setup(project: TestProject) {
  let adminUrl = process.env.DATABASE_URL;
  if (!adminUrl) {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'assay-test-'));
    embedded = await startEmbeddedDatabase({ dataDir, log: () => undefined });
    adminUrl = embedded.url;
  }
  const template = `assay_template_${process.pid}`;
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
    await embedded?.stop();
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  };
}

export function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}
