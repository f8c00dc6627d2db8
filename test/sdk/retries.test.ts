import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AssayNotFoundError, AssayRateLimitError, AssayTimeoutError, AssayConnectionError, AssayServerError } from '../../packages/partner-sdk/src/index.js';
import { parseRetryAfter } from '../../packages/partner-sdk/src/errors.js';
import { backoffMs } from '../../packages/partner-sdk/src/transport.js';
import { assignmentBody, type Harness } from '../helpers/harness.js';
import { openSdkRig, type SdkRig } from '../helpers/sdk-rig.js';

/**
 * The SDK's retry policy against faults a real network and a loaded service
 * produce: a proxy (node:http) in front of the real app plays each fault in
 * turn, then passes requests through.
 */
let rig: SdkRig;
let h: Harness;

beforeAll(async () => {
  rig = await openSdkRig();
  h = rig.h;
});
afterAll(() => rig.close());

type Fault =
  /** Forward to the app, then cut the caller's connection instead of answering: the work is done, the answer lost. */
  | 'lose-answer'
  /** Cut the connection before anything reaches the app. */
  | 'drop'
  | { status: number; headers?: Record<string, string> }
  | 'hang'
  | 'pass';

interface Seen {
  method: string;
  path: string;
  idempotencyKey: string | undefined;
  at: number;
}

