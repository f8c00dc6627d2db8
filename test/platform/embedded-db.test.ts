import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { startEmbeddedDatabase } from '../../src/platform/embedded-db.js';
import { loadOrCreateLocalSecrets, localSecretsPath } from '../../src/platform/local-secrets.js';

/**
 * The embedded PostgreSQL's superuser password: generated once per data
 * folder and kept with the local secrets, never a constant of the code; a
 * data folder made when it was one still starts, and moves to its own.
 */
const dirs: string[] = [];
const tempDir = () => {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'assay-embedded-'));
  dirs.push(d);
  return d;
};
afterAll(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

async function canConnect(port: number, password: string): Promise<boolean> {
  const c = new pg.Client({ host: '127.0.0.1', port, user: 'postgres', password, database: 'postgres' });
  try {
    await c.connect();
    await c.end();
    return true;
  } catch {
    return false;
  }
}

const secretsOf = (dir: string) => JSON.parse(fs.readFileSync(localSecretsPath(dir), 'utf8')) as { postgresPassword?: string };

describe('embedded PostgreSQL superuser password', () => {
  it('a new data folder gets its own generated password, kept with the local secrets (mode 600), and the same on restart', async () => {
    const dir = tempDir();
    const db = await startEmbeddedDatabase({ dataDir: dir, log: () => undefined });
    try {
      const password = secretsOf(dir).postgresPassword!;
      expect(password).toMatch(/^[0-9A-Za-z]{32,}$/);
      expect(new URL(db.url).password).toBe(password);
      expect(fs.statSync(localSecretsPath(dir)).mode & 0o777).toBe(0o600);
      expect(await canConnect(db.port, password)).toBe(true);
      expect(await canConnect(db.port, 'assay-local')).toBe(false);
    } finally {
      await db.stop();
    }
    const again = await startEmbeddedDatabase({ dataDir: dir, log: () => undefined });
    try {
      expect(new URL(again.url).password).toBe(secretsOf(dir).postgresPassword);
      expect(await canConnect(again.port, secretsOf(dir).postgresPassword!)).toBe(true);
    } finally {
      await again.stop();
    }
    expect(loadOrCreateLocalSecrets(tempDir()).postgresPassword).not.toBe(secretsOf(dir).postgresPassword);
  }, 90_000);

  it('a data folder made with the old built-in password keeps working and moves to a generated one', async () => {
    const dir = tempDir();
    // As earlier versions left it: a cluster whose superuser password is the old constant, no password in the local secrets.
    const old = await startEmbeddedDatabase({ dataDir: dir, log: () => undefined });
    const c = new pg.Client(old.url);
    await c.connect();
    await c.query(`ALTER ROLE postgres PASSWORD 'assay-local'`);
    await c.end();
    await old.stop();
    const secrets = JSON.parse(fs.readFileSync(localSecretsPath(dir), 'utf8'));
    delete secrets.postgresPassword;
    fs.writeFileSync(localSecretsPath(dir), JSON.stringify(secrets));

    const logs: string[] = [];
    const db = await startEmbeddedDatabase({ dataDir: dir, log: (m) => logs.push(m) });
    try {
      const password = secretsOf(dir).postgresPassword!;
      expect(password).toMatch(/^[0-9A-Za-z]{32,}$/);
      expect(await canConnect(db.port, password)).toBe(true);
      expect(await canConnect(db.port, 'assay-local')).toBe(false);
      expect(logs.join('\n')).toMatch(/password/);
    } finally {
      await db.stop();
    }
  }, 90_000);
});
