import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Attributes, type Span } from '@opentelemetry/api';

/**
 * The trace context that follows work across the outbox: the W3C
 * `traceparent` of the request (or job) that appended an event is stored on
 * the event row, and the webhook delivery's span starts with it as parent,
 * so a partner's request, the event it caused and every delivery attempt of
 * that event share one trace.
 *
 * Only @opentelemetry/api here (no SDK): with tracing off these helpers do
 * nothing, not even the API's no-op calls, so the hot paths pay nothing.
 */
let active = false;

/** Called by startTracing (tracing.ts) once the SDK is registered. */
export function markTracingActive(on: boolean): void {
  active = on;
}

export function tracingActive(): boolean {
  return active;
}

/** The current context as a W3C traceparent header value, or null when tracing is off or nothing is being traced. */
export function currentTraceparent(): string | null {
  if (!active) return null;
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return carrier.traceparent ?? null;
}

/**
 * Runs `fn` inside a span named `name`, child of the context in
 * `traceparent` when there is one (a root span otherwise). The span records
 * an exception thrown by `fn`; `fn` may set attributes and status itself.
 */
export async function inSpanFrom<T>(
  name: string,
  traceparent: string | null,
  attributes: Attributes,
  fn: (span: Span | null) => Promise<T>,
): Promise<T> {
  if (!active) return fn(null);
  const parent = traceparent ? propagation.extract(ROOT_CONTEXT, { traceparent }) : ROOT_CONTEXT;
  return trace.getTracer('assay').startActiveSpan(name, { kind: SpanKind.INTERNAL, attributes }, parent, async (span) => {
    try {
      return await fn(span);
    } catch (err) {
      span.recordException(err as Error);
      span.setStatus({ code: SpanStatusCode.ERROR });
      throw err;
    } finally {
      span.end();
    }
  });
}
