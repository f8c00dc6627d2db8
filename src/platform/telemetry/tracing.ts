import { createRequire } from 'node:module';
import type { IncomingMessage } from 'node:http';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
import { NodeSDK } from '@opentelemetry/sdk-node';
import type { SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { markTracingActive } from './trace-context.js';

/**
 * Tracing with OpenTelemetry: spans for HTTP requests served (and sent with
 * node:http), PostgreSQL queries made inside a trace, and webhook deliveries
 * (the dispatcher's own span, with undici's request span under it). Off by
 * default; the standard OTEL_* variables switch it on and configure it
 * (exporter, endpoint, headers, sampler: the SDK reads them itself), see
 * config.ts tracingEnabled. Only traces: metrics are Prometheus's
 * (metrics.ts), logs stay pino's.
 *
 * Loaded before the app's modules (start-tracing.ts is the entry points'
 * first import). Instrumentation works by patching `pg` and `node:http` on
 * require; the app imports them as ESM, so they are required here once
 * after the SDK starts, which patches their prototypes in place for every
 * later importer.
 */
const NOT_TRACED = new Set(['/healthz', '/readyz', '/metrics']);

export function startTracing(opts: { serviceName: string; spanProcessors?: SpanProcessor[] }): { shutdown(): Promise<void> } {
  const sdk = new NodeSDK({
    serviceName: opts.serviceName,
    // Undefined: the exporters OTEL_TRACES_EXPORTER names (OTLP by default), batched.
    ...(opts.spanProcessors ? { spanProcessors: opts.spanProcessors } : {}),
    metricReaders: [],
    logRecordProcessors: [],
    instrumentations: [
      new HttpInstrumentation({ ignoreIncomingRequestHook: (req: IncomingMessage) => NOT_TRACED.has((req.url ?? '').split('?')[0]!) }),
      // Only queries inside a trace: the workers' polls would otherwise each start a trace of their own.
      new PgInstrumentation({ requireParentSpan: true }),
      new UndiciInstrumentation(),
    ],
  });
  sdk.start();
  const require = createRequire(import.meta.url);
  for (const name of ['http', 'https', 'pg', 'pg-pool']) require(name);
  markTracingActive(true);
  return {
    async shutdown() {
      markTracingActive(false);
      await sdk.shutdown();
    },
  };
}
