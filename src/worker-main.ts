// First: with OTEL_* tracing on, the SDK must be in place before the app's modules load.
import { flushTracing } from './platform/telemetry/start-tracing.js';
import { bootProcess } from './platform/boot.js';
import { createLogger, INSECURE_URLS_NOTICE, stdoutIsTerminal } from './platform/log/log.js';
import { startWorker } from './worker.js';
import { startMetricsServer } from './platform/telemetry/metrics.js';

/**
 * `npm run worker`: background work only (expiry, auto-submit, deliveries,
 * purges), for scaling workers apart from the API. Needs DATABASE_URL, or an
 * embedded database that `npm start` is already running in this checkout.
 */
const booted = await bootProcess({ allowStartEmbedded: false });
// The same logger as the API's: JSON lines, or short readable ones on a terminal.
const log = createLogger({ level: booted.config.logLevel, pretty: stdoutIsTerminal() });
log.pretty?.release();
if (booted.config.allowInsecureUrls) log.warn(INSECURE_URLS_NOTICE);
const worker = await startWorker({ config: booted.config, pool: booted.pool, clock: booted.clock }, booted.sessionUrl, log);
log.info({ workerId: worker.workerId }, 'worker started');
const metricsServer = await startMetricsServer(booted.config, booted.pool);

async function shutdown() {
  await worker.stop();
  await metricsServer?.close();
  await booted.shutdownDatabase();
  await flushTracing();
  process.exit(0);
}
process.on('SIGTERM', () => void shutdown());
process.on('SIGINT', () => void shutdown());
