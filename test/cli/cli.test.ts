import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freezeConfig, parseConfig } from '../../src/platform/config.js';
import { createPool, type Pool } from '../../src/platform/db.js';
import { findActiveKey } from '../../src/modules/institutions/api-keys.js';
import { DEMO_TESTS } from '../../src/demo/demo-tests.js';
import { runCli } from '../../src/cli/run-cli.js';
import { AUTO_TEST } from '../helpers/harness.js';
import { createTestDatabase } from '../helpers/database.js';

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, '../..');

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let pool: Pool;
let connects = 0;
let tmp: string;

beforeAll(async () => {
  db = await createTestDatabase();
  pool = createPool(db.url, 4);
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'assay-cli-'));
});
afterAll(async () => {
  await pool.end();
  await db.drop();
  fs.rmSync(tmp, { recursive: true, force: true });
});

/** Runs one command in-process against the test database; the pool stays open across commands. */
async function cli(...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const config = freezeConfig({ ...parseConfig({}), databaseUrl: db.url });
  const code = await runCli(argv, { out: (t) => out.push(t), err: (t) => err.push(t) }, async () => {
    connects++;
    return { pool, config, local: null, close: async () => undefined };
  });
  const stdout = out.join('\n');
  return { code, stdout, stderr: err.join('\n'), json: () => JSON.parse(stdout) };
}

function writeJson(name: string, value: unknown): string {
  const file = path.join(tmp, name);
  fs.writeFileSync(file, JSON.stringify(value));
  return file;
}

