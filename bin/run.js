#!/usr/bin/env node
// `npm start` and `npm run worker`: runs an entry point of this checkout in this process. With
// NODE_ENV=production it runs the JavaScript `npm run build` wrote to dist/; otherwise the TypeScript
// source through tsx's loader, so a fresh clone starts without a build step.
import fs from 'node:fs';

const ENTRIES = { main: 'main', worker: 'worker-main' };
const entry = ENTRIES[process.argv[2] ?? ''];
if (!entry) {
  process.stderr.write(`usage: bin/run.js ${Object.keys(ENTRIES).join('|')}\n`);
  process.exit(2);
}
if (process.env.NODE_ENV === 'production') {
  const built = new URL(`../dist/${entry}.js`, import.meta.url);
  if (!fs.existsSync(built)) {
    process.stderr.write(`NODE_ENV=production runs the built code, and there is no dist/${entry}.js: run \`npm run build\` first.\n`);
    process.exit(1);
  }
  await import(built.href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import(new URL(`../src/${entry}.ts`, import.meta.url).href);
}
