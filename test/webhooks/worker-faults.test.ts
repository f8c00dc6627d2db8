import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../helpers/harness.js';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.js';
import { newAssignment, registerEndpoint, transition } from '../helpers/webhook-setup.js';
import { spawnWorker, type WorkerProcess } from '../helpers/worker-process.js';

/**
 * Delivery by real worker processes (`npx tsx src/worker-main.ts`): one
 * killed with SIGKILL in the middle of its deliveries and replaced, and two
 * sharing one database. The test process only produces events.
 */
let h: Harness;
let rx: Receiver;
const workers: WorkerProcess[] = [];

beforeAll(async () => {
  h = await createHarness({ config: { allowInsecureUrls: true } });
  rx = await startReceiver();
});
afterAll(async () => {
  for (const w of workers) w.kill('SIGKILL');
  await rx.close();
  await h.close();
});

async function produce(tenant: Harness['a'], n: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i += 10) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(10, n - i) }, async () => (await transition(h, await newAssignment(h, tenant), [{ type: 'start' }]))[0]!.id),
    );
    ids.push(...batch);
  }
  return ids;
}

async function waitForSettled(institutionId: string, n: number): Promise<void> {
  const until = Date.now() + 10_000;
  for (;;) {
    const { rows } = await h.pool.query('SELECT status, count(*)::int AS n FROM webhook_deliveries WHERE institution_id = $1 GROUP BY status', [institutionId]);
    if (rows.length === 1 && rows[0].status === 'succeeded' && rows[0].n === n) return;
    if (Date.now() > until) throw new Error(`deliveries not all succeeded: ${JSON.stringify(rows)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('worker processes', () => {
  it('loses nothing when a worker is killed with SIGKILL mid-delivery: a new worker sends what it held once its lease runs out', async () => {
    const t = await h.createTenant('Crash School');
    await registerEndpoint(h, t, rx, '/crash');
    rx.respond = ({ path }) => (path === '/crash' ? { status: 200, delayMs: 150 } : { status: 200 });
    const events = await produce(t, 120);

    const first = await spawnWorker(h.databaseUrl);
    workers.push(first);
    await rx.waitFor(() => rx.deliveredIds('/crash').size >= 20, 20_000, '20 deliveries by the first worker');
    first.kill('SIGKILL');
    await first.exited;
    const { rows } = await h.pool.query(
      "SELECT count(*) FILTER (WHERE locked_by IS NOT NULL)::int AS held, count(*) FILTER (WHERE status = 'pending')::int AS pending FROM webhook_deliveries WHERE institution_id = $1",
      [t.institutionId],
    );
    expect(rows[0].pending).toBeGreaterThan(0); // killed in the middle, not after the end
    expect(rows[0].held).toBeGreaterThan(0); // with deliveries in flight

    const second = await spawnWorker(h.databaseUrl);
    workers.push(second);
    await rx.waitFor(() => events.every((id) => rx.deliveredIds('/crash').has(id)), 30_000, 'every event after the restart');
    // The receiver has everything; the worker records the last outcomes just after.
    await waitForSettled(t.institutionId, 120);
    second.kill('SIGTERM');
    await second.exited;
  }, 60_000);

  it('shares one database between two workers: every event delivered exactly once, by both', async () => {
    const t = await h.createTenant('Twin School');
    await registerEndpoint(h, t, rx, '/twins');
    rx.respond = () => ({ status: 200, delayMs: 5 });
    // A long lease: under a loaded machine a slow attempt must not look abandoned (that would be a legitimate retry, not this test's point).
    const a = await spawnWorker(h.databaseUrl, { ASSAY_WEBHOOK_LEASE_MS: '10000' });
    const b = await spawnWorker(h.databaseUrl, { ASSAY_WEBHOOK_LEASE_MS: '10000' });
    workers.push(a, b);
    const events = await produce(t, 300);
    await rx.waitFor(() => events.every((id) => rx.deliveredIds('/twins').has(id)), 30_000, 'every event');
    await waitForSettled(t.institutionId, 300);

    const receipts = rx.received.filter((r) => r.path === '/twins');
    expect(receipts).toHaveLength(300);
    expect(new Set(receipts.map((r) => r.webhookId)).size).toBe(300);
    const byWorker = await h.pool.query(
      'SELECT worker_id, count(*)::int AS n FROM webhook_attempts WHERE institution_id = $1 GROUP BY worker_id',
      [t.institutionId],
    );
    expect(byWorker.rows).toHaveLength(2);
    expect(byWorker.rows.reduce((s, r) => s + r.n, 0)).toBe(300);
    a.kill('SIGTERM');
    b.kill('SIGTERM');
    await Promise.all([a.exited, b.exited]);
  }, 60_000);
});