describe('operator CLI', () => {
  it('creates an institution with domains, a key that authenticates, a test, and publishes it', async () => {
    const created = await cli('create-institution', '--name', 'Gamma Institute', '--domain', 'gamma.example', '--domain', '*.lms.gamma.example');
    expect(created.code).toBe(0);
    const inst = created.json();
    expect(inst).toMatchObject({ name: 'Gamma Institute', status: 'active', callbackDomains: ['*.lms.gamma.example', 'gamma.example'] });
    expect(inst.institutionId).toMatch(/^ins_/);

    const key = await cli('create-key', inst.institutionId, '--label', 'integration');
    expect(key.code).toBe(0);
    expect(key.stderr).toContain('not shown again');
    const { apiKey, keyId } = key.json();
    expect(apiKey).toMatch(/^ak_live_[0-9A-Za-z]{32,}$/);
    expect((await findActiveKey(pool, apiKey))?.institutionId).toBe(inst.institutionId);

    const listed = await cli('list-keys', inst.institutionId);
    expect(listed.json().data).toEqual([expect.objectContaining({ keyId, label: 'integration', mode: 'live', revokedAt: null })]);
    expect(listed.stdout).not.toContain(apiKey);

    // --mode test: an ak_test_ key, test mode on the principal; an unknown mode is a usage error that creates nothing.
    const testKey = await cli('create-key', inst.institutionId, '--label', 'sandbox', '--mode', 'test');
    expect(testKey.code).toBe(0);
    expect(testKey.json()).toMatchObject({ mode: 'test', label: 'sandbox' });
    expect(testKey.json().apiKey).toMatch(/^ak_test_[0-9A-Za-z]{40}$/);
    expect((await findActiveKey(pool, testKey.json().apiKey))?.livemode).toBe(false);
    expect((await cli('create-key', inst.institutionId, '--mode', 'demo')).code).toBe(2);
    expect((await cli('list-keys', inst.institutionId)).json().data.map((k: { mode: string }) => k.mode)).toEqual(['live', 'test']);
    await cli('revoke-key', inst.institutionId, testKey.json().keyId);

    const test = await cli('create-test', writeJson('test.json', AUTO_TEST));
    expect(test.code).toBe(0);
    const { testId, version } = test.json();
    expect(version).toBe(1);
    expect((await cli('publish', testId, inst.institutionId)).code).toBe(0);
    expect((await cli('get-test', testId)).json().publishedTo).toEqual([inst.institutionId]);

    const updated = await cli('update-test', testId, writeJson('test-v2.json', { ...AUTO_TEST, title: 'Arithmetic, revised' }));
    expect(updated.json()).toMatchObject({ testId, version: 2, title: 'Arithmetic, revised' });

    expect((await cli('unpublish', testId, inst.institutionId)).code).toBe(0);
    expect((await cli('get-test', testId)).json().publishedTo).toEqual([]);

    expect((await cli('revoke-key', inst.institutionId, keyId)).code).toBe(0);
    expect(await findActiveKey(pool, apiKey)).toBeNull();
  });

  it('replaces, clears and lists callback domains, and suspends and reactivates', async () => {
    const { institutionId } = (await cli('create-institution', '--name', 'Delta School')).json();
    expect((await cli('set-domains', institutionId, 'delta.example', 'XN--BCHER-KVA.example')).json()).toEqual({
      domains: ['delta.example', 'xn--bcher-kva.example'],
    });
    expect((await cli('set-domains', institutionId, '--clear')).json()).toEqual({ domains: [] });
    expect((await cli('suspend', institutionId)).json().status).toBe('suspended');
    expect((await cli('get-institution', institutionId)).json().status).toBe('suspended');
    expect((await cli('activate', institutionId)).json().status).toBe('active');

    const page = await cli('list-institutions', '--limit', '100');
    expect(page.json().data.map((i: { institutionId: string }) => i.institutionId)).toContain(institutionId);
    expect(page.json()).toMatchObject({ limit: 100, offset: 0 });
  });

  it('seeds the demo once and hands out a new working key on each run with a database URL', async () => {
    const first = await cli('seed-demo');
    expect(first.code).toBe(0);
    const seed = first.json();
    expect(seed.testIds).toHaveLength(DEMO_TESTS.length);
    const again = (await cli('seed-demo')).json();
    expect(again.institutionId).toBe(seed.institutionId);
    expect(again.testIds).toEqual(seed.testIds);
    expect(again.apiKey).not.toBe(seed.apiKey);
    for (const key of [seed.apiKey, again.apiKey]) expect((await findActiveKey(pool, key))?.institutionId).toBe(seed.institutionId);
  });

  it('refuses bad arguments with exit code 2 before touching the database', async () => {
    const before = connects;
    const cases: string[][] = [
      ['no-such-command'],
      ['create-institution'],
      ['create-institution', '--name', ''],
      ['create-institution', '--name', 'x'.repeat(201)],
      ['create-institution', '--name', 'A', '--colour', 'red'],
      ['create-key'],
      ['create-key', 'ins_a', 'ins_b'],
      ['revoke-key', 'ins_a'],
      ['set-domains', 'ins_a'],
      ['set-domains', 'ins_a', 'a.example', '--clear'],
      ['list-institutions', '--limit', '101'],
      ['list-institutions', '--offset', '-1'],
      ['create-test', path.join(tmp, 'missing.json')],
      ['help', 'no-such-command'],
    ];
    for (const argv of cases) {
      const r = await cli(...argv);
      expect(r.code, argv.join(' ')).toBe(2);
      expect(r.stderr, argv.join(' ')).not.toBe('');
    }
    expect(connects).toBe(before);
  });

  it('reports domain errors with their code and message and exit code 1', async () => {
    expect(await cli('suspend', 'ins_missing')).toMatchObject({ code: 1, stderr: 'not_found: No such institution.' });
    expect(await cli('create-key', 'ins_missing')).toMatchObject({ code: 1, stderr: 'not_found: No such institution.' });
    expect((await cli('publish', 'tst_missing', 'ins_missing')).code).toBe(1);
    expect((await cli('create-institution', '--name', 'Bad', '--domain', 'https://x.example/')).stderr).toMatch(/^invalid_request: /);

    const notJson = path.join(tmp, 'broken.json');
    fs.writeFileSync(notJson, '{"title": ');
    expect(await cli('create-test', notJson)).toMatchObject({ code: 1, stderr: expect.stringMatching(/^invalid_request: .*not valid JSON/) });

    // Schema violations name every field, as the API's details do; authoring rules come from the tests service.
    const unknownField = await cli('create-test', writeJson('unknown.json', { ...AUTO_TEST, colour: 'red' }));
    expect(unknownField).toMatchObject({ code: 1, stderr: expect.stringContaining('colour is not a known field') });
    const essayInAuto = await cli(
      'create-test',
      writeJson('essay.json', { ...AUTO_TEST, questions: [{ type: 'essay', prompt: 'Why?', points: 1 }] }),
    );
    expect(essayInAuto).toMatchObject({ code: 1, stderr: expect.stringContaining('essay questions need manual or hybrid marking') });
  });

  it('lists each problem of a test file once', async () => {
    const file = writeJson('two-problems.json', { ...AUTO_TEST, colour: 'red', durationMinutes: 0 });
    const r = await cli('create-test', file);
    expect(r.code).toBe(1);
    expect(r.stderr.split('\n')[0]).toBe(`invalid_request: ${file} is not a valid test (2 problems):`);
    expect(r.stderr.match(/colour/g)).toHaveLength(1);
    expect(r.stderr.match(/durationMinutes/g)).toHaveLength(1);
    const one = await cli('create-test', writeJson('one-problem.json', { ...AUTO_TEST, colour: 'red' }));
    expect(one.stderr).toBe(`invalid_request: ${path.join(tmp, 'one-problem.json')}: colour is not a known field`);
    // The same over the service's own rules (several authoring problems at once).
    const rules = await cli('create-test', writeJson('rules.json', { ...AUTO_TEST, marking: 'manual', questions: [{ type: 'essay', prompt: 'Why?', points: 1 }] }));
    expect(rules.stderr.match(/after_review/g)).toHaveLength(1);
  });

  it('prints help with every command and exit code 0', async () => {
    const r = await cli('help');
    expect(r.code).toBe(0);
    for (const name of ['create-institution', 'set-domains', 'create-key', 'revoke-key', 'create-test', 'publish', 'seed-demo', 'migrate']) {
      expect(r.stdout).toContain(name);
    }
    expect((await cli('help', 'create-key')).stdout).toContain('printed this once');
    expect((await cli('create-key', '--help')).code).toBe(0);
  });
});

