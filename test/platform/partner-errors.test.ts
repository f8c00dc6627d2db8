import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPool } from '../../src/platform/db.js';
import { systemClock } from '../../src/platform/clock.js';
import { buildServer, serverContext } from '../../src/server.js';
import { assignmentBody, createHarness, type Harness } from '../helpers/harness.js';
import { expectError } from '../helpers/expect-error.js';
import { ALL_EVENT_TYPES, SUBSCRIBABLE_EVENT_TYPES } from '../../src/modules/lifecycle/event-types.js';

const P = '/api/partner/v1';
let h: Harness;

beforeAll(async () => {
  h = await createHarness();
});
afterAll(() => h.close());

describe('request ids', () => {
  it('every response carries X-Request-Id: success, 4xx, unknown route, unauthenticated', async () => {
    const responses = await Promise.all([
      h.partner(h.a, 'GET', `${P}/tests`),
      h.partner(h.a, 'POST', `${P}/assignments`, assignmentBody(h.a)),
      h.partner(h.a, 'POST', `${P}/assignments`, { nope: 1 }),
      h.partner(h.a, 'GET', `${P}/assignments/asg_missing`),
      h.partner(h.a, 'GET', `${P}/no-such-route`),
      h.partner(null, 'GET', `${P}/tests`),
      h.app.inject({ method: 'GET', url: '/healthz' }),
    ]);
    const ids = responses.map((r) => r.headers['x-request-id']);
    for (const id of ids) expect(id).toMatch(/^req_[0-9A-Za-z]{22}$/);
    expect(new Set(ids).size).toBe(ids.length);
    for (const r of responses.filter((x) => x.statusCode >= 400)) expect(r.json().error.requestId).toBe(r.headers['x-request-id']);
  });

  it('a client-sent X-Request-Id does not replace the service’s own', async () => {
    const res = await h.partner(h.a, 'GET', `${P}/tests`, undefined, { 'x-request-id': 'client-chosen' });
    expect(res.headers['x-request-id']).toMatch(/^req_/);
  });
});

describe('response headers', () => {
  it('X-Content-Type-Options: nosniff on every response: JSON, errors, 404s, 405s, pages, assets, docs', async () => {
    const created = await h.partner(h.a, 'POST', `${P}/assignments`, assignmentBody(h.a));
    const responses = await Promise.all([
      h.partner(h.a, 'GET', `${P}/tests`),
      h.partner(h.a, 'GET', `${P}/no-such-route`),
      h.partner(h.a, 'DELETE', `${P}/tests`),
      h.partner(null, 'GET', `${P}/tests`),
      h.partner(h.a, 'GET', `${P}/assignments/%E0%A4%A`),
      h.app.inject({ method: 'GET', url: '/healthz' }),
      h.app.inject({ method: 'GET', url: '/s/not-a-token' }),
      h.app.inject({ method: 'GET', url: `/a/${created.json().assignmentId}` }),
      h.app.inject({ method: 'GET', url: '/assets/student.css' }),
      h.app.inject({ method: 'GET', url: '/docs' }),
      h.app.inject({ method: 'GET', url: `${P}/openapi.json` }),
    ]);
    for (const r of [created, ...responses]) expect(r.headers['x-content-type-options'], `${r.statusCode} ${r.body.slice(0, 80)}`).toBe('nosniff');
  });

  it('Cache-Control: no-store on API responses that carry a start link or a secret', async () => {
    const created = await h.partner(h.a, 'POST', `${P}/assignments`, assignmentBody(h.a), { 'idempotency-key': 'no-store-1' });
    const replayed = await h.partner(h.a, 'POST', `${P}/assignments`, assignmentBody(h.a), { 'idempotency-key': 'no-store-1' });
    const read = await h.partner(h.a, 'GET', `${P}/assignments/${created.json().assignmentId}`);
    const endpoint = await h.partner(h.a, 'POST', `${P}/webhook-endpoints`, { url: 'https://hooks.alpha-college.example/n' });
    const rotated = await h.partner(h.a, 'POST', `${P}/webhook-endpoints/${endpoint.json().endpointId}/rotate-secret`);
    const key = await h.admin('POST', `/api/admin/v1/institutions/${h.a.institutionId}/api-keys`, {});
    for (const r of [created, replayed, read, endpoint, rotated, key]) {
      expect(r.statusCode, r.body).toBeLessThan(300);
      expect(r.headers['cache-control']).toBe('no-store');
    }
  });
});

