import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../../src/platform/embedded-db.js';

/**
 * `npm start` in a terminal (a pseudo-terminal from util-linux `script`):
 * the banner comes first, then one short line per request, no JSON; the
 * development switch ASSAY_ALLOW_INSECURE_URLS is announced where it is seen.
 */
const ROOT = path.resolve(import.meta.dirname, '../..');
const TSX = path.join(ROOT, 'node_modules/.bin/tsx');
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'assay-tty-'));
afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

function childEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (k === 'DATABASE_URL' || k.startsWith('ASSAY_') || k === 'PORT' || k === 'HOST' || k === 'PUBLIC_BASE_URL' || k === 'LOG_LEVEL') continue;
    env[k] = v;
  }
  return { ...env, ASSAY_DATA_DIR: dataDir, ...extra };
}

describe.runIf(fs.existsSync('/usr/bin/script'))('npm start in a terminal', () => {
  it('prints the banner first, then one line per request, and says when insecure URLs are allowed', async () => {
    const port = await freePort();
    const child = spawn('script', ['-qfec', `${TSX} src/main.ts`, '/dev/null'], {
      cwd: ROOT,
      env: childEnv({ PORT: String(port), ASSAY_ALLOW_INSECURE_URLS: '1' }),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      const deadline = Date.now() + 90_000;
      while (!/Read it back/.test(out)) {
        if (child.exitCode !== null || Date.now() > deadline) throw new Error(`no banner:\n${out}`);
        await new Promise((r) => setTimeout(r, 100));
      }
      const key = /Demo API key: (ak_live_[0-9A-Za-z]+)/.exec(out)![1]!;
      expect((await fetch(`http://127.0.0.1:${port}/api/partner/v1/tests`, { headers: { authorization: `Bearer ${key}` } })).status).toBe(200);
      expect((await fetch(`http://127.0.0.1:${port}/api/partner/v1/tests`)).status).toBe(401);
      const wait = Date.now() + 10_000;
      while (!/ 401 .*unauthenticated/.test(out) && Date.now() < wait) await new Promise((r) => setTimeout(r, 100));
    } finally {
      child.kill('SIGTERM');
      await exited;
    }
    const lines = out.replace(/\r/g, '').split('\n');
    const banner = lines.findIndex((l) => l.startsWith('Assay is running at'));
    const firstLog = lines.findIndex((l) => /^\d\d:\d\d:\d\d {2}/.test(l));
    expect(banner, out).toBeGreaterThanOrEqual(0);
    expect(firstLog, out).toBeGreaterThan(banner);
    expect(lines.filter((l) => l.startsWith('{'))).toEqual([]);
    expect(lines.some((l) => /^\d\d:\d\d:\d\d {2}GET \/api\/partner\/v1\/tests {2}200 {2}[\d.]+ ms$/.test(l)), out).toBe(true);
    expect(lines.some((l) => /^\d\d:\d\d:\d\d {2}GET \/api\/partner\/v1\/tests {2}401 {2}[\d.]+ ms {2}unauthenticated$/.test(l)), out).toBe(true);
    expect(lines.slice(0, firstLog).join('\n')).toMatch(/ASSAY_ALLOW_INSECURE_URLS is on/);
    expect(out).not.toMatch(/incoming request|request completed/);
  }, 150_000);
});
