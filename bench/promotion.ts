import { fork } from 'node:child_process';
import { once } from 'node:events';
import v8 from 'node:v8';
import { Pool as HttpPool } from 'undici';
import { createPool } from '../src/platform/db.js';
import { systemClock } from '../src/platform/clock.js';
import { migrate } from '../src/platform/migrate.js';
import { createApiKey } from '../src/modules/institutions/api-keys.js';
import { createInstitution } from '../src/modules/institutions/institutions.js';
import { createTest, publishTest } from '../src/modules/catalog/tests-service.js';
import { DEMO_TESTS } from '../src/demo/demo-tests.js';
import { buildServer, serverContext, PARTNER_PREFIX } from '../src/server.js';
import { benchAppConfig, openBenchDatabase } from './bench-database.js';
import { createBodies } from './drive.js';
import { NODE_FLAGS } from '../bin/node-flags.js';

/**
 * `npm run bench:promotion`: what a burst of creates, then a burst of reads of one assignment, leave in
 * the old generation of an app process run with the product's V8 flags. Each burst runs 6 s with 32
 * connections against a server in this process, between two full collections: the old space's growth
 * over the burst is what its young collections promoted, and what a full collection then frees of it is
 * the dead part, which the young collections after the burst keep paying for until V8's next full
 * collection. Printed per request kind: bytes promoted per request, and what was still live after.
 */
if (typeof (globalThis as { gc?: unknown }).gc !== 'function') {
  // Started by tsx alone: run again with the flags the product runs with (they expose gc).
  const child = fork(import.meta.filename, process.argv.slice(2), { execArgv: [...NODE_FLAGS, '--import', 'tsx'], stdio: 'inherit' });
  const [code] = (await once(child, 'exit')) as [number | null];
  process.exit(code ?? 1);
}
const db = await openBenchDatabase('assay_promo');
const pool = createPool(db.url, 10);
await migrate(pool);
const inst = await createInstitution(pool, { name: 'B', callbackDomains: ['bench.example'] });
const { apiKey } = await createApiKey(pool, inst.institutionId, 'b');
const t = await createTest(pool, DEMO_TESTS[0]!);
await publishTest(pool, t.testId, inst.institutionId);
const app = await buildServer(serverContext({ config: benchAppConfig(db.url), pool, clock: systemClock }));
const url = await app.listen({ port: 0, host: '127.0.0.1' });
const http = new HttpPool(url, { connections: 32 });
const next = createBodies(t.testId);
const old = () => v8.getHeapSpaceStatistics().find((s) => s.space_name === 'old_space')!.space_used_size;
const gc = (globalThis as { gc: () => void }).gc;
async function burst(ms: number, path: 'create' | 'read', id?: string): Promise<number> {
  let n = 0;
  const until = performance.now() + ms;
  await Promise.all(Array.from({ length: 32 }, async () => {
    while (performance.now() < until) {
      const res = path === 'create'
        ? await http.request({ method: 'POST', path: `${PARTNER_PREFIX}/assignments`, headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' }, body: next().body })
        : await http.request({ method: 'GET', path: `${PARTNER_PREFIX}/assignments/${id}`, headers: { authorization: `Bearer ${apiKey}` } });
      const text = await res.body.text();
      if (res.statusCode >= 300) throw new Error(text);
      n++;
    }
  }));
  return n;
}
await burst(3000, 'create');
const id = ((await (await http.request({ method: 'POST', path: `${PARTNER_PREFIX}/assignments`, headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' }, body: next().body })).body.json()) as { assignmentId: string }).assignmentId;
for (const kind of ['create', 'read', 'create', 'read'] as const) {
  gc();
  const a = old();
  const n = await burst(6000, kind, id);
  const b = old();
  gc();
  const c = old();
  console.log(`${kind.padEnd(6)} ${String(n).padStart(6)} requests; old space grew ${((b - a) / 1024).toFixed(0).padStart(6)} KB (${((b - a) / n).toFixed(0).padStart(4)} B per request); live after a full collection ${((c - a) / 1024).toFixed(0)} KB`);
}
await http.close();
await app.close();
await pool.end();
await db.close();
