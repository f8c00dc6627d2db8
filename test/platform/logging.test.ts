import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freezeConfig } from '../../src/platform/config.js';
import { buildServer, serverContext } from '../../src/server.js';
import { ADMIN_TOKEN, assignmentBody, createHarness, type Harness } from '../helpers/harness.js';
import { spawnWorker } from '../helpers/worker-process.js';

/**
 * A server built on the harness database but logging at trace level into
 * memory: what a production log would hold for the same requests.
 */
let h: Harness;
let app: Awaited<ReturnType<typeof buildServer>>;
const lines: string[] = [];

beforeAll(async () => {
  h = await createHarness();
  const config = freezeConfig({ ...h.ctx.config, logLevel: 'trace' });
  app = await buildServer(serverContext({ config, pool: h.pool, clock: h.clock }), { logStream: { write: (line) => void lines.push(line) } });
});
afterAll(async () => {
  await app.close();
  await h.close();
});

const partner = (method: 'GET' | 'POST', url: string, body?: unknown, key = h.a.apiKey) =>
  app.inject({
    method,
    url,
    headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { payload: JSON.stringify(body) } : {}),
  });

describe('logs', () => {
  it('never contain an API key, the operator token or a start-link token, and carry the request id of each request', async () => {
    const responses = [];
    const created = await partner('POST', '/api/partner/v1/assignments', assignmentBody(h.a), h.a.apiKey);
    responses.push(created);
    const read = await partner('GET', `/api/partner/v1/assignments/${created.json().assignmentId}`);
    responses.push(read);
    responses.push(await partner('GET', '/api/partner/v1/tests'));
    responses.push(await partner('POST', '/api/partner/v1/assignments', { bad: 'body' }));
    // A mistyped (unknown) key and a revoked one must not be logged either.
    const typo = `${h.b.apiKey.slice(0, -1)}X`;
    responses.push(await partner('GET', '/api/partner/v1/tests', undefined, typo));
    const newKey = await app.inject({
      method: 'POST',
      url: `/api/admin/v1/institutions/${h.b.institutionId}/api-keys`,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      payload: '{}',
    });
    responses.push(newKey);
    responses.push(await app.inject({ method: 'GET', url: '/api/admin/v1/institutions', headers: { authorization: `Bearer ${ADMIN_TOKEN}` } }));
    responses.push(await app.inject({ method: 'GET', url: '/api/admin/v1/institutions', headers: { authorization: `Bearer ${ADMIN_TOKEN}x` } }));
    // Following the start links (any outcome) must not log their tokens.
    const tokens = [created.json().startUrl, read.json().startUrl].map((u: string) => u.split('/s/')[1]!);
    for (const token of tokens) responses.push(await app.inject({ method: 'GET', url: `/s/${token}` }));
    responses.push(await app.inject({ method: 'GET', url: `/s/${tokens[0]}?utm=1` }));

    const log = lines.join('');
    expect(lines.length).toBeGreaterThan(responses.length);
    const secrets = [h.a.apiKey, h.b.apiKey, typo, newKey.json().apiKey, ADMIN_TOKEN, ...tokens];
    for (const s of secrets) {
      expect(log).not.toContain(s);
      // Nor a recognisable piece of one (a prefix that identifies it).
      expect(log).not.toContain(s.slice(0, 24));
    }
    for (const r of responses) expect(log).toContain(r.headers['x-request-id'] as string);
  });

  it('credential-looking query values are redacted from logged URLs; other parameters stay readable', async () => {
    lines.length = 0;
    const key = h.a.apiKey;
    const names = ['api_key', 'apiKey', 'key', 'token', 'access_token', 'secret', 'client_secret', 'password', 'sig', 'signature', 'auth'];
    for (const name of names) {
      await app.inject({ method: 'GET', url: `/api/partner/v1/tests?${name}=${key}Z${name}&limit=5` });
    }
    // A key pasted under any name is recognised by its form.
    await app.inject({ method: 'GET', url: `/api/partner/v1/tests?q=${key}&offset=0` });
    await app.inject({ method: 'GET', url: `/nowhere?whsec=whsec_c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0` });
    const log = lines.join('');
    expect(log).not.toContain(key.slice(0, 16));
    expect(log).not.toContain('c2VjcmV0c2VjcmV0');
    const urls = lines.map((l) => JSON.parse(l)).filter((e) => e.req?.url).map((e) => e.req.url as string);
    for (const name of names) expect(urls).toContain(`/api/partner/v1/tests?${name}=[redacted]&limit=5`);
    expect(urls).toContain('/api/partner/v1/tests?q=[redacted]&offset=0');
  });

  it('a client that disconnects mid-upload is a client abort at debug level, not an error or an outage', async () => {
    await app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = app.server.address() as { port: number };
    lines.length = 0;
    await new Promise<void>((resolve) => {
      const socket = net.connect(port, '127.0.0.1', () => {
        socket.write(
          `POST /api/partner/v1/assignments HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${h.a.apiKey}\r\n` +
            `Content-Type: application/json\r\nContent-Length: 50000\r\n\r\n{"externalUserId": "`,
        );
        setTimeout(() => socket.destroy(), 200);
      });
      socket.on('close', () => resolve());
    });
    await new Promise((r) => setTimeout(r, 300));
    const entries = lines.map((l) => JSON.parse(l) as { level: number; msg?: string; code?: string });
    expect(entries.filter((e) => e.level >= 40)).toEqual([]);
    expect(entries.some((e) => e.code === 'unavailable')).toBe(false);
    expect(entries.find((e) => e.msg === 'client aborted the request')?.level).toBe(20);
  });

  it('npm run worker logs through the same logger: JSON lines with time, level and pid', async () => {
    const worker = await spawnWorker(h.databaseUrl, { LOG_LEVEL: 'info' });
    try {
      const started = worker.output.join('').split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Record<string, unknown>);
      const line = started.find((e) => e.msg === 'worker started')!;
      expect(line).toMatchObject({ level: 30, pid: expect.any(Number), time: expect.any(Number), workerId: expect.any(String) });
    } finally {
      worker.kill('SIGTERM');
      await worker.exited;
    }
  });

  it('every line is JSON, and every line about a request names its request id', () => {
    for (const line of lines) {
      const entry = JSON.parse(line) as Record<string, unknown>;
      if ('req' in entry || 'res' in entry || entry.msg === 'request refused') expect(entry.requestId).toMatch(/^req_/);
    }
  });

  it('authenticated requests are logged with the key id, never the key', async () => {
    lines.length = 0;
    const res = await partner('GET', '/api/partner/v1/tests');
    const entries = lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((e) => e.requestId === res.headers['x-request-id']);
    expect(entries.some((e) => e.keyId === h.a.keyId)).toBe(true);
  });

  it('a 500 is logged with its cause under the request id, while the body says nothing of it', async () => {
    const broken = await createHarness();
    const logged: string[] = [];
    const config = freezeConfig({ ...broken.ctx.config, logLevel: 'info' });
    const brokenApp = await buildServer(serverContext({ config, pool: broken.pool, clock: broken.clock }), {
      logStream: { write: (line) => void logged.push(line) },
    });
    try {
      await broken.pool.query('DROP TABLE publications CASCADE');
      const res = await brokenApp.inject({ method: 'GET', url: '/api/partner/v1/tests', headers: { authorization: `Bearer ${broken.a.apiKey}` } });
      expect(res.statusCode).toBe(500);
      expect(res.body).not.toContain('publications');
      const errorLine = logged.map((l) => JSON.parse(l)).find((e) => e.requestId === res.headers['x-request-id'] && e.level >= 50);
      expect(JSON.stringify(errorLine)).toContain('publications');
      expect(logged.join('')).not.toContain(broken.a.apiKey);
    } finally {
      await brokenApp.close();
      await broken.close();
    }
  });
});
