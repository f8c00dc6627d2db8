import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * Compiling the largest body schema (a test's questions) leaves V8's hidden
 * class for `{}` with as many transitions as it keeps; until a full
 * collection clears them, every object built key by key gets a hidden class
 * of its own, outlives the next young collection and is promoted
 * (platform/settle-heap.ts). Run in a child with `--allow-natives-syntax`,
 * which asks V8 whether two such objects share their hidden class.
 */
const ROOT = path.resolve(import.meta.dirname, '../..');

function sharesHiddenClass(settle: boolean): boolean {
  const code = `
    import { createHttp } from './src/platform/http/create-http.ts';
    import { TestInput } from './src/modules/catalog/schemas.ts';
    import { settleHeapOnceReady } from './src/platform/settle-heap.ts';
    const same = new Function('a', 'b', 'return %HaveSameMap(a, b)');
    const app = createHttp({ logLevel: 'warn', logger: false });
    app.post('/tests', { schema: { body: TestInput } }, async () => ({}));
    if (${settle}) await settleHeapOnceReady(app); else await app.ready();
    const key = 'k' + Math.random().toString(36).slice(2);
    const a = {}; a[key] = 1;
    const b = {}; b[key] = 2;
    process.stdout.write(JSON.stringify(same(a, b)));
    await app.close();`;
  const out = execFileSync(process.execPath, ['--allow-natives-syntax', '--expose-gc', '--import', 'tsx', '--input-type=module', '-e', code], { cwd: ROOT, encoding: 'utf8' });
  return JSON.parse(out) as boolean;
}

describe('settling the heap once the app is ready', () => {
  it('without it, objects built key by key after the schemas compile each get a hidden class of their own', () => {
    expect(sharesHiddenClass(false)).toBe(false);
  });

  it('with it, they share one again', () => {
    expect(sharesHiddenClass(true)).toBe(true);
  });
});
