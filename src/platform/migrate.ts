import fs from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { sha256Hex } from './crypto.js';
import type { Pool, PoolClient } from 'pg';

export const MIGRATIONS_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../migrations');

/** An arbitrary constant: the advisory lock that serialises migration runs across processes. */
const MIGRATION_LOCK = 727_274_001;

/**
 * `apply`: apply what is pending (every process does at boot by default).
 * `check`: apply nothing; refuse while anything is pending. For deployments
 * that run `npm run migrate` as their own step (ASSAY_MIGRATE=check), so a
 * serving process never runs DDL.
 */
export const MIGRATE_MODES = ['apply', 'check'] as const;
export type MigrateMode = (typeof MIGRATE_MODES)[number];

export class MigrationError extends Error {}

interface MigrationFile {
  name: string;
  sql: string;
  checksum: string;
}

/**
 * Forward-only numbered migrations (`migrations/NNNN_name.sql`), each applied
 * in its own transaction and recorded with the SHA-256 of its text. Before
 * anything runs, every applied migration is compared with its file: a file
 * changed after it was applied means this code and this database disagree
 * about the schema, so the process refuses to start, naming the file.
 * (Migrations applied before checksums were recorded get theirs from the
 * current files, once.) Applied migrations unknown to this code are left
 * alone: a process of the previous release still runs while the next
 * release's migrations are in. Safe to call from several processes at once:
 * they queue on an advisory lock. Returns the names it applied.
 */
export async function migrate(pool: Pool, opts: { dir?: string; mode?: MigrateMode } = {}): Promise<string[]> {
  const dir = opts.dir ?? MIGRATIONS_DIR;
  const files = await readMigrations(dir);
  const client = await pool.connect();
  const applied: string[] = [];
  try {
    // The pool's statement_timeout (ASSAY_DB_STATEMENT_TIMEOUT_MS) bounds requests, not schema changes: a
    // migration may rewrite a large table, and waiting for another process's migrations is not a stall.
    await client.query('SET statement_timeout = 0');
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    const recorded = await recordedMigrations(client, files, opts.mode ?? 'apply');
    for (const file of files) {
      const checksum = recorded.get(file.name);
      if (checksum !== undefined && checksum !== file.checksum) {
        throw new MigrationError(
          `migration ${file.name} was changed after it was applied (applied sha256 ${checksum.slice(0, 12)}…, the file now ${file.checksum.slice(0, 12)}…). ` +
            'Applied migrations must not change: restore the file and put the change in a new migration.',
        );
      }
    }
    const pending = files.filter((f) => !recorded.has(f.name));
    if (opts.mode === 'check') {
      if (pending.length > 0) {
        const names = pending.map((f) => f.name).join(', ');
        throw new MigrationError(
          `${pending.length} migration${pending.length === 1 ? ' is' : 's are'} not applied (${names}) and ASSAY_MIGRATE=check applies none: run \`npm run migrate\` first.`,
        );
      }
      return [];
    }
    for (const file of pending) {
      await client.query('BEGIN');
      try {
        await client.query(file.sql);
        await client.query('INSERT INTO schema_migrations (name, checksum) VALUES ($1, $2)', [file.name, file.checksum]);
        await client.query('COMMIT');
        applied.push(file.name);
      } catch (err) {
        await client.query('ROLLBACK');
        throw new MigrationError(`migration ${file.name} failed: ${(err as Error).message}`, { cause: err });
      }
    }
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => undefined);
    await client.query('RESET statement_timeout').catch(() => undefined);
    client.release();
  }
  return applied;
}

async function readMigrations(dir: string): Promise<MigrationFile[]> {
  const names = (await fs.readdir(dir)).filter((f) => /^\d{4}_.+\.sql$/.test(f)).sort();
  return Promise.all(
    names.map(async (name) => {
      const sql = await fs.readFile(path.join(dir, name), 'utf8');
      return { name, sql, checksum: sha256Hex(sql) };
    }),
  );
}

/** Applied migrations by name with their checksums; creates or upgrades the bookkeeping table in apply mode. */
async function recordedMigrations(client: PoolClient, files: MigrationFile[], mode: MigrateMode): Promise<Map<string, string>> {
  const exists = (await client.query(`SELECT to_regclass('schema_migrations') IS NOT NULL AS ok`)).rows[0].ok as boolean;
  if (!exists) {
    if (mode === 'check') return new Map();
    await client.query('CREATE TABLE schema_migrations (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now(), checksum text)');
  }
  const hasChecksum = (
    await client.query(`SELECT EXISTS (SELECT 1 FROM information_schema.columns WHERE table_name = 'schema_migrations' AND column_name = 'checksum') AS ok`)
  ).rows[0].ok as boolean;
  if (!hasChecksum) {
    if (mode === 'check') throw new MigrationError('the database predates migration checksums and ASSAY_MIGRATE=check changes nothing: run `npm run migrate` first.');
    await client.query('ALTER TABLE schema_migrations ADD COLUMN checksum text');
  }
  const { rows } = await client.query<{ name: string; checksum: string | null }>('SELECT name, checksum FROM schema_migrations');
  const recorded = new Map<string, string>();
  const byName = new Map(files.map((f) => [f.name, f]));
  for (const row of rows) {
    const file = byName.get(row.name);
    if (row.checksum === null && file && mode === 'apply') {
      // Applied before checksums were recorded: trust the file as it is now, from here on.
      await client.query('UPDATE schema_migrations SET checksum = $2 WHERE name = $1', [row.name, file.checksum]);
      row.checksum = file.checksum;
    }
    if (row.checksum !== null) recorded.set(row.name, row.checksum);
    else if (file) recorded.set(row.name, file.checksum);
  }
  return recorded;
}
