// First: with OTEL_* tracing on, the SDK must be in place before the app's modules load.
import { flushTracing } from './platform/telemetry/start-tracing.js';
import { bootProcess } from './platform/boot.js';
import { saveLocalSecrets } from './platform/local-secrets.js';
import { createLogger, INSECURE_URLS_NOTICE, stdoutIsTerminal } from './platform/log/log.js';
import { buildServer, serverContext, PARTNER_PREFIX } from './server.js';
import { startWorker } from './worker.js';
import { DEMO_ADMIN_EMAIL, DEMO_OPERATOR_EMAIL, seedDemo, type DemoSeed } from './demo/seed-demo.js';
import { issueSignInLink, signInUrl } from './modules/staff/sign-in-links.js';
import { startMetricsServer } from './platform/telemetry/metrics.js';
import { startReadPools } from './platform/read-replica.js';
import { startByteThread } from './platform/byte-thread.js';
import { settleHeapOnceReady } from './platform/settle-heap.js';

/**
 * `npm start`: the API and the background worker in one process. With no
 * DATABASE_URL it runs on the embedded PostgreSQL and seeds the demo.
 */
// What starting the embedded database has to say goes to the log, after the banner on a terminal.
const notes: string[] = [];
const booted = await bootProcess({ allowStartEmbedded: true, log: (note) => notes.push(note) }).catch((err: unknown) => {
  for (const note of notes) process.stderr.write(`${note}\n`);
  throw err;
});
const { config, pool } = booted;
const logger = createLogger({ level: config.logLevel, pretty: stdoutIsTerminal() });
for (const note of notes) logger.info(note);
if (config.allowInsecureUrls) logger.warn(INSECURE_URLS_NOTICE);
// Statistics, exports, the candidate report and the portal's lists read from the replica when there is one.
const reads = startReadPools(config, pool, logger);
const ctx = serverContext({ config, pool, clock: booted.clock, reads });

let demo: DemoSeed | null = null;
if (booted.local) {
  demo = await seedDemo(pool, booted.local.demoApiKey, booted.local.demoTestApiKey);
  if (demo.apiKeyIsNew || demo.testApiKeyIsNew) {
    saveLocalSecrets(config.dataDir, { ...booted.local, demoApiKey: demo.apiKey, demoTestApiKey: demo.testApiKey });
  }
}

const app = await buildServer(ctx, { logger });
// The uploads' thread (platform/byte-thread.ts) starts now, not in the first upload burst.
startByteThread();
const worker = config.runWorker ? await startWorker(ctx, booted.sessionUrl, logger) : null;
const metricsServer = await startMetricsServer(config, pool);
try {
  // Booting's garbage is collected before the first request, not by the first full collection under load:
  // once the app is ready, so that what compiling its routes' schemas leaves is collected too. (Inside the
  // try: a plugin failing at ready is reported and the database shut down, as when listen made it ready.)
  await settleHeapOnceReady(app);
  await app.listen({ port: config.port, host: config.host });
} catch (err) {
  logger.pretty?.release();
  app.log.error({ err }, `could not listen on ${config.host}:${config.port} (set PORT to another port)`);
  await worker?.stop();
  await booted.shutdownDatabase();
  process.exit(1);
}

if (demo) {
  // Fresh at every start: single use, 15 minutes, like a mailed link (the portal's sign-in page sends new ones).
  const link = async (staffId: string) =>
    signInUrl(ctx, (await issueSignInLink(pool, { staffId, next: null, now: booted.clock.now() })).token);
  printBanner(demo, { operator: await link(demo.operatorStaffId), admin: await link(demo.adminStaffId) });
}
// On a terminal the log was held back until now: the banner is the first thing on the screen.
logger.pretty?.release();

let closing = false;
async function shutdown(signal: string) {
  if (closing) return;
  closing = true;
  app.log.info({ signal }, 'shutting down: no new requests, finishing in-flight ones');
  const force = setTimeout(() => process.exit(1), 25_000).unref();
  await app.close(); // stops accepting, waits for in-flight requests
  await worker?.stop(); // waits for running jobs
  await metricsServer?.close();
  await reads?.stop();
  await booted.shutdownDatabase(); // closes the pool, stops the embedded database
  await flushTracing();
  clearTimeout(force);
  process.exit(0);
}
process.on('SIGTERM', () => void shutdown('SIGTERM'));
process.on('SIGINT', () => void shutdown('SIGINT'));
process.on('SIGHUP', () => void shutdown('SIGHUP'));

function printBanner(seed: DemoSeed, links: { operator: string; admin: string }) {
  const base = config.publicBaseUrl;
  const auth = `-H "Authorization: Bearer ${seed.apiKey}"`;
  const testAuth = `-H "Authorization: Bearer ${seed.testApiKey}"`;
  const body = JSON.stringify({
    externalUserId: 'student-42',
    testId: seed.testIds[0],
    user: { email: 'ada@partner.example', name: 'Ada Lovelace' },
    callbackUrl: 'https://partner.example/assay/return',
    metadata: { course: 'MATH-101' },
  });
  process.stdout.write(
    [
      '',
      `Assay is running at ${base}  (embedded PostgreSQL, data in ${config.dataDir})`,
      ...(config.allowInsecureUrls ? ['', `!! ${INSECURE_URLS_NOTICE}`] : []),
      '',
      `Demo institution: Demo University   Demo API key: ${seed.apiKey}`,
      `Demo test-mode API key: ${seed.testApiKey}  (a sandbox: its own assignments, events and webhook endpoints)`,
      `Operator token (ASSAY_ADMIN_TOKEN): ${config.adminToken}`,
      `API docs: ${base}/docs`,
      '',
      `Portal: ${base}/portal  (sign-in links below work once, for 15 minutes; ask for new ones on the sign-in page,`,
      `  they are written to this log while ASSAY_SMTP_URL is not set)`,
      `  Operator (${DEMO_OPERATOR_EMAIL}):  ${links.operator}`,
      `  Demo University admin (${DEMO_ADMIN_EMAIL}):  ${links.admin}`,
      '',
      'List the demo tests:',
      `  curl -s ${base}${PARTNER_PREFIX}/tests ${auth}`,
      '',
      'Assign the first one to a student (prints a startUrl to open in a browser):',
      `  curl -s -X POST ${base}${PARTNER_PREFIX}/assignments ${auth} -H "Content-Type: application/json" -H "Idempotency-Key: demo-assignment-1" -d '${body}'`,
      '',
      'Read it back (use the assignmentId from the answer above):',
      `  curl -s ${base}${PARTNER_PREFIX}/assignments/ASSIGNMENT_ID ${auth}`,
      '',
      'Test mode: assign with the test-mode key, then play the student\'s steps (start, submit, violation, finish_marking, expire):',
      `  curl -s -X POST ${base}${PARTNER_PREFIX}/assignments ${testAuth} -H "Content-Type: application/json" -d '${body}'`,
      'Simulate the student beginning (use the assignmentId from the answer above; then "submit" with "score": 80):',
      `  curl -s -X POST ${base}${PARTNER_PREFIX}/assignments/TEST_ASSIGNMENT_ID/simulate ${testAuth} -H "Content-Type: application/json" -d '{"action":"start"}'`,
      '',
    ].join('\n') + '\n',
  );
}
