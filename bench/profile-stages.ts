import fs from 'node:fs';

/**
 * `npx tsx bench/profile-stages.ts <file.cpuprofile> [µs per request]`
 *
 * Splits a V8 CPU profile of the bench servers' process (`npm run bench --
 * --profile --app-only --only <case>`) into the stages of a partner request,
 * and prints each stage's share of the process's busy time and, given the
 * bench's Node CPU per request, its microseconds per request. Each sample is
 * charged to the innermost frame of its stack that belongs to a stage (so a
 * hash computed inside the key cache counts as authentication, a header set
 * inside the rate limiter as rate limiting); what matches no stage is
 * Node's own HTTP server and sockets; Fastify's routing and hook runner and
 * the app's remaining code each have a line of their own.
 */
type Stage = string;
const RULES: [Stage, (url: string, fn: string) => boolean][] = [
  ['start-link signing', (u, f) => u.includes('/start-links.') || u.includes('/report-links.') || (u.includes('/platform/crypto.') && f.startsWith('hmac'))],
  ['authentication + key cache', (u) => u.includes('/partner-auth.') || u.includes('/key-cache.') || u.includes('/api-keys.') || u.includes('/admin-auth.')],
  // The student's save: its session (cookie, the process's recent sessions) and CSRF check are its authentication.
  ['authentication + key cache', (u) => u.includes('/student-auth.') || u.includes('/student-sessions.') || u.includes('@fastify/cookie') || u.includes('/cookie/')],
  ['rate limiting', (u) => u.includes('/rate-limit')],
  ['validation', (u, f) => u.includes('/validation.') || u.includes('/storable-input.') || u.includes('/ajv/') || u.includes('/json-body.') || u.includes('secure-json-parse') || f === 'validate'],
  ['serialisation', (u, f) => u.includes('fast-json-stringify') || u.includes('/send-assignment-view.') || u.includes('/raw-json.') || f === 'anonymous' && u === '' || f.startsWith('serialize') || f === '$asString' || f === 'asDateTime'],
  ['metrics + tracing hooks', (u) => u.includes('/telemetry/') || u.includes('prom-client') || u.includes('@opentelemetry')],
  ['request id + logging', (u) => u.includes('/platform/ids.') || u.includes('/pino') || u.includes('/log/') || u.includes('fastify/lib/logger') || u.includes('sonic-boom')],
  ['SQL round trip (client side)', (u) => u.includes('/save-batcher.') || u.includes('/attempts-repo.') || u.includes('/pg/') || u.includes('/pg-protocol/') || u.includes('/pg-types/') || u.includes('/pg-pool/') || u.includes('/turn-batcher.') || u.includes('-repo.') || u.includes('/platform/db.') || u.includes('postgres-array') || u.includes('/find-assignment.')],
  ['response headers', (u, f) => (u.includes('fastify/lib/reply') && /header/i.test(f)) || f === 'setHeader' || f === 'writeHead' || f === '_storeHeader' || f === 'processHeader'],
  ['garbage collection', (_u, f) => f === '(garbage collector)'],
  ['other app code (route handlers, business checks)', (u) => u.includes('/src/')],
  ['fastify (routing, hooks, reply)', (u) => u.includes('/fastify/') || u.includes('find-my-way') || u.includes('light-my-request') || u.includes('avvio')],
];
/** A stack with no frame of any stage above: Node's own HTTP server, sockets, parser, timers. */
const FALLBACK = 'connection + parsing (node:http, sockets)';

interface Node {
  id: number;
  callFrame: { functionName: string; url: string };
  children?: number[];
}
const [file, perRequest] = process.argv.slice(2);
if (!file) throw new Error('usage: tsx bench/profile-stages.ts <file.cpuprofile> [µs per request]');
const profile = JSON.parse(fs.readFileSync(file, 'utf8')) as { nodes: Node[]; samples: number[]; timeDeltas: number[] };
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map<number, number>();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);

/** Startup (module loading, schema compilation, migrations, seeding): left out of the busy time. */
const startupMemo = new Map<number, boolean>();
function isStartup(id: number): boolean {
  const known = startupMemo.get(id);
  if (known !== undefined) return known;
  const { url, functionName } = byId.get(id)!.callFrame;
  const p = parent.get(id);
  const v =
    url.startsWith('node:internal/modules/') || url.includes('avvio') || url.includes('/migrate.') || url.includes('/bench/servers.') ||
    functionName === 'buildServer' || (p !== undefined && isStartup(p));
  startupMemo.set(id, v);
  return v;
}

function underPg(id: number | undefined): boolean {
  for (; id !== undefined; id = parent.get(id)) if (/\/pg(-protocol|-pool)?\//.test(byId.get(id)!.callFrame.url)) return true;
  return false;
}

const stageOf = new Map<number, Stage>();
function classify(id: number): Stage {
  const known = stageOf.get(id);
  if (known) return known;
  const n = byId.get(id)!;
  const { url, functionName } = n.callFrame;
  let stage: Stage | undefined;
  if (functionName === '(idle)' || functionName === '(program)' || functionName === '(root)') stage = functionName;
  // A socket write (native) is the SQL round trip's when pg sends it, else the HTTP connection's (the answer).
  else if (url === '' && /^(writev|writeBuffer|write\w*String|writeGeneric)$/.test(functionName)) stage = underPg(id) ? 'SQL round trip (client side)' : FALLBACK;
  else stage = RULES.find(([, match]) => match(url, functionName))?.[0];
  if (!stage) {
    const p = parent.get(id);
    stage = p === undefined ? FALLBACK : classify(p);
    if (stage === '(root)') stage = FALLBACK;
  }
  stageOf.set(id, stage);
  return stage;
}

const totals = new Map<Stage, number>();
profile.samples.forEach((id, i) => {
  const s = isStartup(id) ? '(startup)' : classify(id);
  totals.set(s, (totals.get(s) ?? 0) + (profile.timeDeltas[i] ?? 0));
});
const busy = [...totals].filter(([s]) => s !== '(idle)' && s !== '(startup)').reduce((a, [, t]) => a + t, 0);
const us = perRequest ? Number(perRequest) : null;
console.log(`busy ${(busy / 1e6).toFixed(2)} s of ${([...totals.values()].reduce((a, b) => a + b, 0) / 1e6).toFixed(2)} s`);
for (const [s, t] of [...totals].filter(([s]) => s !== '(idle)' && s !== '(startup)').sort((a, b) => b[1] - a[1])) {
  const share = t / busy;
  console.log(`${s.padEnd(32)} ${(share * 100).toFixed(1).padStart(5)} %${us ? `  ${(share * us).toFixed(1).padStart(6)} µs` : ''}`);
}