describe('unknown routes and URLs', () => {
  it.each([
    ['GET', `${P}/nothing-here`],
    ['GET', '/nowhere'],
    ['GET', '/api/partner/v2/tests'],
  ])('%s %s is 404 not_found in the envelope', async (method, url) => {
    expectError(await h.partner(h.a, method, url), 404, 'not_found');
  });

  it.each([
    ['DELETE', `${P}/tests`, 'GET, HEAD'],
    ['PUT', `${P}/assignments/asg_x`, 'GET, HEAD, PATCH'],
    ['GET', `${P}/assignments`, 'POST'],
    ['DELETE', `${P}/events/evt_x/redeliver`, 'POST'],
    ['POST', `${P}/webhook-endpoints/whep_x`, 'DELETE, GET, HEAD, PATCH'],
    ['PATCH', `${P}/tests?limit=5`, 'GET, HEAD'],
  ])('%s %s on a path that exists is 405 method_not_allowed with Allow: %s', async (method, url, allow) => {
    const res = await h.partner(h.a, method, url);
    const err = expectError(res, 405, 'method_not_allowed');
    expect(res.headers.allow).toBe(allow);
    expect(err.error.message).toContain(allow);
    // The same without a key: the methods of a documented path are no secret.
    expect((await h.partner(null, method, url)).statusCode).toBe(405);
  });

  it('a path with broken percent-encoding gets the 400 envelope with a request id', async () => {
    const res = await h.partner(h.a, 'GET', `${P}/assignments/%E0%A4%A`);
    expectError(res, 400, 'invalid_request');
  });

  it('an assignment id far longer than any id gets the 400 envelope, not a bare framework error', async () => {
    expectError(await h.partner(h.a, 'GET', `${P}/assignments/${'a'.repeat(65)}`), 400, 'invalid_request');
    expectError(await h.partner(h.a, 'GET', `${P}/assignments/${'a'.repeat(500)}`), 400, 'invalid_request');
  });

  it('a NUL character in a path id is refused with 400 rather than reaching the database', async () => {
    expectError(await h.partner(h.a, 'GET', `${P}/assignments/asg_%00x`), 400, 'invalid_request');
  });
});

describe('text PostgreSQL cannot store is refused with 400', () => {
  it.each([
    ['a NUL in externalUserId', { externalUserId: 'a\u0000b' }, 'externalUserId'],
    ['a NUL in a metadata value', { metadata: { note: 'x\u0000y' } }, 'metadata.note'],
    ['a NUL in a metadata key', { metadata: { 'k\u0000': 1 } }, 'metadata'],
    ['a lone surrogate in metadata', { metadata: { note: 'x\ud800y' } }, 'metadata.note'],
    ['a lone surrogate in user.name', { user: { email: 'a@example.org', name: '\udc00' } }, 'user.name'],
    ['a NUL in testId', { testId: 'tst_\u0000' }, 'testId'],
  ])('%s', async (_label, override, field) => {
    const before = (await h.pool.query('SELECT count(*)::int AS n FROM assignments')).rows[0].n;
    const res = await h.partner(h.a, 'POST', `${P}/assignments`, assignmentBody(h.a, override));
    const err = expectError(res, 400, 'invalid_request');
    expect(err.error.details?.map((d) => d.field)).toEqual([field]);
    expect((await h.pool.query('SELECT count(*)::int AS n FROM assignments')).rows[0].n).toBe(before);
  });

  it('well-formed emoji and other astral characters are stored and echoed unchanged', async () => {
    const metadata = { note: 'pass 🎓 𝒜 ✓', '🔑': 'ok' };
    const created = await h.partner(h.a, 'POST', `${P}/assignments`, assignmentBody(h.a, { externalUserId: '学生-🎓', metadata }));
    expect(created.statusCode).toBe(201);
    const read = (await h.partner(h.a, 'GET', `${P}/assignments/${created.json().assignmentId}`)).json();
    expect(read.metadata).toEqual(metadata);
    expect(read.externalUserId).toBe('学生-🎓');
  });
});

