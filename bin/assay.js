#!/usr/bin/env node
// `npx assay …`: the operator CLI. With NODE_ENV=production (and a build) it runs dist/, otherwise the
// TypeScript straight from the checkout through tsx's loader (no build step needed).
import fs from 'node:fs';

const built = new URL('../dist/cli/index.js', import.meta.url);
if (process.env.NODE_ENV === 'production' && fs.existsSync(built)) {
  await import(built.href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import(new URL('../src/cli/index.ts', import.meta.url).href);
}
