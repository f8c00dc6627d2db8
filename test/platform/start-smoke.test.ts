import { execFile, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../../src/platform/embedded-db.js';
import { DEMO_TESTS } from '../../src/demo/demo-tests.js';

/**
 * `npm start` as a newcomer runs it: no DATABASE_URL, so the service starts
 * its own embedded PostgreSQL in ASSAY_DATA_DIR, seeds the demo and prints
 * the key and curl lines. Runs the same whether or not the suite itself has
 * a DATABASE_URL (the child never sees it).
 */
const ROOT = path.resolve(import.meta.dirname, '../..');
const TSX = path.join(ROOT, 'node_modules/.bin/tsx');
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'assay-start-'));
const running = new Set<ChildProcess>();

afterAll(async () => {
  // Only reached with a child still running when a test failed midway.
  for (const child of running) {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
  }
  fs.rmSync(dataDir, { recursive: true, force: true });
});

function childEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (k === 'DATABASE_URL' || k.startsWith('ASSAY_') || k === 'PORT' || k === 'HOST' || k === 'PUBLIC_BASE_URL') continue;
    env[k] = v;
  }
  return { ...env, ASSAY_DATA_DIR: dataDir, LOG_LEVEL: 'warn', ...extra };
}

interface Started {
  child: ChildProcess;
  base: string;
  apiKey: string;
  postLine: string;
  output(): string;
}

async function start(): Promise<Started> {
  const port = await freePort();
  const child = spawn(TSX, ['src/main.ts'], { cwd: ROOT, env: childEnv({ PORT: String(port) }), stdio: ['ignore', 'pipe', 'pipe'] });
  running.add(child);
  child.once('exit', () => running.delete(child));
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const deadline = Date.now() + 90_000;
  while (!/Read it back/.test(out)) {
    if (child.exitCode !== null) throw new Error(`npm start exited with ${child.exitCode}:\n${out}`);
    if (Date.now() > deadline) throw new Error(`no banner within 90 s:\n${out}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  const apiKey = /Demo API key: (ak_live_[0-9A-Za-z]+)/.exec(out)?.[1];
  const postLine = out.split('\n').find((l) => l.trim().startsWith('curl -s -X POST'));
  if (!apiKey || !postLine) throw new Error(`banner without a key or curl line:\n${out}`);
  return { child, base: `http://127.0.0.1:${port}`, apiKey, postLine: postLine.trim(), output: () => out };
}

async function stop(s: Started): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    s.child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  s.child.kill('SIGTERM');
  return exited;
}

/** Replays the printed `curl -X POST … -H … -d '…'` line with fetch: its headers and body as printed. */
async function replayCurl(line: string, base: string) {
  const url = /-X POST (\S+)/.exec(line)![1]!.replace(/^http:\/\/localhost:\d+/, base);
  const headers = Object.fromEntries([...line.matchAll(/-H "([^:]+): ([^"]+)"/g)].map((m) => [m[1]!, m[2]!]));
  const body = /-d '([^']+)'/.exec(line)![1]!;
  return fetch(url, { method: 'POST', headers, body });
}

/** Follows the banner's sign-in link for `email` as a browser would: the link's page, then its Sign in button. */
async function signInFromBanner(s: Started, email: string) {
  const line = s.output().split('\n').find((l) => l.includes(`(${email}):`));
  const link = /(http:\/\/\S+\/portal\/sign-in\/link\/[0-9A-Za-z]{43})/.exec(line ?? '')?.[1];
  if (!link) throw new Error(`no sign-in link for ${email} in the banner:\n${s.output()}`);
  const url = link.replace(/^http:\/\/localhost:\d+/, s.base);
  const page = await fetch(url);
  expect(page.status).toBe(200);
  const pre = /assay_portal_pre=([^;]+)/.exec(page.headers.get('set-cookie') ?? '')![1]!;
  const csrf = /name="csrf" value="([^"]+)"/.exec(await page.text())![1]!;
  const signIn = await fetch(url, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: `assay_portal_pre=${pre}` },
    body: new URLSearchParams({ csrf }).toString(),
  });
  expect(signIn.status).toBe(303);
  const session = /assay_portal=([^;]+)/.exec(signIn.headers.get('set-cookie') ?? '')![1]!;
  const account = await fetch(`${s.base}/portal/account`, { headers: { cookie: `assay_portal=${session}` } });
  expect(account.status).toBe(200);
  expect(await account.text()).toContain(email);
}

describe('npm start on the embedded default', () => {
  it('starts from an empty data dir, serves the demo with the printed key and curl line, keeps the key across a restart, and stops cleanly on SIGTERM', async () => {
    const first = await start();
    expect((await fetch(`${first.base}/readyz`)).status).toBe(200);
    await signInFromBanner(first, 'operator@assay.local');
    await signInFromBanner(first, 'admin@demo-university.example');

    const list = await fetch(`${first.base}/api/partner/v1/tests`, { headers: { authorization: `Bearer ${first.apiKey}` } });
    expect(list.status).toBe(200);
    const tests = (await list.json()) as { data: { marking: string; resultVisibility: string; proctoring: string }[]; total: number };
    expect(tests.total).toBe(DEMO_TESTS.length);
    expect(tests.data.some((t) => t.marking === 'auto' && t.resultVisibility === 'immediate')).toBe(true);
    expect(tests.data.some((t) => t.marking === 'hybrid' && t.resultVisibility === 'after_review')).toBe(true);
    expect(tests.data.some((t) => t.proctoring !== 'none')).toBe(true);

    const created = await replayCurl(first.postLine, first.base);
    expect(created.status).toBe(201);
    const assignment = (await created.json()) as { assignmentId: string; status: string; startUrl: string };
    expect(assignment.status).toBe('assigned');
    expect(assignment.startUrl).toMatch(/\/s\/\S+/);

    // The CLI finds the embedded database this running service uses instead of starting its own.
    const { stdout } = await promisify(execFile)(process.execPath, [path.join(ROOT, 'bin/assay.js'), 'list-institutions'], {
      cwd: ROOT,
      env: childEnv({}),
    });
    expect(JSON.parse(stdout).data.map((i: { name: string }) => i.name)).toContain('Demo University');

    expect(await stop(first)).toEqual({ code: 0, signal: null });
    expect(fs.existsSync(path.join(dataDir, 'embedded.json'))).toBe(false);
    expect(fs.existsSync(path.join(dataDir, 'pg', 'postmaster.pid'))).toBe(false);

    const second = await start();
    expect(second.apiKey).toBe(first.apiKey);
    const read = await fetch(`${second.base}/api/partner/v1/assignments/${assignment.assignmentId}`, {
      headers: { authorization: `Bearer ${first.apiKey}` },
    });
    expect(read.status).toBe(200);
    // The same Idempotency-Key as the printed line: replayed, not a second assignment.
    const replay = await replayCurl(second.postLine, second.base);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(((await replay.json()) as { assignmentId: string }).assignmentId).toBe(assignment.assignmentId);

    expect(await stop(second)).toEqual({ code: 0, signal: null });
    expect(fs.existsSync(path.join(dataDir, 'pg', 'postmaster.pid'))).toBe(false);
  }, 180_000);
});
