import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPrettyStream } from '../../src/platform/log/log-pretty.js';
import { createLogger } from '../../src/platform/log/log.js';
import { buildServer, serverContext } from '../../src/server.js';
import { createHarness, type Harness } from '../helpers/harness.js';

/** The terminal form of the logs: one line per request, other lines short, nothing before the banner. */
const T = Date.UTC(2030, 0, 1, 12, 3, 7);
const line = (o: object) => `${JSON.stringify({ level: 30, time: T, pid: 1, hostname: 'h', ...o })}\n`;

describe('pretty log stream', () => {
  it('holds every line until released, then writes one line per request: method, URL, status, time, refusal code', () => {
    const out: string[] = [];
    const s = createPrettyStream({ write: (t) => void out.push(t) });
    s.write(line({ requestId: 'req_1', req: { method: 'GET', url: '/api/partner/v1/tests?api_key=[redacted]' }, msg: 'incoming request' }));
    s.write(line({ requestId: 'req_1', code: 'unauthenticated', status: 401, msg: 'request refused' }));
    s.write(line({ requestId: 'req_1', res: { statusCode: 401 }, responseTime: 2.46, msg: 'request completed' }));
    s.write(line({ msg: 'Server listening at http://127.0.0.1:3000' }));
    expect(out).toEqual([]);
    s.release();
    expect(out).toHaveLength(1);
    expect(out[0]).toMatch(/^\d\d:\d\d:\d\d {2}GET \/api\/partner\/v1\/tests\?api_key=\[redacted\] {2}401 {2}2\.5 ms {2}unauthenticated\n$/);
    s.write(line({ level: 40, msg: 'webhook endpoint answered 410 Gone; disabling it', endpointId: 'whep_1' }));
    expect(out[1]).toMatch(/ {2}WARN {2}webhook endpoint answered 410 Gone; disabling it {2}endpointId=whep_1\n$/);
    s.write('not json\n');
    expect(out[2]).toBe('not json\n');
  });
});

describe('a server logging to a terminal', () => {
  let h: Harness;
  const out: string[] = [];
  let app: Awaited<ReturnType<typeof buildServer>>;
  beforeAll(async () => {
    h = await createHarness();
    const logger = createLogger({ level: 'info', pretty: true, stream: { write: (t) => void out.push(t) } });
    logger.pretty!.release();
    app = await buildServer(serverContext({ config: h.ctx.config, pool: h.pool, clock: h.clock }), { logger });
  });
  afterAll(async () => {
    await app.close();
    await h.close();
  });

  it('writes one readable line per request and no JSON', async () => {
    await app.inject({ method: 'GET', url: '/api/partner/v1/tests', headers: { authorization: `Bearer ${h.a.apiKey}` } });
    await app.inject({ method: 'GET', url: '/api/partner/v1/nothing' });
    expect(out.filter((l) => l.startsWith('{'))).toEqual([]);
    expect(out.some((l) => / {2}GET \/api\/partner\/v1\/tests {2}200 {2}[\d.]+ ms\n$/.test(l))).toBe(true);
    expect(out.some((l) => / {2}GET \/api\/partner\/v1\/nothing {2}404 {2}[\d.]+ ms\n$/.test(l))).toBe(true);
    expect(out).toHaveLength(2);
    expect(out.join('')).not.toContain(h.a.apiKey);
  });
});