describe("requests Node's HTTP parser refuses before any route", () => {
  /** Sends raw bytes to a listening copy of the app and parses the one response. */
  async function raw(request: string): Promise<{ status: number; headers: Record<string, string>; body: any }> {
    const app = await buildServer(serverContext({ config: h.ctx.config, pool: h.pool, clock: systemClock }), { logger: false });
    await app.listen({ port: 0, host: '127.0.0.1' });
    try {
      const { port } = app.server.address() as { port: number };
      const text = await new Promise<string>((resolve, reject) => {
        const socket = net.connect(port, '127.0.0.1', () => socket.write(request));
        let out = '';
        socket.on('data', (d) => (out += d.toString('latin1')));
        socket.on('close', () => resolve(out));
        socket.on('error', reject);
      });
      const [head, body] = [text.slice(0, text.indexOf('\r\n\r\n')), text.slice(text.indexOf('\r\n\r\n') + 4)];
      const [statusLine, ...lines] = head.split('\r\n');
      const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
      return { status: Number(statusLine!.split(' ')[1]), headers, body: JSON.parse(body) };
    } finally {
      await app.close();
    }
  }

  it.each([
    ['a method that is not a token', `G\u0001T ${P}/tests HTTP/1.1\r\nHost: x\r\n\r\n`, 400, 'invalid_request'],
    ['a control character in a header value', `GET ${P}/tests HTTP/1.1\r\nHost: x\r\nX-Note: a\u0001b\r\n\r\n`, 400, 'invalid_request'],
    ['headers larger than the server accepts', `GET ${P}/tests HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`, 431, 'headers_too_large'],
  ])('%s: the error envelope with a request id, as for every other error', async (_what, request, status, code) => {
    const res = await raw(request);
    expect(res.status).toBe(status);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.headers['x-request-id']).toMatch(/^req_[0-9A-Za-z]{22}$/);
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.body).toEqual({ error: { code, message: expect.any(String), requestId: res.headers['x-request-id'] } });
  });
});

describe('bodies that are not UTF-8 JSON', () => {
  it('invalid UTF-8 in a JSON body is refused with 400 and nothing is stored (never replaced by U+FFFD)', async () => {
    const before = (await h.pool.query('SELECT count(*)::int AS n FROM assignments')).rows[0].n;
    const text = JSON.stringify(assignmentBody(h.a, { metadata: { note: 'XX' } }));
    const at = text.indexOf('XX');
    const payload = Buffer.concat([Buffer.from(text.slice(0, at)), Buffer.from([0xc3, 0x28]), Buffer.from(text.slice(at + 2))]);
    const res = await h.app.inject({
      method: 'POST',
      url: `${P}/assignments`,
      headers: { authorization: `Bearer ${h.a.apiKey}`, 'content-type': 'application/json' },
      payload,
    });
    const err = expectError(res, 400, 'invalid_request');
    expect(err.error.details).toEqual([{ field: 'body', message: 'is not valid UTF-8' }]);
    expect((await h.pool.query('SELECT count(*)::int AS n FROM assignments')).rows[0].n).toBe(before);
  });

  it('valid multi-byte UTF-8 and a JSON body with charset=utf-8 are accepted; proto poisoning is still refused', async () => {
    const res = await h.partner(h.a, 'POST', `${P}/assignments`, assignmentBody(h.a, { metadata: { note: 'é ✓ 🎓' } }), { 'content-type': 'application/json; charset=utf-8' });
    expect(res.statusCode, res.body).toBe(201);
    const poisoned = await h.partner(h.a, 'POST', `${P}/assignments`, '{"__proto__": {"x": 1}}');
    expectError(poisoned, 400, 'invalid_request');
    expectError(await h.partner(h.a, 'POST', `${P}/assignments`, '{"a": '), 400, 'invalid_request');
  });
});

