import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * `npm run build`: the TypeScript compiled to dist/ with the student pages'
 * assets beside it, runnable by plain node; `npm start` (bin/run.js) runs
 * that build when NODE_ENV=production and the TypeScript through tsx
 * otherwise, so a fresh clone starts without building.
 */
const ROOT = path.resolve(import.meta.dirname, '../..');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'assay-build-'));
// Built inside a folder of its own whose node_modules is this checkout's: built code resolves packages from where it lies.
const app = path.join(tmp, 'app');
const out = path.join(app, 'dist');
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));
const env = (extra: Record<string, string> = {}) => ({ PATH: process.env.PATH, HOME: process.env.HOME, ...extra });

beforeAll(() => {
  fs.mkdirSync(app);
  for (const name of ['node_modules', 'migrations', 'package.json']) fs.symlinkSync(path.join(ROOT, name), path.join(app, name));
  execFileSync(process.execPath, [path.join(ROOT, 'scripts/build.mjs'), out], { cwd: ROOT, stdio: 'pipe', timeout: 120_000 });
}, 150_000);

describe('npm run build', () => {
  it('writes JavaScript for every entry point and copies the page assets', () => {
    // The question types' browser parts sit in their folders, beside their TypeScript: the server bundles them at start.
    const typeParts = ['numeric/student.js', 'numeric/editor.js', 'hot-text/student.css', 'image-regions/portal.css'].map((f) => `modules/catalog/question-types/${f}`);
    // The message catalogues are read beside the code at run time, one per language.
    const catalogues = ['en', 'ar', 'zh-Hans'].map((tag) => `platform/i18n/messages/${tag}.json`);
    for (const f of ['main.js', 'worker-main.js', 'cli/index.js', 'server.js', 'modules/student/assets/student.js', 'modules/student/assets/test-saving.js', 'modules/student/assets/test-timer.js', 'modules/student/assets/test-status.js', 'modules/student/assets/i18n.js', 'modules/student/assets/student.css', ...typeParts, ...catalogues]) {
      expect(fs.existsSync(path.join(out, f)), f).toBe(true);
    }
    const files = fs.readdirSync(out, { recursive: true, encoding: 'utf8' });
    expect(files.filter((f) => f.endsWith('.ts'))).toEqual([]);
    expect(fs.readFileSync(path.join(out, 'modules/student/assets/student.js'), 'utf8')).toBe(
      fs.readFileSync(path.join(ROOT, 'src/modules/student/assets/student.js'), 'utf8'),
    );
  });

  it('runs under plain node, without tsx: the server loads every module and stops on a bad setting', () => {
    const run = spawnSync(process.execPath, [path.join(out, 'main.js')], { cwd: ROOT, env: env({ PORT: 'not-a-port' }), encoding: 'utf8', timeout: 30_000 });
    expect(run.status).toBe(78);
    expect(run.stderr).toContain('PORT');
    const help = spawnSync(process.execPath, [path.join(out, 'cli/index.js'), 'help'], { cwd: ROOT, env: env(), encoding: 'utf8', timeout: 30_000 });
    expect(help.status).toBe(0);
    expect(help.stdout).toContain('reseal-secrets');
  });

  it("runs the worker pool's threads from the built JavaScript: an import is parsed on a thread under plain node", () => {
    const script = [
      `import { readImport } from ${JSON.stringify(path.join(out, 'modules/catalog/interchange/import-service.js'))};`,
      `import { closeWorkerPool } from ${JSON.stringify(path.join(out, 'platform/worker-pool/shared-pool.js'))};`,
      "const csv = 'type,prompt,options,correct\\nsingle_choice,Two plus two?,3|4,2\\n';",
      "const { input, report } = await readImport({ bytes: Buffer.from(csv), format: 'csv', dryRun: true });",
      'process.stdout.write(JSON.stringify({ imported: report.imported, type: input.questions[0].type }));',
      'await closeWorkerPool();',
    ].join('\n');
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: app, env: env(), encoding: 'utf8', timeout: 30_000 });
    expect(run.stderr).toBe('');
    expect(JSON.parse(run.stdout)).toEqual({ imported: 1, type: 'single_choice' });
  });
});

describe('bin/run.js (npm start, npm run worker)', () => {
  /** A checkout of its own: this bin/, src/ and node_modules/, and a dist/ only when `withDist`. */
  function checkout(withDist: boolean): string {
    const dir = fs.mkdtempSync(path.join(tmp, 'checkout-'));
    fs.cpSync(path.join(ROOT, 'bin'), path.join(dir, 'bin'), { recursive: true });
    for (const name of ['src', 'node_modules', 'package.json', 'migrations']) fs.symlinkSync(path.join(ROOT, name), path.join(dir, name));
    if (withDist) {
      fs.cpSync(out, path.join(dir, 'dist'), { recursive: true });
      // A mark that only the built code writes.
      fs.appendFileSync(path.join(dir, 'dist/platform/config.js'), '\nprocess.stderr.write("loaded from dist\\n");\n');
    }
    return dir;
  }
  const start = (dir: string, nodeEnv?: string) =>
    spawnSync(process.execPath, [path.join(dir, 'bin/run.js'), 'main'], {
      cwd: dir,
      env: env({ PORT: 'not-a-port', ...(nodeEnv ? { NODE_ENV: nodeEnv } : {}) }),
      encoding: 'utf8',
      timeout: 30_000,
    });

  it('runs the TypeScript through tsx by default: a fresh clone starts without a build', () => {
    const run = start(checkout(false));
    expect(run.status, run.stderr).toBe(78);
    expect(run.stderr).toContain('PORT');
  });

  it('with NODE_ENV=production runs the built dist/, and says how to build it when there is none', () => {
    const built = start(checkout(true), 'production');
    expect(built.status, built.stderr).toBe(78);
    expect(built.stderr).toContain('loaded from dist');
    expect(start(checkout(true)).stderr).not.toContain('loaded from dist');
    const missing = start(checkout(false), 'production');
    expect(missing.status).toBe(1);
    expect(missing.stderr).toContain('npm run build');
  });
});
