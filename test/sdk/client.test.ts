import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AssayAuthenticationError,
  AssayConflictError,
  AssayError,
  AssayInvalidRequestError,
  AssayNotFoundError,
  type Assay,
} from '../../packages/partner-sdk/src/index.js';
import { AUTO_TEST, assignmentBody, type Harness, type Tenant } from '../helpers/harness.js';
import { openSdkRig, type SdkRig } from '../helpers/sdk-rig.js';
import { transition } from '../helpers/webhook-setup.js';
import { createTest, publishTest } from '../../src/modules/catalog/tests-service.js';

/** The partner SDK against the real service over HTTP: every call a partner makes, the pagination, and the typed errors. */
let rig: SdkRig;
let h: Harness;
let assay: Assay;

beforeAll(async () => {
  rig = await openSdkRig();
  h = rig.h;
  assay = rig.sdk(h.a);
});
afterAll(() => rig.close());

/** A fetch that counts the requests it sends. */
function countingFetch() {
  const sent: Array<{ method: string; url: string; headers: Headers }> = [];
  const fetchImpl: typeof fetch = (input, init) => {
    sent.push({ method: init?.method ?? 'GET', url: String(input), headers: new Headers(init?.headers) });
    return fetch(input, init);
  };
  return { sent, fetchImpl };
}

async function assignmentCount(tenant: Tenant): Promise<number> {
  const { rows } = await h.pool.query('SELECT count(*)::int AS n FROM assignments WHERE institution_id = $1', [tenant.institutionId]);
  return rows[0].n;
}

describe('tests', () => {
  it('lists the tests published to the institution, one page or all of them through the iterator', async () => {
    const t = await h.createTenant('Many Tests College');
    const ids = [t.testId];
    for (let i = 0; i < 4; i++) {
      const test = await createTest(h.pool, { ...AUTO_TEST, title: `Extra ${i}` });
      await publishTest(h.pool, test.testId, t.institutionId);
      ids.push(test.testId);
    }
    const client = rig.sdk(t);
    const page = await client.tests.list({ limit: 2 });
    expect(page).toMatchObject({ total: 5, limit: 2, offset: 0 });
    expect(page.data).toHaveLength(2);
    expect(page.data[0]).toMatchObject({ testId: expect.stringMatching(/^tst_/), title: expect.any(String), marking: 'auto' });

    const { sent, fetchImpl } = countingFetch();
    const all: string[] = [];
    for await (const test of rig.sdk(t, { fetch: fetchImpl }).tests.listAll({ limit: 2 })) all.push(test.testId);
    expect(all.sort()).toEqual([...ids].sort());
    expect(sent.map((r) => new URL(r.url).searchParams.get('offset'))).toEqual(['0', '2', '4']);
  });
});

describe('assignments', () => {
  it('creates an assignment, sending an Idempotency-Key it generated, and reads it back', async () => {
    const { sent, fetchImpl } = countingFetch();
    const created = await rig.sdk(h.a, { fetch: fetchImpl }).assignments.create(assignmentBody(h.a, { externalUserId: 'sdk-create' }));
    expect(created).toMatchObject({ assignmentId: expect.stringMatching(/^asg_/), status: 'assigned', externalUserId: 'sdk-create', testId: h.a.testId });
    expect(created.startUrl).toMatch(/\/s\//);
    expect(sent[0]!.headers.get('idempotency-key')).toMatch(/^[0-9a-f-]{36}$/);

    const read = await assay.assignments.get(created.assignmentId);
    expect(read).toMatchObject({ assignmentId: created.assignmentId, status: 'assigned', result: { available: false, score: null }, startedAt: null });
  });

  it('each create without a key of its own is a new assignment; one with the same key is the same assignment', async () => {
    const body = assignmentBody(h.a, { externalUserId: 'sdk-keys' });
    const one = await assay.assignments.create(body);
    const two = await assay.assignments.create(body);
    expect(two.assignmentId).not.toBe(one.assignmentId);

    const first = await assay.assignments.create(body, { idempotencyKey: 'enrolment-42' });
    const again = await assay.assignments.create(body, { idempotencyKey: 'enrolment-42' });
    expect(again.assignmentId).toBe(first.assignmentId);
  });

  it('a create whose answer is lost is retried with the same generated key and returns the one assignment', async () => {
    const t = await h.createTenant('Lost Answer School');
    const keys: string[] = [];
    // The first request reaches the service, which creates the assignment; its answer never reaches the caller.
    const fetchImpl: typeof fetch = async (input, init) => {
      keys.push(new Headers(init?.headers).get('idempotency-key')!);
      const res = await fetch(input, init);
      if (keys.length === 1) {
        await res.text();
        throw new TypeError('fetch failed', { cause: Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }) });
      }
      return res;
    };
    const created = await rig.sdk(t, { fetch: fetchImpl }).assignments.create(assignmentBody(t));
    expect(keys).toHaveLength(2);
    expect(keys[1]).toBe(keys[0]);
    expect(await assignmentCount(t)).toBe(1);
    expect((await rig.sdk(t).assignments.get(created.assignmentId)).assignmentId).toBe(created.assignmentId);
  });
});

