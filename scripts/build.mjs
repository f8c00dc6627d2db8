#!/usr/bin/env node
// `npm run build`: compiles src/ to dist/ (or the folder given) with tsc, and copies what the code
// reads from beside itself at run time: every `assets` folder's files (the student pages', the portal's,
// the staff pages' scripts and stylesheets), TypeScript sources excepted, and the question types' browser
// parts (each type's folder under catalog/question-types/ holds its page and editor scripts and styles), and the
// message catalogues (platform/i18n/messages/<locale>.json). The migrations
// stay in migrations/, which dist/platform/migrate.js finds at the same relative place as the source.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const out = path.resolve(process.argv[2] ?? path.join(root, 'dist'));

fs.rmSync(out, { recursive: true, force: true });
execFileSync(process.execPath, [path.join(root, 'node_modules/typescript/bin/tsc'), '-p', path.join(root, 'tsconfig.build.json'), '--outDir', out], {
  stdio: 'inherit',
});
const src = path.join(root, 'src');
const TYPES = path.join('modules', 'catalog', 'question-types');
const MESSAGES = path.join('platform', 'i18n', 'messages');
for (const rel of fs.readdirSync(src, { recursive: true, encoding: 'utf8' })) {
  if ((rel.startsWith(TYPES) && /\.(js|css)$/.test(rel)) || (rel.startsWith(MESSAGES) && rel.endsWith('.json'))) {
    fs.cpSync(path.join(src, rel), path.join(out, rel));
    continue;
  }
  if (path.basename(rel) !== 'assets' || !fs.statSync(path.join(src, rel)).isDirectory()) continue;
  fs.cpSync(path.join(src, rel), path.join(out, rel), { recursive: true, filter: (from) => !from.endsWith('.ts') });
}
process.stdout.write(`built ${path.relative(root, out) || out}\n`);
