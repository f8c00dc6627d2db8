import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, createHarness, type Harness } from '../helpers/harness.js';

/**
 * Issue 20, item 3, the rule of docs/api-rules.md "What every operation
 * documents": each operation's document lists every status that any request
 * can meet, whatever the route, as well as its own:
 * - 400, 408 and 431 from the HTTP layer (a request Node cannot parse, one too
 *   slow to arrive, headers over 16 KB), before any route is chosen;
 * - on every operation whose method carries a body (POST, PUT, PATCH, DELETE),
 *   400 (malformed JSON, an unknown field), 413 (over 64 KB) and 415 (not
 *   JSON), including those that take no body: they declare an empty one
 *   (none, or `{}`), so a body with fields is refused like any unknown field.
 * Each request below is sent to every operation of both documents and the
 * status it gets must be one the operation documents.
 */
const P = '/api/partner/v1';
const A = '/api/admin/v1';
type Op = { path: string; method: string; op: { responses: Record<string, unknown>; requestBody?: unknown } };
let h: Harness;
let port: number;
const docs: Record<'partner' | 'admin', Op[]> = { partner: [], admin: [] };

beforeAll(async () => {
  h = await createHarness();
  for (const [kind, prefix] of [['partner', P], ['admin', A]] as const) {
    const doc = (await h.app.inject({ method: 'GET', url: `${prefix}/openapi.json` })).json();
    docs[kind] = Object.entries<Record<string, Op['op']>>(doc.paths).flatMap(([path, ops]) => Object.entries(ops).map(([method, op]) => ({ path, method, op })));
  }
  await h.app.listen({ port: 0, host: '127.0.0.1' });
  port = (h.app.server.address() as { port: number }).port;
});
afterAll(() => h.close());

/** One raw request over a socket (what inject cannot send: headers Node's parser refuses); the response's status. */
function rawStatus(request: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write(request));
    let out = '';
    socket.on('data', (d) => (out += d.toString('latin1')));
    socket.on('close', () => resolve(Number(out.split(' ')[1])));
    socket.on('error', reject);
  });
}

const BODY_METHODS = ['post', 'put', 'patch', 'delete'];

describe.each(['partner', 'admin'] as const)('the %s document', (kind) => {
  const token = () => (kind === 'partner' ? h.a.apiKey : ADMIN_TOKEN);
  const url = (path: string) => path.replace(/\{\w+\}/g, 'x_unknown');

  it('every operation documents 400, 408 and 431, and the statuses headers over 16 KB get are documented', async () => {
    const missing: string[] = [];
    for (const { path, method, op } of docs[kind]) {
      for (const s of ['400', '408', '431']) if (!(s in op.responses)) missing.push(`${method.toUpperCase()} ${path}: ${s}`);
      const status = await rawStatus(`${method.toUpperCase()} ${url(path)} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token()}\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
      expect(status).toBe(431);
      if (!(String(status) in op.responses)) missing.push(`${method.toUpperCase()} ${path}: big headers gave ${status}`);
    }
    expect(missing).toEqual([]);
  });

  it('a body of any kind sent to any operation gets a documented status', async () => {
    const missing: string[] = [];
    const auth = () => ({ authorization: `Bearer ${token()}` });
    for (const { path, method, op } of docs[kind]) {
      const send = (headers: Record<string, string>, payload: string) =>
        h.app.inject({ method: method.toUpperCase() as 'POST', url: url(path), headers: { ...auth(), ...headers }, payload });
      const probes: Array<[string, Record<string, string>, string]> = [
        ['an unknown body field', { 'content-type': 'application/json' }, '{"zzUnknown": 1}'],
        ['malformed JSON', { 'content-type': 'application/json' }, '{"zz'],
        ['a body of another type', { 'content-type': 'application/xml' }, '<a/>'],
        ['a text body', { 'content-type': 'text/plain' }, 'hello'],
        ['a body over the limit', { 'content-type': 'application/json' }, JSON.stringify({ x: 'y'.repeat(70_000) })],
      ];
      for (const [what, headers, payload] of probes) {
        const status = String((await send(headers, payload)).statusCode);
        if (!(status in op.responses)) missing.push(`${method.toUpperCase()} ${path}: ${what} gave ${status}`);
      }
      if (BODY_METHODS.includes(method)) {
        for (const s of ['400', '413', '415']) if (!(s in op.responses)) missing.push(`${method.toUpperCase()} ${path}: ${s} not documented`);
        if (!op.requestBody) missing.push(`${method.toUpperCase()} ${path}: no requestBody declared`);
      }
    }
    expect(missing).toEqual([]);
  });
});

describe('operations that take no body', () => {
  it('refuse a body with fields (400, nothing changes), and accept none or {}', async () => {
    const tenant = await h.createTenant('No Body College');
    const created = await h.partner(tenant, 'POST', `${P}/assignments`, {
      externalUserId: 'nb-1',
      testId: tenant.testId,
      user: { email: 'nb@example.org', name: 'No Body' },
      callbackUrl: tenant.callbackUrl,
    });
    expect(created.statusCode).toBe(201);
    const id = created.json().assignmentId as string;
    const refused = await h.partner(tenant, 'POST', `${P}/assignments/${id}/cancel`, { reason: 'moved' });
    expect(refused.statusCode).toBe(400);
    expect(refused.json().error.details).toEqual([expect.objectContaining({ field: 'reason' })]);
    expect((await h.partner(tenant, 'GET', `${P}/assignments/${id}`)).json().status).toBe('assigned');
    expect((await h.partner(tenant, 'POST', `${P}/assignments/${id}/start-link`, {})).statusCode).toBe(200);
    expect((await h.partner(tenant, 'POST', `${P}/assignments/${id}/start-link`)).statusCode).toBe(200);
    expect((await h.partner(tenant, 'POST', `${P}/assignments/${id}/cancel`)).statusCode).toBe(200);
  });
});