describe('events', () => {
  it('lists, iterates, reads and redelivers the events of an assignment', async () => {
    const t = await h.createTenant('Events School');
    const client = rig.sdk(t);
    const endpoint = await client.webhookEndpoints.create({ url: rig.rx.url('/sdk-events') });
    expect(endpoint.secret).toMatch(/^whsec_/);
    rig.rx.setSecrets('/sdk-events', [endpoint.secret]);
    const { assignmentId } = await client.assignments.create(assignmentBody(t));
    await transition(h, assignmentId, [{ type: 'start' }]);
    await transition(h, assignmentId, [{ type: 'submit', score: null }, { type: 'settle', resultVisibility: 'immediate', score: null }]);

    const page = await client.events.list({ assignmentId });
    expect(page.hasMore).toBe(false);
    expect(page.data.map((e) => e.type)).toEqual(['exam.completed', 'exam.started']);
    const onePerPage: string[] = [];
    for await (const event of client.events.listAll({ assignmentId, limit: 1 })) onePerPage.push(event.id);
    expect(onePerPage).toEqual(page.data.map((e) => e.id));

    const started = page.data[1]!;
    await rig.rx.waitFor(() => rig.rx.deliveredIds('/sdk-events').has(started.id), 10_000, 'exam.started delivered');
    const detail = await client.events.get(started.id);
    expect(detail).toMatchObject({ id: started.id, type: 'exam.started', data: { partnerAssignmentId: assignmentId } });
    expect(detail.deliveries[0]).toMatchObject({ endpointId: endpoint.endpointId });

    const before = rig.rx.received.filter((r) => r.webhookId === started.id).length;
    const redelivered = await client.events.redeliver(started.id);
    expect(redelivered).toBeTruthy();
    await rig.rx.waitFor(() => rig.rx.received.filter((r) => r.webhookId === started.id).length > before, 10_000, 'redelivery');
    expect(rig.rx.received.filter((r) => r.webhookId === started.id).every((r) => r.verifiedWith[0] === true)).toBe(true);
  });
});

describe('errors', () => {
  it('an unknown or foreign id is an AssayNotFoundError with the request id, sent once', async () => {
    const foreign = await rig.sdk(h.b).assignments.create(assignmentBody(h.b));
    const { sent, fetchImpl } = countingFetch();
    const client = rig.sdk(h.a, { fetch: fetchImpl });
    const err = await client.assignments.get(foreign.assignmentId).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AssayNotFoundError);
    expect(err).toBeInstanceOf(AssayError);
    expect(err).toMatchObject({ status: 404, code: 'not_found', requestId: expect.any(String) });
    expect((err as AssayError).requestId!.length).toBeGreaterThan(0);
    expect(sent).toHaveLength(1);
  });

  it('a refused body is an AssayInvalidRequestError with the field details, sent once and nothing created', async () => {
    const t = await h.createTenant('Bad Body School');
    const { sent, fetchImpl } = countingFetch();
    const body = { ...assignmentBody(t), externalUserId: 'x'.repeat(129) };
    const err = await rig.sdk(t, { fetch: fetchImpl }).assignments.create(body).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AssayInvalidRequestError);
    expect(err).toMatchObject({ status: 400, code: 'invalid_request', details: [expect.objectContaining({ field: 'externalUserId' })] });
    expect(sent).toHaveLength(1);
    expect(await assignmentCount(t)).toBe(0);
  });

  it('reusing a key with another body is an AssayConflictError; a wrong key an AssayAuthenticationError', async () => {
    await assay.assignments.create(assignmentBody(h.a), { idempotencyKey: 'conflict-key' });
    const err = await assay.assignments
      .create(assignmentBody(h.a, { externalUserId: 'someone-else' }), { idempotencyKey: 'conflict-key' })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AssayConflictError);
    expect(err).toMatchObject({ status: 409, code: 'idempotency_key_reused' });

    const unauthenticated = await rig.sdk('ak_live_notARealKey0000000000000000000').tests.list().catch((e: unknown) => e);
    expect(unauthenticated).toBeInstanceOf(AssayAuthenticationError);
    expect(unauthenticated).toMatchObject({ status: 401, code: 'unauthenticated' });
  });
});
