import fs from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';

/**
 * Where a thread finds a module: the built `.js` when it exists (dist/, run
 * by plain node), else the `.ts` source beside it (npm start without a
 * build, the test suite, the benches), which a thread can only load once
 * tsx's loader is registered in it. Callers name the module as the built
 * code does (`new URL('./x.js', import.meta.url)`), so one line serves both.
 */
export interface ThreadModule {
  url: string;
  /** tsx's ESM API (`register()`), for a thread that must load TypeScript; null for built code. */
  tsxApi: string | null;
}

export function threadModule(url: URL): ThreadModule {
  if (url.protocol !== 'file:' || !url.pathname.endsWith('.js')) throw new Error(`a thread module is a file: URL ending in .js, got ${url.href}`);
  if (fs.existsSync(fileURLToPath(url))) return { url: url.href, tsxApi: null };
  const source = new URL(url.href.replace(/\.js$/, '.ts'));
  if (!fs.existsSync(fileURLToPath(source))) throw new Error(`neither ${url.href} nor its .ts source exists`);
  return { url: source.href, tsxApi: tsxApiUrl() };
}

let tsxApi: string | null = null;

/** The file URL of `tsx/esm/api` (its ESM build, found through tsx's own exports map). */
function tsxApiUrl(): string {
  if (tsxApi) return tsxApi;
  const require = createRequire(import.meta.url);
  const pkgPath = require.resolve('tsx/package.json');
  const pkg = JSON.parse(fs.readFileSync(pkgPath, 'utf8')) as { exports: Record<string, { import: { default: string } }> };
  const entry = pkg.exports['./esm/api']?.import.default;
  if (!entry) throw new Error('tsx/esm/api is not exported by the installed tsx');
  tsxApi = pathToFileURL(fileURLToPath(new URL(entry, pathToFileURL(pkgPath)))).href;
  return tsxApi;
}