/** A proxy that answers its n-th request with faults[n] (then passes everything through). */
async function startProxy(target: string, faults: Fault[]) {
  const seen: Seen[] = [];
  const server = http.createServer((req, res) => {
    const fault = faults[seen.length] ?? 'pass';
    seen.push({ method: req.method!, path: req.url!, idempotencyKey: req.headers['idempotency-key'] as string | undefined, at: Date.now() });
    if (fault === 'drop') return req.socket.destroy();
    if (fault === 'hang') return;
    if (typeof fault === 'object') {
      res.writeHead(fault.status, { 'content-type': 'application/json', ...fault.headers });
      return res.end(JSON.stringify({ error: { code: fault.status === 429 ? 'rate_limited' : 'unavailable', message: 'proxy', requestId: 'req_proxy' } }));
    }
    const upstream = http.request(`${target}${req.url}`, { method: req.method, headers: req.headers }, (answer) => {
      if (fault === 'lose-answer') {
        answer.resume();
        answer.on('end', () => req.socket.destroy());
        return;
      }
      res.writeHead(answer.statusCode!, answer.headers);
      answer.pipe(res);
    });
    req.pipe(upstream);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const sockets = new Set<import('node:net').Socket>();
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    close: () => {
      for (const s of sockets) s.destroy();
      return new Promise<void>((r) => server.close(() => r()));
    },
  };
}

async function assignmentsOf(institutionId: string): Promise<string[]> {
  const { rows } = await h.pool.query<{ id: string }>('SELECT id FROM assignments WHERE institution_id = $1', [institutionId]);
  return rows.map((r) => r.id);
}

describe('retries', () => {
  it('a create through lost answers, dropped connections, 429 and 503 makes exactly one assignment', async () => {
    const t = await h.createTenant('Flaky Network School');
    const proxy = await startProxy(rig.baseUrl, ['lose-answer', 'drop', { status: 429, headers: { 'retry-after': '1' } }, { status: 503 }]);
    try {
      const client = rig.sdk(t, { baseUrl: proxy.url, maxRetries: 5 });
      const created = await client.assignments.create(assignmentBody(t));

      expect(proxy.seen).toHaveLength(5);
      const keys = new Set(proxy.seen.map((s) => s.idempotencyKey));
      expect(keys.size).toBe(1);
      expect([...keys][0]).toMatch(/^[0-9a-f-]{36}$/);
      // Retry-After: 1 was waited for before the fourth attempt.
      expect(proxy.seen[3]!.at - proxy.seen[2]!.at).toBeGreaterThanOrEqual(950);

      expect(await assignmentsOf(t.institutionId)).toEqual([created.assignmentId]);
    } finally {
      await proxy.close();
    }
  });

  it('gives up after maxRetries with the last failure, typed', async () => {
    const proxy = await startProxy(rig.baseUrl, [{ status: 503 }, { status: 503 }, { status: 503 }]);
    try {
      const err = await rig.sdk(h.a, { baseUrl: proxy.url, maxRetries: 1 }).tests.list().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(AssayServerError);
      expect(err).toMatchObject({ status: 503, code: 'unavailable', requestId: 'req_proxy' });
      expect(proxy.seen).toHaveLength(2);

      const dropped = await startProxy(rig.baseUrl, ['drop', 'drop']);
      const refused = await rig.sdk(h.a, { baseUrl: dropped.url, maxRetries: 1 }).tests.list().catch((e: unknown) => e);
      await dropped.close();
      expect(refused).toBeInstanceOf(AssayConnectionError);
      expect(refused).toMatchObject({ status: null, code: 'connection_error' });
      expect(dropped.seen).toHaveLength(2);
    } finally {
      await proxy.close();
    }
  });

  it('a Retry-After longer than a minute is not waited for: the 429 is thrown with it', async () => {
    const proxy = await startProxy(rig.baseUrl, [{ status: 429, headers: { 'retry-after': '120' } }]);
    try {
      const started = Date.now();
      const err = await rig.sdk(h.a, { baseUrl: proxy.url }).tests.list().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(AssayRateLimitError);
      expect(err).toMatchObject({ status: 429, retryAfterMs: 120_000 });
      expect(proxy.seen).toHaveLength(1);
      expect(Date.now() - started).toBeLessThan(1000);
    } finally {
      await proxy.close();
    }
  });

  it('never retries a 400 or a 404', async () => {
    const proxy = await startProxy(rig.baseUrl, []);
    try {
      const client = rig.sdk(h.a, { baseUrl: proxy.url, maxRetries: 3 });
      await expect(client.assignments.get('asg_doesNotExist')).rejects.toBeInstanceOf(AssayNotFoundError);
      expect(proxy.seen).toHaveLength(1);
      await expect(client.tests.list({ limit: 1000 })).rejects.toMatchObject({ status: 400, code: 'invalid_request' });
      expect(proxy.seen).toHaveLength(2);
    } finally {
      await proxy.close();
    }
  });
});

describe('timeouts', () => {
  it('an attempt with no answer within timeoutMs is an AssayTimeoutError, retried like a network error', async () => {
    const proxy = await startProxy(rig.baseUrl, ['hang', 'hang', 'hang']);
    try {
      let started = Date.now();
      const err = await rig.sdk(h.a, { baseUrl: proxy.url, timeoutMs: 200, maxRetries: 0 }).tests.list().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(AssayTimeoutError);
      expect(err).toMatchObject({ status: null, code: 'timeout' });
      expect(Date.now() - started).toBeGreaterThanOrEqual(190);
      expect(Date.now() - started).toBeLessThan(2000);
      expect(proxy.seen).toHaveLength(1);

      // One retry after a hang: the second attempt hangs too, the third request (none) is never sent.
      started = Date.now();
      await expect(rig.sdk(h.a, { baseUrl: proxy.url, timeoutMs: 200, maxRetries: 1 }).tests.list()).rejects.toBeInstanceOf(AssayTimeoutError);
      expect(proxy.seen).toHaveLength(3);

      // After the hangs, the same call passes through within its timeout.
      const page = await rig.sdk(h.a, { baseUrl: proxy.url, timeoutMs: 2000 }).tests.list();
      expect(page.data.map((x) => x.testId)).toContain(h.a.testId);
    } finally {
      await proxy.close();
    }
  });

  it('the caller\'s own AbortSignal stops the call and is not retried', async () => {
    const proxy = await startProxy(rig.baseUrl, ['hang']);
    try {
      const controller = new AbortController();
      setTimeout(() => controller.abort(new Error('caller gave up')), 100);
      await expect(rig.sdk(h.a, { baseUrl: proxy.url, maxRetries: 3 }).tests.list({}, { signal: controller.signal })).rejects.toThrow('caller gave up');
      expect(proxy.seen).toHaveLength(1);
    } finally {
      await proxy.close();
    }
  });
});

describe('the retry schedule', () => {
  it('doubles from 0.5 s up to 8 s, each wait scaled by a jitter factor in [0.5, 1)', () => {
    const ceilings = [500, 1000, 2000, 4000, 8000, 8000];
    ceilings.forEach((ceiling, attempt) => {
      expect(backoffMs(attempt, () => 0)).toBe(ceiling / 2);
      expect(backoffMs(attempt, () => 0.999999)).toBe(ceiling);
    });
    const spread = new Set(Array.from({ length: 50 }, () => backoffMs(2)));
    expect(spread.size).toBeGreaterThan(10);
  });

  it('reads Retry-After as seconds or as an HTTP date, and ignores what it cannot read', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(parseRetryAfter('3', now)).toBe(3000);
    expect(parseRetryAfter('0.5', now)).toBe(500);
    expect(parseRetryAfter('Thu, 01 Jan 2026 00:00:10 GMT', now)).toBe(10_000);
    expect(parseRetryAfter('Wed, 31 Dec 2025 23:59:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('soon', now)).toBeNull();
    expect(parseRetryAfter(null, now)).toBeNull();
  });
});