describe('validation messages say what is allowed, once', () => {
  const EVENT_TYPES = SUBSCRIBABLE_EVENT_TYPES.join(', ');

  it('an unknown event type in a body: one detail listing the allowed values', async () => {
    const res = await h.partner(h.a, 'POST', `${P}/webhook-endpoints`, { url: 'https://hooks.alpha-college.example/x', eventTypes: ['exam.finished'] });
    const err = expectError(res, 400, 'invalid_request');
    expect(err.error.details).toEqual([{ field: 'eventTypes.0', message: `must be one of: ${EVENT_TYPES}` }]);
    expect(err.error.message).toBe(`eventTypes.0: must be one of: ${EVENT_TYPES}`);
  });

  it('an unknown value in a query parameter: one detail listing the allowed values', async () => {
    const err = expectError(await h.partner(h.a, 'GET', `${P}/events?type=nope`), 400, 'invalid_request');
    expect(err.error.details).toEqual([{ field: 'type', message: `must be one of: ${ALL_EVENT_TYPES.join(', ')}` }]);
  });

  it('a wrong type for a nullable field: one detail naming both types', async () => {
    const res = await h.partner(h.a, 'POST', `${P}/webhook-endpoints`, { url: 'https://hooks.alpha-college.example/x', description: 5 });
    expect(expectError(res, 400, 'invalid_request').error.details).toEqual([{ field: 'description', message: 'must be string or null' }]);
  });

  it('a misspelled field headlines the misspelling with the known name, not the missing field', async () => {
    const { testId, ...body } = assignmentBody(h.a);
    const res = await h.partner(h.a, 'POST', `${P}/assignments`, { ...body, testID: testId });
    const err = expectError(res, 400, 'invalid_request');
    expect(err.error.message).toBe('testID is not a known field (did you mean testId?)');
    expect(err.error.details).toEqual([{ field: 'testID', message: 'is not a known field (did you mean testId?)' }]);
  });

  it('a misspelled optional field gets the same hint; an unrelated unknown field gets none', async () => {
    const typo = expectError(await h.partner(h.a, 'POST', `${P}/assignments`, assignmentBody(h.a, { dueat: '2040-01-01T00:00:00Z' })), 400, 'invalid_request');
    expect(typo.error.details).toEqual([{ field: 'dueat', message: 'is not a known field (did you mean dueAt?)' }]);
    const other = expectError(await h.partner(h.a, 'POST', `${P}/assignments`, assignmentBody(h.a, { colour: 'red' })), 400, 'invalid_request');
    expect(other.error.details).toEqual([{ field: 'colour', message: 'is not a known field' }]);
    expect(other.error.message).toBe('colour is not a known field');
  });
});

