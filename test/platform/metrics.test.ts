import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freezeConfig } from '../../src/platform/config.js';
import { startMetricsServer } from '../../src/platform/telemetry/metrics.js';
import { createHarness, type Harness } from '../helpers/harness.js';
import { registerEndpoint, transition, newAssignment, openWebhookRig, type WebhookRig } from '../helpers/webhook-setup.js';
import { Student, assign } from '../helpers/student.js';

const TOKEN = 'metrics-token-0123456789abcdef';
const P = '/api/partner/v1';


/** A sample's value in Prometheus text format (labels as written, in label-name order), or null when absent. */
function sample(text: string, name: string, labels = ''): number | null {
  const line = text.split('\n').find((l) => l.startsWith(`${name}${labels ? `{${labels}}` : ''} `));
  return line ? Number(line.slice(line.lastIndexOf(' ') + 1)) : null;
}

describe('GET /metrics on the API port (ASSAY_METRICS_TOKEN)', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness({ config: { operations: { metricsToken: TOKEN, metricsPort: null, tracing: { enabled: false, serviceName: 'assay' }, rateLimitStore: 'memory', portal: true } } });
  });
  afterAll(() => h?.close());

  it('is refused without the token, or with another one (401), and not listed in the API documents', async () => {
    for (const headers of [{}, { authorization: 'Bearer wrong-token-0123456789abcdef' }, { authorization: TOKEN }]) {
      const res = await h.app.inject({ method: 'GET', url: '/metrics', headers });
      expect(res.statusCode).toBe(401);
      expect(res.body).not.toContain('assay_');
    }
    const doc = (await h.app.inject({ method: 'GET', url: `${P}/openapi.json` })).json();
    expect(Object.keys(doc.paths)).not.toContain('/metrics');
  });

  it('counts requests by route pattern and status, with latency buckets, after some traffic', async () => {
    for (let i = 0; i < 3; i++) expect((await h.partner(h.a, 'GET', `${P}/tests`)).statusCode).toBe(200);
    expect((await h.partner(h.a, 'GET', `${P}/assignments/asg_nope`)).statusCode).toBe(404);
    const res = await h.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${TOKEN}` } });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = res.body;
    expect(sample(text, 'assay_http_request_duration_seconds_count', `method="GET",route="${P}/tests",status="200"`)).toBeGreaterThanOrEqual(3);
    // The route pattern, not the id in the URL.
    expect(sample(text, 'assay_http_request_duration_seconds_count', `method="GET",route="${P}/assignments/:assignmentId",status="404"`)).toBe(1);
    expect(text).not.toContain('asg_nope');
    expect(sample(text, 'assay_http_request_duration_seconds_bucket', `le="5",method="GET",route="${P}/tests",status="200"`)).toBeGreaterThanOrEqual(3);
    // The pool and the queue gauges are there (read from the database on the scrape).
    expect(sample(text, 'assay_db_pool_connections', 'state="total"')).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'assay_db_pool_connections', 'state="waiting"')).toBe(0);
    expect(sample(text, 'assay_webhook_deliveries_pending')).toBe(0);
    expect(sample(text, 'assay_active_attempts')).toBe(0);
    expect(text).toContain('assay_process_cpu_seconds_total');
  });

  it('shows due jobs by kind and their age, attempts under way and student saves', async () => {
    const a = await assign(h, h.a);
    const s = new Student(h);
    const assignmentId = await s.start(a.startUrl);
    const [questionId] = (await h.admin('GET', `/api/admin/v1/assignments/${assignmentId}`)).json().items.map((i: { questionId: string }) => i.questionId);
    expect((await s.save(assignmentId, [{ questionId, value: 'b', version: 2 }])).statusCode).toBe(200);
    expect((await s.save(assignmentId, [{ questionId, value: 'a', version: 1 }])).json().results[0].saved).toBe(false);
    expect((await s.save(assignmentId, [{ questionId: 'nope', value: 'a', version: 3 }])).statusCode).toBe(400);
    // A job due a minute ago that no worker has taken (the harness runs jobs only on demand).
    await h.pool.query(`INSERT INTO jobs (kind, payload, run_at) VALUES ('metrics.probe', '{}', now() - interval '60 seconds')`);
    const text = (await h.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${TOKEN}` } })).body;
    expect(sample(text, 'assay_active_attempts')).toBe(1);
    expect(sample(text, 'assay_jobs_due', 'kind="metrics.probe"')).toBe(1);
    expect(sample(text, 'assay_jobs_oldest_due_seconds', 'kind="metrics.probe"')).toBeGreaterThanOrEqual(59);
    expect(sample(text, 'assay_student_saves_total', 'result="saved"')).toBe(1);
    expect(sample(text, 'assay_student_saves_total', 'result="stale"')).toBe(1);
    expect(sample(text, 'assay_student_saves_total', 'result="refused"')).toBe(1);
  });
});

describe('GET /metrics on its own port (ASSAY_METRICS_PORT)', () => {
  let rig: WebhookRig;
  beforeAll(async () => {
    rig = await openWebhookRig();
  });
  afterAll(() => rig?.close());

  it('serves the same registry there, with the token when one is set, and counts webhook attempts by outcome', async () => {
    const { h, rx } = rig;
    await registerEndpoint(h, h.a, rx, '/metrics-hook');
    const assignmentId = await newAssignment(h, h.a);
    const [event] = await transition(h, assignmentId, [{ type: 'start' }]);
    await rx.waitFor(() => rx.deliveredIds('/metrics-hook').has(event!.id), 10_000, 'the delivery');

    const config = freezeConfig({ ...h.ctx.config, operations: { ...h.ctx.config.operations, metricsPort: 0, metricsToken: TOKEN } });
    const server = (await startMetricsServer(config, h.pool))!;
    try {
      const url = `http://127.0.0.1:${server.port}/metrics`;
      expect((await fetch(url)).status).toBe(401);
      expect((await fetch(`http://127.0.0.1:${server.port}/other`)).status).toBe(404);
      // The delivery is recorded a moment after it arrives.
      let text = '';
      for (let i = 0; i < 50; i++) {
        text = await (await fetch(url, { headers: { authorization: `Bearer ${TOKEN}` } })).text();
        if ((sample(text, 'assay_webhook_attempts_total', 'outcome="succeeded"') ?? 0) >= 1) break;
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(sample(text, 'assay_webhook_attempts_total', 'outcome="succeeded"')).toBeGreaterThanOrEqual(1);
      expect(sample(text, 'assay_webhook_attempt_duration_seconds_count')).toBeGreaterThanOrEqual(1);
      expect(sample(text, 'assay_webhook_delivery_lag_seconds_count')).toBeGreaterThanOrEqual(1);
      expect(sample(text, 'assay_webhook_oldest_pending_seconds')).not.toBeNull();
    } finally {
      await server.close();
    }
  });
});
