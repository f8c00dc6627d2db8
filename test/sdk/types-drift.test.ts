import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createHarness, type Harness } from '../helpers/harness.js';

/**
 * The SDK's types are generated from the OpenAPI document the service
 * serves. This regenerates them from the document the app serves now, with
 * the generator and options of the package's `npm run generate`, and fails
 * when the committed file differs: a route's schema changed and the SDK was
 * not regenerated (`npm run generate` in packages/partner-sdk against a running service).
 */
const root = path.resolve(import.meta.dirname, '../..');
const committed = path.join(root, 'packages/partner-sdk/src/generated/openapi.ts');
let h: Harness;
let work: string;

beforeAll(async () => {
  h = await createHarness();
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'assay-sdk-types-'));
});
afterAll(async () => {
  await h.close();
  fs.rmSync(work, { recursive: true, force: true });
});

it('the committed SDK types are what the served OpenAPI document generates', async () => {
  const res = await h.app.inject({ method: 'GET', url: '/api/partner/v1/openapi.json' });
  expect(res.statusCode).toBe(200);
  const document = path.join(work, 'openapi.json');
  fs.writeFileSync(document, res.body);
  const generated = path.join(work, 'openapi.ts');
  execFileSync(process.execPath, [path.join(root, 'packages/partner-sdk/scripts/generate.mjs'), document, generated], { stdio: 'pipe' });
  const fresh = fs.readFileSync(generated, 'utf8');
  expect(fresh.length).toBeGreaterThan(1000);
  expect(fs.readFileSync(committed, 'utf8'), 'packages/partner-sdk/src/generated/openapi.ts is stale: run `npm run generate` in packages/partner-sdk').toBe(fresh);
}, 60_000);
