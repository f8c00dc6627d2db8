#!/usr/bin/env node
// `npm run generate`: regenerates src/generated/openapi.ts from the OpenAPI document a running Assay serves
// (ASSAY_BASE_URL, default http://localhost:3000), or from a saved copy given as the first argument.
// The root test suite fails when the committed file differs from what this produces for the current service.
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { createRequire } from 'node:module';

const root = path.resolve(import.meta.dirname, '..');
const source = process.argv[2] ?? `${(process.env.ASSAY_BASE_URL ?? 'http://localhost:3000').replace(/\/$/, '')}/api/partner/v1/openapi.json`;
const cli = createRequire(import.meta.url).resolve('openapi-typescript/bin/cli.js');
execFileSync(process.execPath, [cli, source, '-o', path.join(root, 'src/generated/openapi.ts')], { stdio: 'inherit' });
