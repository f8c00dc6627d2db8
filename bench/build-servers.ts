import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '..');
/** Where the compiled servers go: inside the checkout, so that Node finds node_modules from there. */
export const BUILD_DIR = path.join(ROOT, 'bench', '.build');

/**
 * Compiles bench/servers.ts and everything it imports (the app's source
 * included) with tsc into bench/.build, as `npm run build` compiles the app
 * for production, and returns the compiled servers' path. The app's pages'
 * files and message catalogues are copied by `npm run build` itself (into
 * .build/src), and the migrations are linked where the compiled migrate.js
 * looks for them. Run through tsx instead, every function the app creates
 * per request would be wrapped to keep its name (esbuild's keepNames), a cost
 * production does not pay.
 */
export function buildBenchServers(): string {
  const started = Date.now();
  fs.rmSync(BUILD_DIR, { recursive: true, force: true });
  const quiet = { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] as ['ignore', 'ignore', 'inherit'] };
  execFileSync(process.execPath, [path.join(ROOT, 'scripts/build.mjs'), path.join(BUILD_DIR, 'src')], quiet);
  execFileSync(process.execPath, [path.join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', path.join(ROOT, 'bench/tsconfig.servers.json')], quiet);
  fs.symlinkSync(path.join(ROOT, 'migrations'), path.join(BUILD_DIR, 'migrations'));
  process.stdout.write(`compiled the bench servers with tsc in ${((Date.now() - started) / 1000).toFixed(0)} s (bench/.build)\n`);
  return path.join(BUILD_DIR, 'bench', 'servers.js');
}
