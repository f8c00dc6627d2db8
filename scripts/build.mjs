#!/usr/bin/env node
// `npm run build`: compiles src/ to dist/ (or the folder given) with tsc, and copies what the code
// reads from beside itself at run time: the student pages' script and stylesheet. The migrations
// stay in migrations/, which dist/platform/migrate.js finds at the same relative place as the source.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const out = path.resolve(process.argv[2] ?? path.join(root, 'dist'));
const ASSETS = 'modules/attempts/pages/assets';

fs.rmSync(out, { recursive: true, force: true });
execFileSync(process.execPath, [path.join(root, 'node_modules/typescript/bin/tsc'), '-p', path.join(root, 'tsconfig.build.json'), '--outDir', out], {
  stdio: 'inherit',
});
fs.cpSync(path.join(root, 'src', ASSETS), path.join(out, ASSETS), { recursive: true });
process.stdout.write(`built ${path.relative(root, out) || out}\n`);
