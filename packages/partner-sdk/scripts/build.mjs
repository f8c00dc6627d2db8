#!/usr/bin/env node
// `npm run build`: the package twice from one source, ES modules in dist/esm and CommonJS in dist/cjs,
// each with its declarations. A package.json in each folder tells Node (and TypeScript) which module
// system the .js and .d.ts files beside it use, whatever the package's own "type" says.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';

const root = path.resolve(import.meta.dirname, '..');
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const dist = path.join(root, 'dist');

fs.rmSync(dist, { recursive: true, force: true });
for (const [config, type] of [['tsconfig.json', 'module'], ['tsconfig.cjs.json', 'commonjs']]) {
  execFileSync(process.execPath, [tsc, '-p', path.join(root, config)], { stdio: 'inherit' });
  const out = path.join(dist, type === 'module' ? 'esm' : 'cjs');
  fs.writeFileSync(path.join(out, 'package.json'), `${JSON.stringify({ type }, null, 2)}\n`);
}
process.stdout.write('built dist/esm and dist/cjs\n');
