#!/usr/bin/env node
// `npm run generate`: regenerates src/generated/openapi.ts from the OpenAPI document a running Assay serves
// (ASSAY_BASE_URL, default http://localhost:3000), or from a saved copy given as the first argument
// (a second argument writes elsewhere: the root test suite's drift check uses it).
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { createRequire } from 'node:module';

const root = path.resolve(import.meta.dirname, '..');
const source = process.argv[2] ?? `${(process.env.ASSAY_BASE_URL ?? 'http://localhost:3000').replace(/\/$/, '')}/api/partner/v1/openapi.json`;
const target = path.resolve(process.argv[3] ?? path.join(root, 'src/generated/openapi.ts'));
// The package's exports map sends `…/bin/cli.js` to a file that does not exist; its package.json locates it.
const cli = path.join(path.dirname(createRequire(import.meta.url).resolve('openapi-typescript/package.json')), 'bin/cli.js');
execFileSync(process.execPath, [cli, source, '-o', target], { stdio: 'inherit' });
