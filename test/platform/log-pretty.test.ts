import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/platform/log/log.js';
import { buildServer, serverContext } from '../../src/server.js';
import { createHarness, type Harness } from '../helpers/harness.js';

/** A real server logging to a terminal. The stream on its own is checked in src/platform/log/log-pretty.test.ts. */
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
