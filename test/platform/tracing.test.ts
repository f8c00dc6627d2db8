import { SpanKind } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTracing } from '../../src/platform/telemetry/tracing.js';

/**
 * Tracing end to end, spans kept in memory: the SDK starts first, as the
 * entry points start it (start-tracing.ts), then the app's modules load.
 */
const exporter = new InMemorySpanExporter();
const tracing = startTracing({ serviceName: 'assay-test', spanProcessors: [new SimpleSpanProcessor(exporter)] });
const { openWebhookRig, registerEndpoint, newAssignment } = await import('../helpers/webhook-setup.js');

let rig: Awaited<ReturnType<typeof openWebhookRig>>;
let base: string;
beforeAll(async () => {
  rig = await openWebhookRig();
  base = await rig.h.app.listen({ port: 0, host: '127.0.0.1' });
});
afterAll(async () => {
  await rig?.close();
  await tracing.shutdown();
});

async function spansUntil(check: (spans: ReadableSpan[]) => boolean, what: string): Promise<ReadableSpan[]> {
  for (let i = 0; i < 200; i++) {
    const spans = exporter.getFinishedSpans();
    if (check(spans)) return spans;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`no spans for ${what}`);
}

const deliverSpanOf = (eventId: string) => (s: ReadableSpan) => s.name === 'webhook.deliver' && s.attributes['assay.event.id'] === eventId;
const traceOf = (s: ReadableSpan) => s.spanContext().traceId;
const parentOf = (s: ReadableSpan) => s.parentSpanContext?.spanId;

describe('tracing (OpenTelemetry, in-memory exporter)', () => {
  it('a partner request that creates an event, the event and its delivery share one trace', async () => {
    const { h, rx } = rig;
    const { endpointId } = await registerEndpoint(h, h.a, rx, '/traced');
    const res = await fetch(`${base}/api/partner/v1/webhook-endpoints/${endpointId}/test`, {
      method: 'POST',
      headers: { authorization: `Bearer ${h.a.apiKey}` },
    });
    expect(res.status).toBe(202);
    const { eventId } = (await res.json()) as { eventId: string };
    await rx.waitFor(() => rx.deliveredIds('/traced').has(eventId), 10_000, 'the test event');

    const spans = await spansUntil((all) => all.some(deliverSpanOf(eventId)), 'the delivery');
    const server = spans.find((s) => s.kind === SpanKind.SERVER && /webhook-endpoints\/.+\/test/.test(String(s.attributes['url.path'] ?? s.attributes['http.target'])))!;
    expect(server, 'the HTTP server span of the request').toBeDefined();
    const deliver = spans.find(deliverSpanOf(eventId))!;
    expect(traceOf(deliver)).toBe(traceOf(server));
    // The stored traceparent is the request's context: the delivery hangs off a span of that request.
    const ofTrace = spans.filter((s) => traceOf(s) === traceOf(server));
    expect(ofTrace.map((s) => s.spanContext().spanId)).toContain(parentOf(deliver));
    expect(deliver.attributes).toMatchObject({ 'assay.event.type': 'webhook.test', 'assay.webhook.endpoint_id': endpointId, 'http.response.status_code': 200 });
    // PostgreSQL spans of the request (the event's INSERT among them) and undici's POST under the delivery.
    expect(ofTrace.some((s) => s.attributes['db.system'] === 'postgresql' || s.attributes['db.system.name'] === 'postgresql')).toBe(true);
    expect(ofTrace.some((s) => s.kind === SpanKind.CLIENT && parentOf(s) === deliver.spanContext().spanId)).toBe(true);
    const stored = await h.pool.query('SELECT traceparent FROM events WHERE id = $1', [eventId]);
    expect(stored.rows[0].traceparent).toMatch(new RegExp(`^00-${traceOf(server)}-[0-9a-f]{16}-0[01]$`));
  });

  it('a student pressing Begin: exam.started is delivered in the trace of that POST', async () => {
    const { h, rx } = rig;
    await registerEndpoint(h, h.a, rx, '/traced-begin', { eventTypes: ['exam.started'] });
    const assignmentId = await newAssignment(h, h.a, { externalUserId: 'traced-student' });
    const startUrl = (await h.partner(h.a, 'GET', `/api/partner/v1/assignments/${assignmentId}`)).json().startUrl as string;
    const opened = await fetch(`${base}${new URL(startUrl).pathname}`, { redirect: 'manual' });
    const cookie = opened.headers.get('set-cookie')!.split(';')[0]!;
    const page = await (await fetch(`${base}/a/${assignmentId}`, { headers: { cookie } })).text();
    const csrf = /name="csrf" value="([^"]+)"/.exec(page)![1]!;
    exporter.reset();
    const begun = await fetch(`${base}/a/${assignmentId}/begin`, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: `csrf=${csrf}`,
    });
    expect(begun.status).toBe(303);
    const { rows } = await h.pool.query(`SELECT id FROM events WHERE assignment_id = $1 AND type = 'exam.started'`, [assignmentId]);
    const eventId = rows[0].id as string;
    await rx.waitFor(() => rx.deliveredIds('/traced-begin').has(eventId), 10_000, 'exam.started');
    const spans = await spansUntil((all) => all.some(deliverSpanOf(eventId)), 'the delivery');
    const post = spans.find((s) => s.kind === SpanKind.SERVER && String(s.attributes['http.request.method'] ?? s.attributes['http.method']) === 'POST')!;
    expect(traceOf(spans.find(deliverSpanOf(eventId))!)).toBe(traceOf(post));
  });

  it('work outside any request (the dispatcher polling, jobs) starts no trace of its own', async () => {
    exporter.reset();
    await new Promise((r) => setTimeout(r, 600)); // a couple of dispatcher polls
    expect(exporter.getFinishedSpans().filter((s) => s.attributes['db.system'] === 'postgresql' || s.attributes['db.system.name'] === 'postgresql')).toEqual([]);
  });
});
