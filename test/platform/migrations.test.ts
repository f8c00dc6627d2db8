import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import { boot } from '../../src/platform/boot.js';
import { createPool, type Pool } from '../../src/platform/db.js';
import { MIGRATIONS_DIR, migrate } from '../../src/platform/migrate.js';
import { randomBase62 } from '../../src/platform/ids.js';
import { ADMIN_TOKEN } from '../helpers/harness.js';
import { HARNESS_SECRET } from '../helpers/worker-process.js';

/**
 * Migrations: a checksum per applied file, a refusal to run on a changed
 * applied migration, and a check-only mode for deployments that migrate in
 * a separate step. Each case on a fresh, empty database and a copy of the
 * migrations folder it may change.
 */
const admin = () => new pg.Client({ connectionString: inject('adminDatabaseUrl') });
const made: string[] = [];
let tmp: string;

async function emptyDatabase(): Promise<{ url: string; pool: Pool }> {
  const name = `assay_m_${randomBase62(10).toLowerCase()}`;
  const c = admin();
  await c.connect();
  await c.query(`CREATE DATABASE ${name}`);
  await c.end();
  made.push(name);
  const u = new URL(inject('adminDatabaseUrl'));
  u.pathname = `/${name}`;
  return { url: u.toString(), pool: createPool(u.toString(), 2) };
}

function copyOfMigrations(): string {
  const dir = fs.mkdtempSync(path.join(tmp, 'migrations-'));
  for (const f of fs.readdirSync(MIGRATIONS_DIR)) fs.copyFileSync(path.join(MIGRATIONS_DIR, f), path.join(dir, f));
  return dir;
}

beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'assay-migrations-'));
});
afterAll(async () => {
  fs.rmSync(tmp, { recursive: true, force: true });
  const c = admin();
  await c.connect();
  for (const name of made) await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await c.end();
});

describe('migrations', () => {
  it('records a checksum for every applied migration, and a second run applies nothing', async () => {
    const { pool } = await emptyDatabase();
    try {
      const files = fs.readdirSync(MIGRATIONS_DIR).filter((f) => f.endsWith('.sql')).sort();
      expect(await migrate(pool)).toEqual(files);
      const { rows } = await pool.query('SELECT name, checksum FROM schema_migrations ORDER BY name');
      expect(rows.map((r) => r.name)).toEqual(files);
      for (const r of rows) expect(r.checksum).toMatch(/^[0-9a-f]{64}$/);
      expect(await migrate(pool)).toEqual([]);
    } finally {
      await pool.end();
    }
  });

  it('refuses to run when an applied migration was changed, naming it, and changes nothing', async () => {
    const { pool } = await emptyDatabase();
    const dir = copyOfMigrations();
    try {
      await migrate(pool, { dir });
      fs.appendFileSync(path.join(dir, '0002_student_journey.sql'), '\n-- an edit after the fact\n');
      fs.writeFileSync(path.join(dir, '9999_later.sql'), 'CREATE TABLE later (id int);');
      await expect(migrate(pool, { dir })).rejects.toThrow(/0002_student_journey\.sql was changed after it was applied/);
      expect((await pool.query(`SELECT to_regclass('later') AS t`)).rows[0].t).toBeNull();
    } finally {
      await pool.end();
    }
  });

  it('fills in the checksums of migrations applied before checksums were recorded', async () => {
    const { pool } = await emptyDatabase();
    try {
      await migrate(pool);
      await pool.query('ALTER TABLE schema_migrations DROP COLUMN checksum');
      expect(await migrate(pool)).toEqual([]);
      expect((await pool.query('SELECT count(*)::int AS n FROM schema_migrations WHERE checksum IS NULL')).rows[0].n).toBe(0);
    } finally {
      await pool.end();
    }
  });

  it('check mode applies nothing: it refuses while migrations are pending, and passes once they are applied', async () => {
    const { pool } = await emptyDatabase();
    const dir = copyOfMigrations();
    try {
      await migrate(pool, { dir });
      fs.writeFileSync(path.join(dir, '9999_later.sql'), 'CREATE TABLE later (id int);');
      await expect(migrate(pool, { dir, mode: 'check' })).rejects.toThrow(/1 migration is not applied \(9999_later\.sql\).*npm run migrate/);
      expect((await pool.query(`SELECT to_regclass('later') AS t`)).rows[0].t).toBeNull();
      expect(await migrate(pool, { dir })).toEqual(['9999_later.sql']);
      expect(await migrate(pool, { dir, mode: 'check' })).toEqual([]);
    } finally {
      await pool.end();
    }
  });

  it('a process booted with ASSAY_MIGRATE=check on a database that is behind stops with that message', async () => {
    const { url, pool } = await emptyDatabase();
    await pool.end();
    const env = { DATABASE_URL: url, ASSAY_ADMIN_TOKEN: ADMIN_TOKEN, ASSAY_SECRET: HARNESS_SECRET };
    await expect(boot({ allowStartEmbedded: false, env: { ...env, ASSAY_MIGRATE: 'check' } })).rejects.toThrow(/not applied.*npm run migrate/);
    const booted = await boot({ allowStartEmbedded: false, env: { ...env, ASSAY_MIGRATE: 'apply' } });
    await booted.shutdownDatabase();
    const checked = await boot({ allowStartEmbedded: false, env: { ...env, ASSAY_MIGRATE: 'check' } });
    await checked.shutdownDatabase();
  });
});

describe('npm run migrate', () => {
  it('applies every pending migration as its own step, and a process in check mode then starts', async () => {
    const { url, pool } = await emptyDatabase();
    await pool.end();
    const env = { PATH: process.env.PATH, HOME: process.env.HOME, DATABASE_URL: url, ASSAY_ADMIN_TOKEN: ADMIN_TOKEN, ASSAY_SECRET: HARNESS_SECRET, ASSAY_MIGRATE: 'check' };
    const out = execFileSync('npm', ['run', '--silent', 'migrate'], { cwd: path.resolve(import.meta.dirname, '../..'), env, encoding: 'utf8' });
    expect(out).toMatch(/^Applied 0001_init\.sql, .*The database is up to date/);
    const checked = await boot({ allowStartEmbedded: false, env });
    await checked.shutdownDatabase();
  });
});