describe('server failures', () => {
  it('a database failure is a 500 internal_error without stack, SQL or table names, with the request id', async () => {
    const broken = await createHarness();
    try {
      await broken.pool.query('DROP TABLE publications CASCADE');
      const res = await broken.partner(broken.a, 'GET', `${P}/tests`);
      const err = expectError(res, 500, 'internal_error');
      expect(err.error.details).toBeUndefined();
      expect(res.body).not.toMatch(/publications|relation|select|from |at .*\.ts|stack|postgres|42P01/i);
      const post = await broken.partner(broken.a, 'POST', `${P}/assignments`, assignmentBody(broken.a));
      expectError(post, 500, 'internal_error');
      expect(post.body).not.toMatch(/publications|relation|select|stack/i);
    } finally {
      await broken.close();
    }
  });

  it('an unreachable database is 503 unavailable with Retry-After, and /readyz says so while /healthz stays 200', async () => {
    const pool = createPool('postgres://postgres@127.0.0.1:1/none', 1);
    const app = await buildServer(serverContext({ config: h.ctx.config, pool, clock: systemClock }), { logger: false });
    try {
      const res = await app.inject({ method: 'GET', url: `${P}/tests`, headers: { authorization: `Bearer ${h.a.apiKey}` } });
      expectError(res, 503, 'unavailable');
      expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
      expect((await app.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(503);
      expect((await app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
    } finally {
      await app.close();
      await pool.end();
    }
  });

  it('/readyz is 200 when the database answers', async () => {
    expect((await h.app.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(200);
  });
});

describe('server timeouts', () => {
  it('a slow client cannot hold a connection for ever: request, headers and keep-alive time out', () => {
    const server = h.app.server as unknown as import('node:http').Server;
    // The 30 s for a body is armed per request (request-time.ts, test/platform/upload-time.test.ts); Node's own is the backstop above every upload's time.
    expect(server.requestTimeout).toBe(30 * 60_000);
    expect(server.headersTimeout).toBe(10_000);
    expect(server.keepAliveTimeout).toBe(72_000);
    // Node checks the two request timers on this interval: a slow sender is cut within a few seconds of its limit.
    expect((server as unknown as { connectionsCheckingInterval?: number }).connectionsCheckingInterval ?? 0).toBeLessThanOrEqual(2_000);
  });

  it('headers that never finish arriving get the 408 envelope once the headers timeout passes', async () => {
    const app = await buildServer(serverContext({ config: h.ctx.config, pool: h.pool, clock: systemClock }), { logger: false });
    await app.listen({ port: 0, host: '127.0.0.1' });
    try {
      const { port } = app.server.address() as { port: number };
      const started = Date.now();
      const text = await new Promise<string>((resolve) => {
        const socket = net.connect(port, '127.0.0.1', () => socket.write(`GET ${P}/tests HTTP/1.1\r\nHost: x\r\n`));
        let out = '';
        socket.on('data', (d) => (out += d.toString()));
        socket.on('close', () => resolve(out));
      });
      expect(Date.now() - started).toBeLessThan(15_000);
      expect(text).toMatch(/^HTTP\/1\.1 408 /);
      const body = JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4));
      expect(body.error.code).toBe('request_timeout');
      expect(text).toContain(`x-request-id: ${body.error.requestId}`.replace('x-request-id', 'X-Request-Id'));
    } finally {
      await app.close();
    }
  }, 20_000);
});

describe('graceful shutdown', () => {
  it('a request still arriving on a kept-alive connection while the server closes gets the 503 envelope with Retry-After', async () => {
    const pool = createPool(h.databaseUrl, 2);
    const app = await buildServer(serverContext({ config: h.ctx.config, pool, clock: systemClock }), { logger: false });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = app.server.address() as { port: number };
    // Hold the first request in the auth query, so its connection is busy (not idle) when the
    // server starts closing; the second request then arrives on it during close.
    const blocker = await h.pool.connect();
    await blocker.query('BEGIN');
    await blocker.query('LOCK TABLE api_keys IN ACCESS EXCLUSIVE MODE');
    const socket = net.connect(port, '127.0.0.1');
    let raw = '';
    socket.on('data', (d) => (raw += d.toString('latin1')));
    const ended = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    const request = `GET ${P}/tests HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${h.a.apiKey}\r\nConnection: keep-alive\r\n\r\n`;
    socket.write(request);
    await new Promise((r) => setTimeout(r, 200));
    const closed = app.close();
    await new Promise((r) => setTimeout(r, 100));
    socket.write(request);
    await new Promise((r) => setTimeout(r, 200));
    await blocker.query('COMMIT');
    blocker.release();
    await closed;
    await ended;
    await pool.end();
    const responses = raw.split(/(?=HTTP\/1\.1 )/);
    expect(responses).toHaveLength(2);
    expect(responses[0]).toMatch(/^HTTP\/1\.1 200/);
    const second = responses[1]!;
    expect(second).toMatch(/^HTTP\/1\.1 503/);
    expect(second).toMatch(/\r\nretry-after: \d+\r\n/i);
    const requestId = /\r\nx-request-id: (req_\w+)\r\n/i.exec(second)?.[1];
    expect(requestId).toBeDefined();
    const body = JSON.parse(second.slice(second.indexOf('\r\n\r\n') + 4));
    expect(body).toEqual({ error: { code: 'unavailable', message: expect.any(String), requestId } });
  });
});
