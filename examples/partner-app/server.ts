import path from 'node:path';
import { Assay } from '../../packages/partner-sdk/src/index.js';
import { createPartnerApp } from './app.js';

/**
 * `ASSAY_API_KEY=ak_test_… npm run example`: the example LMS against a
 * running Assay (ASSAY_BASE_URL, default http://localhost:3000), on PORT
 * (default 4000), reachable at PUBLIC_URL (default http://localhost:PORT),
 * its records in PARTNER_APP_DATA (default examples/partner-app/data/state.json).
 */
const apiKey = process.env.ASSAY_API_KEY;
if (!apiKey) {
  process.stderr.write('Set ASSAY_API_KEY to an Assay API key (a test-mode key, ak_test_…, is meant for this app).\n');
  process.exit(1);
}
if (!apiKey.startsWith('ak_test_')) process.stderr.write('Note: this is not a test-mode key; assignments made here are live ones.\n');
const port = Number(process.env.PORT ?? 4000);
const publicUrl = process.env.PUBLIC_URL ?? `http://localhost:${port}`;
const app = createPartnerApp({
  assay: new Assay({ apiKey, baseUrl: process.env.ASSAY_BASE_URL ?? 'http://localhost:3000' }),
  publicUrl,
  dataFile: process.env.PARTNER_APP_DATA ?? path.join(import.meta.dirname, 'data/state.json'),
  testMode: apiKey.startsWith('ak_test_'),
});
try {
  await app.start(port, process.env.HOST ?? '127.0.0.1');
} catch (err) {
  process.stderr.write(`Could not start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
}
process.stdout.write(`Riverside LMS (example partner app) at ${publicUrl}\n`);
const stop = () => void app.close().then(() => process.exit(0));
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
