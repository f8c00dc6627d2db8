import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNotificationListener } from '../../src/platform/listener.js';
import { createTestDatabase } from '../helpers/database.js';

/**
 * A LISTEN connection that dies silently (a stalled network path: no error,
 * no FIN) is detected by the heartbeat within 10 s, so the key cache stops
 * trusting itself; the listener then reconnects and hears notifications again.
 */
let db: Awaited<ReturnType<typeof createTestDatabase>>;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  await db.drop();
});

/** A TCP relay to PostgreSQL that can be frozen: bytes stop flowing both ways, the sockets stay open. */
async function freezableRelay(target: URL) {
  let frozen = false;
  const pairs: Array<[net.Socket, net.Socket]> = [];
  const server = net.createServer((inbound) => {
    const outbound = net.connect(Number(target.port || 5432), target.hostname);
    pairs.push([inbound, outbound]);
    inbound.on('data', (d) => !frozen && outbound.write(d));
    outbound.on('data', (d) => !frozen && inbound.write(d));
    inbound.on('error', () => undefined);
    outbound.on('error', () => undefined);
    inbound.on('close', () => outbound.destroy());
    outbound.on('close', () => inbound.destroy());
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    port: (server.address() as net.AddressInfo).port,
    freeze: () => (frozen = true),
    thaw: () => (frozen = false),
    async close() {
      for (const [a, b] of pairs) a.destroy(), b.destroy();
      await new Promise((r) => server.close(r));
    },
  };
}

describe('the notification listener', () => {
  it('detects a silently stalled connection within 10 s and listens again once the path is back', async () => {
    const url = new URL(db.url);
    const relay = await freezableRelay(url);
    let lostAt = 0;
    let notified = 0;
    const listener = createNotificationListener({
      connection: { connectionString: `postgres://${url.username}@127.0.0.1:${relay.port}${url.pathname}` },
      channel: 'assay_listener_test',
      onNotify: () => notified++,
      onLost: () => (lostAt = performance.now()),
      heartbeatMs: 1_000,
      heartbeatTimeoutMs: 1_000,
    });
    try {
      await listener.start();
      expect(listener.isListening()).toBe(true);
      const frozenAt = performance.now();
      relay.freeze();
      while (listener.isListening() && performance.now() - frozenAt < 10_000) await new Promise((r) => setTimeout(r, 100));
      expect(listener.isListening()).toBe(false);
      expect(lostAt - frozenAt).toBeLessThan(10_000);

      relay.thaw();
      const thawedAt = performance.now();
      while (!listener.isListening() && performance.now() - thawedAt < 10_000) await new Promise((r) => setTimeout(r, 100));
      expect(listener.isListening()).toBe(true);
      const before = notified;
      const pg = await import('pg');
      const c = new pg.default.Client({ connectionString: db.url });
      await c.connect();
      await c.query(`NOTIFY assay_listener_test`);
      await c.end();
      const sentAt = performance.now();
      while (notified === before && performance.now() - sentAt < 5_000) await new Promise((r) => setTimeout(r, 50));
      expect(notified).toBeGreaterThan(before);
    } finally {
      await listener.stop();
      await relay.close();
    }
  });
});
