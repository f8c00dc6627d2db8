import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * The SDK as a partner installs it: `npm pack` (which builds it) gives a
 * tarball holding the ES module and CommonJS builds with their
 * declarations, and an app can `import` and `require` it, and typecheck
 * against it in either module system.
 */
const root = path.resolve(import.meta.dirname, '../..');
const pkgDir = path.join(root, 'packages/partner-sdk');
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
let work: string;
let files: string[];

beforeAll(() => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'assay-sdk-pack-'));
  const out = execFileSync(npm, ['pack', '--json', '--pack-destination', work], { cwd: pkgDir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  const [info] = JSON.parse(out.slice(out.indexOf('['))) as Array<{ filename: string; files: Array<{ path: string }> }>;
  files = info!.files.map((f) => f.path);
  // Installed as npm would: the package under node_modules, its one dependency beside it.
  const installed = path.join(work, 'node_modules/@assay/partner-sdk');
  fs.mkdirSync(installed, { recursive: true });
  execFileSync('tar', ['-xzf', path.join(work, info!.filename), '-C', installed, '--strip-components=1']);
  fs.symlinkSync(path.join(root, 'node_modules/standardwebhooks'), path.join(work, 'node_modules/standardwebhooks'));
}, 120_000);
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

const run = (args: string[]) => execFileSync(process.execPath, args, { cwd: work, encoding: 'utf8' }).trim();

describe('the packed SDK', () => {
  it('holds both builds with declarations, the README, and no sources or tests', () => {
    for (const f of ['package.json', 'README.md', 'dist/esm/index.js', 'dist/esm/index.d.ts', 'dist/esm/package.json', 'dist/cjs/index.js', 'dist/cjs/index.d.ts', 'dist/cjs/package.json']) {
      expect(files).toContain(f);
    }
    expect(files.filter((f) => f.startsWith('src/') || f.startsWith('scripts/'))).toEqual([]);
  });

  it('can be required (CommonJS) and imported (ES module), the same API both ways', () => {
    const probe = `const a = new m.Assay({ apiKey: 'ak_test_x', baseUrl: 'http://127.0.0.1:1' });
      console.log(JSON.stringify([typeof m.verifyWebhook, typeof a.assignments.create, typeof a.events.listAll, new m.AssayNotFoundError({ status: 404, code: 'not_found', message: 'x' }) instanceof m.AssayError]))`;
    const cjs = run(['-e', `const m = require('@assay/partner-sdk'); ${probe}; console.log(require.resolve('@assay/partner-sdk'))`]).split('\n');
    const esm = run(['--input-type=module', '-e', `import * as m from '@assay/partner-sdk'; ${probe}; console.log(import.meta.resolve('@assay/partner-sdk'))`]).split('\n');
    expect(JSON.parse(cjs[0]!)).toEqual(['function', 'function', 'function', true]);
    expect(JSON.parse(esm[0]!)).toEqual(['function', 'function', 'function', true]);
    expect(cjs[1]).toMatch(/dist\/cjs\/index\.js$/);
    expect(esm[1]).toMatch(/dist\/esm\/index\.js$/);
  });

  it('typechecks a consumer in either module system', () => {
    const consumer = `import { Assay, type Assignment } from '@assay/partner-sdk';
      export async function status(id: string): Promise<Assignment['status']> {
        return (await new Assay({ apiKey: 'k', baseUrl: 'http://x' }).assignments.get(id)).status;
      }\n`;
    fs.writeFileSync(path.join(work, 'consumer.mts'), consumer);
    fs.writeFileSync(path.join(work, 'consumer.cts'), consumer);
    const tsc = path.join(root, 'node_modules/typescript/bin/tsc');
    const common = ['--noEmit', '--strict', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--types', 'node', '--typeRoots', path.join(root, 'node_modules/@types')];
    run([tsc, ...common, 'consumer.mts', 'consumer.cts']);
  }, 60_000);
});
