import { parseConfig, processEnvironment } from '../config.js';

/**
 * The entry points' first import (main.ts, worker-main.ts): starts tracing
 * before the app's modules load, when the OTEL_* variables ask for it, and
 * loads nothing of the SDK otherwise. A configuration error is left for
 * boot() to report.
 */
let tracing: { shutdown(): Promise<void> } | null = null;

const operations = (() => {
  try {
    return parseConfig(processEnvironment()).operations;
  } catch {
    return null;
  }
})();
if (operations?.tracing.enabled) {
  const { startTracing } = await import('./tracing.js');
  tracing = startTracing({ serviceName: operations.tracing.serviceName });
}

/** Exports the spans still buffered; entry points call it on shutdown. */
export async function flushTracing(): Promise<void> {
  await tracing?.shutdown().catch(() => undefined);
}
