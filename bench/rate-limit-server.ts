import { createPool } from '../src/platform/db.js';
import { systemClock } from '../src/platform/clock.js';
import { freezeConfig } from '../src/platform/config.js';
import type { RateLimitStoreKind } from '../src/platform/http/rate-limit-store.js';
import { buildServer, serverContext } from '../src/server.js';
import { benchAppConfig } from './bench-database.js';

/**
 * One API process of bench/rate-limit-stores.ts: the real app with the given
 * rate-limit store and per-key limit, its own pool of 10 connections (as a
 * separate `npm start` would have), on a loopback port. Reports its URL to
 * the parent, and its CPU time when asked.
 */
const [databaseUrl, store, perSecond, burst] = process.argv.slice(2);
if (!databaseUrl || !process.send) throw new Error('bench/rate-limit-server.ts is started by bench/rate-limit-stores.ts');

const pool = createPool(databaseUrl, 10);
const base = benchAppConfig(databaseUrl);
const config = freezeConfig({
  ...base,
  rateLimit: { perSecond: Number(perSecond), burst: Number(burst) },
  operations: { ...base.operations, rateLimitStore: store as RateLimitStoreKind },
});
const app = await buildServer(serverContext({ config, pool, clock: systemClock }));
const url = await app.listen({ port: 0, host: '127.0.0.1' });
process.send({ url });
process.on('message', (m) => {
  if (m === 'cpu') process.send!({ cpu: process.cpuUsage() });
});

async function stop() {
  await app.close();
  await pool.end();
  process.exit(0);
}
process.on('SIGTERM', () => void stop());
process.on('disconnect', () => void stop());
