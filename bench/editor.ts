import { parseArgs } from 'node:util';
import { performance } from 'node:perf_hooks';
import { createPool } from '../src/platform/db.js';
import { systemClock } from '../src/platform/clock.js';
import { migrate } from '../src/platform/migrate.js';
import { createInstitution } from '../src/modules/institutions/institutions.js';
import { inviteStaff } from '../src/modules/staff/staff-service.js';
import { PORTAL_COOKIE, createPortalSession } from '../src/modules/staff/portal-sessions.js';
import { buildServer, serverContext } from '../src/server.js';
import { benchAppConfig, openBenchDatabase } from './bench-database.js';
import { benchTestContent } from './editor-content.js';

/**
 * `npm run bench:editor -- [--requests 300]`
 *
 * The form editor of a 200-question test (bench/editor-content.ts: two
 * sections, the nine basic types; opening under 150 ms p99, and a save of
 * one changed question under 50 ms p99), through the
 * real app and database (`app.inject`, one request at a time, signed in as
 * an author):
 *
 * - open: the editor page (`GET /portal/tests/{id}/edit`: the draft, its
 *   problems and the versions, in the page);
 * - load: the draft alone (`GET /portal/authoring/tests/{id}/draft`);
 * - save: an autosave (`PUT …/draft` naming the current revision, one
 *   prompt changed: the draft is stored and checked, only the changed text's
 *   content afresh, docs/authoring.md "How a save is checked");
 * - preview: the saved draft rendered by the student page's renderer
 *   (`GET /portal/tests/{id}/draft/preview`);
 * - baseline: the same app answering the portal's stylesheet (a route that
 *   does no work), measured in the same run, so the figures read as a ratio.
 *
 * Prints p50 / p99 / max in milliseconds and p99 ÷ the target, where there is one.
 */
const { values: opts } = parseArgs({ options: { requests: { type: 'string', default: '300' } } });
const REQUESTS = Number(opts.requests);
if (!Number.isInteger(REQUESTS) || REQUESTS < 20) throw new Error('--requests: a whole number ≥ 20');
const TARGETS_MS: Record<string, number> = { open: 150, load: 150, save: 50 };

const content = benchTestContent(200);

function stats(label: string, ms: number[]): string {
  const target = TARGETS_MS[label];
  const s = [...ms].sort((a, b) => a - b);
  const at = (p: number) => s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]!;
  return `  ${label.padEnd(10)} n=${s.length}  p50 ${at(50).toFixed(2)} ms  p99 ${at(99).toFixed(2)} ms  max ${s.at(-1)!.toFixed(2)} ms${target ? `  (p99 ÷ ${target} ms target: ${(at(99) / target).toFixed(2)})` : ''}`;
}

const db = await openBenchDatabase('assay_bench_editor');
const pool = createPool(db.url, 10);
try {
  await migrate(pool);
  const ctx = serverContext({ config: benchAppConfig(db.url), pool, clock: systemClock });
  const app = await buildServer(ctx, { logger: false });
  const institution = await createInstitution(pool, { name: 'Bench University', callbackDomains: ['bench.example'] });
  const staff = await inviteStaff(ctx, { institutionId: institution.institutionId, email: 'author@bench.example', name: 'Bench Author', role: 'author' }, { actor: { kind: 'cli' }, ip: null });
  const { sessionId, csrf } = await createPortalSession(pool, { staffId: staff.staffId, method: 'link', now: new Date() });
  const cookie = `${PORTAL_COOKIE}=${sessionId}`;
  const json = { cookie, 'x-csrf-token': csrf, 'content-type': 'application/json' };
  const created = await app.inject({ method: 'POST', url: '/portal/authoring/tests', headers: json, payload: JSON.stringify({ content }) });
  if (created.statusCode !== 201) throw new Error(`create: ${created.statusCode} ${created.body}`);
  const { testId, problems } = created.json();
  if (problems.length) throw new Error(`the bench test has problems: ${JSON.stringify(problems.slice(0, 3))}`);
  let revision = created.json().revision as number;

  const timed = async <R extends { statusCode: number; body: string }>(f: () => Promise<R>, ok: number) => {
    const t = performance.now();
    const res = await f();
    const ms = performance.now() - t;
    if (res.statusCode !== ok) throw new Error(`${res.statusCode}: ${res.body.slice(0, 200)}`);
    return { ms, res };
  };
  const open = () => app.inject({ method: 'GET', url: `/portal/tests/${testId}/edit`, headers: { cookie } });
  const load = () => app.inject({ method: 'GET', url: `/portal/authoring/tests/${testId}/draft`, headers: { cookie } });
  const preview = () => app.inject({ method: 'GET', url: `/portal/tests/${testId}/draft/preview?revision=${revision}`, headers: { cookie } });
  const baseline = () => app.inject({ method: 'GET', url: '/portal/assets/portal.css' });
  // The process's CPU time during each save (the app's and this client's, one process): what a save costs whatever the machine's load.
  const saveCpu: number[] = [];
  const save = async (i: number) => {
    content.sections[0]!.questions[i % 100]!.prompt = `Question ${i}: edited $y = ${i}$.`;
    const cpu = process.cpuUsage();
    const { ms, res } = await timed(() => app.inject({ method: 'PUT', url: `/portal/authoring/tests/${testId}/draft`, headers: json, payload: JSON.stringify({ revision, content }) }), 200);
    const spent = process.cpuUsage(cpu);
    saveCpu.push((spent.user + spent.system) / 1000);
    revision = res.json().revision;
    return ms;
  };
  for (let i = 0; i < 20; i++) {
    await open();
    await load();
    await save(i);
    await baseline();
  }
  const figures = { open: [] as number[], load: [] as number[], save: [] as number[], preview: [] as number[], baseline: [] as number[] };
  for (let i = 0; i < REQUESTS; i++) {
    figures.open.push((await timed(open, 200)).ms);
    figures.load.push((await timed(load, 200)).ms);
    figures.save.push(await save(i + 20));
    figures.baseline.push((await timed(baseline, 200)).ms);
    if (i % 10 === 0) figures.preview.push((await timed(preview, 200)).ms);
  }
  const size = (await open()).body.length;
  console.log(`The editor of a 200-question test (2 sections, 9 types; draft ${Math.round(JSON.stringify(content).length / 1024)} KB, editor page ${Math.round(size / 1024)} KB); Node ${process.version}, PostgreSQL ${db.version}${db.embedded ? ' (embedded)' : ''}`);
  console.log(stats('open', figures.open));
  console.log(stats('load', figures.load));
  console.log(stats('save', figures.save));
  console.log(stats('preview', figures.preview));
  console.log(stats('baseline', figures.baseline));
  const cpu = [...saveCpu.slice(20)].sort((a, b) => a - b);
  console.log(`  save CPU (app and client, one process): p50 ${cpu[Math.floor(cpu.length / 2)]!.toFixed(2)} ms, mean ${(cpu.reduce((n, x) => n + x, 0) / cpu.length).toFixed(2)} ms`);
  const p99 = (ms: number[]) => [...ms].sort((a, b) => a - b)[Math.ceil(0.99 * ms.length) - 1]!;
  console.log(`  open p99 ÷ baseline p99: ${(p99(figures.open) / p99(figures.baseline)).toFixed(1)}×;  save p99 ÷ baseline p99: ${(p99(figures.save) / p99(figures.baseline)).toFixed(1)}×`);
  await app.close();
} finally {
  await pool.end();
  await db.close();
}