describe('bin/assay.js', () => {
  const env = {
    ...process.env,
    DATABASE_URL: '',
    ASSAY_ADMIN_TOKEN: 'cli-test-admin-token-0123456789',
    ASSAY_SECRET: 'cli-test-secret-0123456789abcdef0123456789',
  };

  it('runs a command against DATABASE_URL and exits 0', async () => {
    const { stdout } = await run(process.execPath, [path.join(ROOT, 'bin/assay.js'), 'create-institution', '--name', 'Process College'], {
      env: { ...env, DATABASE_URL: db.url },
      cwd: tmp,
    });
    expect(JSON.parse(stdout).name).toBe('Process College');
  });

  it('with DATABASE_URL needs neither ASSAY_ADMIN_TOKEN nor ASSAY_SECRET, unless the command uses one', async () => {
    const bare = { PATH: process.env.PATH, HOME: process.env.HOME, DATABASE_URL: db.url };
    const { stdout } = await run(process.execPath, [path.join(ROOT, 'bin/assay.js'), 'create-institution', '--name', 'Tokenless College'], { env: bare, cwd: tmp });
    expect(JSON.parse(stdout).name).toBe('Tokenless College');
    const reseal = await run(process.execPath, [path.join(ROOT, 'bin/assay.js'), 'reseal-secrets'], { env: bare, cwd: tmp }).catch((e) => e);
    expect(reseal.code).toBe(1);
    expect(reseal.stderr).toContain('ASSAY_SECRET');
  });

  it('exits 2 on bad arguments and 1 on a domain error', async () => {
    const usage = await run(process.execPath, [path.join(ROOT, 'bin/assay.js'), 'create-key'], { env, cwd: tmp }).catch((e) => e);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain('Usage: assay create-key');
    const refused = await run(process.execPath, [path.join(ROOT, 'bin/assay.js'), 'suspend', 'ins_missing'], {
      env: { ...env, DATABASE_URL: db.url },
      cwd: tmp,
    }).catch((e) => e);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('not_found');
  });
});
