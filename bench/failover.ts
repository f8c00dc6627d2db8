import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { Pool as HttpPool } from 'undici';
import { createPool } from '../src/platform/db.js';
import { randomBase62 } from '../src/platform/ids.js';
import { migrate } from '../src/platform/migrate.js';
import { createApiKey } from '../src/modules/institutions/api-keys.js';
import { createInstitution } from '../src/modules/institutions/institutions.js';
import { createTest, publishTest } from '../src/modules/catalog/tests-service.js';
import { createDatabase, startPrimary, startStandby, waitForReplay, type PgNode } from '../test/helpers/pg-cluster.js';
import { startReceiver } from '../test/helpers/webhook-receiver.js';
import { startHaproxy, type Haproxy } from './haproxy.js';
import { freePort } from './processes.js';
import { NODE_FLAGS } from '../bin/node-flags.js';

/**
 * `npm run bench:failover -- [--candidates 300] [--save-every 3] [--kill-after 20] [--after 20] [--checks 3]`
 *
 * The exam-day layout (bench/exam-day.ts: two API processes and a worker,
 * `node bin/run.js`, behind a real HAProxy checking /readyz) on a primary
 * with a synchronous standby (test/helpers/pg-cluster.ts), DATABASE_URL
 * naming both hosts, and `npx assay failover-watch` watching the pair. The
 * candidates autosave every `--save-every` s (a failed save is retried, as
 * the page does); a webhook endpoint receives every event. After
 * `--kill-after` s the primary gets SIGKILL; the watcher promotes the
 * standby; half the candidates press Submit once saves succeed again, and the
 * run goes on for `--after` s. Printed: downtime (first failed request after
 * the kill → first successful request sent after it), requests failed and
 * retried, acknowledged saves and submissions against what the new primary
 * holds (lost must be 0), events delivered, HAProxy's down-markings.
 */
const { values: opts } = parseArgs({
  options: {
    candidates: { type: 'string', default: '300' },
    'save-every': { type: 'string', default: '3' },
    'kill-after': { type: 'string', default: '20' },
    after: { type: 'string', default: '20' },
    checks: { type: 'string', default: '3' },
  },
});
const N = Number(opts.candidates);
const SAVE_EVERY_MS = Number(opts['save-every']) * 1000;
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, Math.max(0, ms)));
const log = (line: string) => process.stdout.write(`[${new Date().toISOString().slice(11, 23)}] ${line}\n`);
const root = path.join(import.meta.dirname, '..');

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'assay-failover-'));
const children: ChildProcess[] = [];
let primary: PgNode | null = null;
let standby: PgNode | null = null;
let haproxy: Haproxy | null = null;
const rx = await startReceiver();

try {
  log('starting a primary and its synchronous standby…');
  primary = await startPrimary('bench-primary', { synchronousStandbys: ['s1'] });
  standby = await startStandby(primary, 's1');
  await createDatabase(primary, 'assay');
  await waitForReplay(primary, [standby]);
  const url = `postgres://postgres@127.0.0.1:${primary.port},127.0.0.1:${standby.port}/assay`;
  const seedPool = createPool(url, 4);
  await migrate(seedPool);
  const institution = await createInstitution(seedPool, { name: 'Failover University', callbackDomains: ['bench.example'] });
  const { apiKey } = await createApiKey(seedPool, institution.institutionId, 'failover');
  const test = await createTest(seedPool, {
    title: 'Exam',
    description: 'Failover under load.',
    durationMinutes: 60,
    proctoring: 'none',
    marking: 'auto',
    resultVisibility: 'immediate',
    passPercent: null,
    questions: [{ id: 'essay', type: 'short_text', prompt: 'Type anything', points: 1, acceptedAnswers: ['anything'] }],
  });
  await publishTest(seedPool, test.testId, institution.institutionId);
  await seedPool.end();

  const haproxyPort = await freePort();
  const publicUrl = `http://127.0.0.1:${haproxyPort}`;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: 'development',
    DATABASE_URL: url,
    ASSAY_ADMIN_TOKEN: `failover-${randomBase62(32)}`,
    ASSAY_SECRET: randomBase62(48),
    ASSAY_MIGRATE: 'check',
    ASSAY_DATA_DIR: tmp,
    PUBLIC_BASE_URL: publicUrl,
    ASSAY_TRUST_PROXY: '127.0.0.1',
    ASSAY_ALLOW_INSECURE_URLS: '1',
    ASSAY_RATE_LIMIT_PER_SECOND: '1000000',
    ASSAY_RATE_LIMIT_BURST: '1000000',
    LOG_LEVEL: 'warn',
    HOST: '127.0.0.1',
  };
  const processLog = fs.openSync(path.join(tmp, 'processes.log'), 'a');
  const start = (entry: 'main' | 'worker', extra: Record<string, string>) => {
    const child = spawn(process.execPath, [...NODE_FLAGS, path.join(root, 'bin', 'run.js'), entry], { env: { ...env, ...extra }, stdio: ['ignore', 'ignore', processLog] });
    children.push(child);
  };
  const apiPorts = [await freePort(), await freePort()];
  for (const port of apiPorts) start('main', { PORT: String(port), ASSAY_RUN_WORKER: '0' });
  start('worker', {});
  haproxy = await startHaproxy(tmp, haproxyPort, apiPorts.map((port, i) => ({ name: `api${i + 1}`, port })));
  for (let i = 0; i < 720 && !(await haproxy.stats()).every((s) => s.status === 'UP'); i++) await sleep(250);
  log(`2 API processes + 1 worker up behind HAProxy on ${publicUrl}`);
  const bootStats = await haproxy.stats();

  const http = new HttpPool(publicUrl, { connections: 128, pipelining: 1, headersTimeout: 30_000, bodyTimeout: 30_000 });
  const request = async (method: 'GET' | 'POST', p: string, headers: Record<string, string>, body?: string) => {
    const res = await http.request({ method, path: p, headers, body: body ?? null });
    return { status: res.statusCode, headers: res.headers, text: await res.body.text() };
  };
  const partner = { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' };
  const endpoint = await request('POST', '/api/partner/v1/webhook-endpoints', partner, JSON.stringify({ url: rx.url('/bench') }));
  if (endpoint.status !== 201) throw new Error(`webhook endpoint: ${endpoint.status} ${endpoint.text}`);
  rx.setSecrets('/bench', [JSON.parse(endpoint.text).secret]);

  log(`seating ${N} candidates…`);
  const candidates = await Promise.all(
    Array.from({ length: N }, async (_, i) => {
      await sleep((i % 50) * 20);
      const created = JSON.parse(
        (await request('POST', '/api/partner/v1/assignments', partner, JSON.stringify({ externalUserId: `c-${i}`, testId: test.testId, user: { email: `c${i}@bench.example` }, callbackUrl: 'https://bench.example/back' }))).text,
      ) as { assignmentId: string; startUrl: string };
      const opened = await request('GET', new URL(created.startUrl).pathname, {});
      const cookie = String(opened.headers['set-cookie']).split(';')[0]!;
      const page = await request('GET', `/a/${created.assignmentId}`, { cookie });
      const csrf = /name="csrf" value="([^"]+)"/.exec(page.text)?.[1];
      if (!csrf) throw new Error(`start page: ${page.status} ${page.text.slice(0, 300)} (start link: ${opened.status})`);
      const begun = await request('POST', `/a/${created.assignmentId}/begin`, { cookie, 'content-type': 'application/x-www-form-urlencoded' }, `csrf=${encodeURIComponent(csrf)}`);
      if (begun.status !== 303) throw new Error(`begin: ${begun.status}`);
      return { i, assignmentId: created.assignmentId, cookie, csrf, acked: 0, submitted: false };
    }),
  );

  // The watcher, as an operator runs it: the CLI, one process, deciding once.
  const watcher = spawn(process.execPath, [path.join(root, 'bin', 'assay.js'), 'failover-watch', '--primary', primary.url('assay'), '--standby', standby.url('assay'), '--checks', opts.checks!], {
    cwd: root,
    env: { ...process.env, NODE_ENV: 'development' },
    stdio: ['ignore', 'pipe', fs.openSync(path.join(tmp, 'watcher.log'), 'a')],
  });
  children.push(watcher);
  let watcherOut = '';
  watcher.stdout!.on('data', (d) => (watcherOut += d));

  let killedAt = 0;
  let firstFailedAt = 0;
  let backAt = 0;
  let stop = false;
  const counts = { saves: 0, savesOk: 0, failed: 0, retried: 0, submits: 0, byStatus: new Map<string, number>() };
  const saveLoop = async (c: (typeof candidates)[number]) => {
    await sleep(Math.random() * SAVE_EVERY_MS);
    let version = 0;
    let retrying = false;
    while (!stop && !c.submitted) {
      if (!retrying) version += 1;
      else counts.retried += 1;
      const sentAt = Date.now();
      const res = await request('POST', `/a/${c.assignmentId}/answers`, { cookie: c.cookie, 'x-csrf-token': c.csrf, 'content-type': 'application/json' }, JSON.stringify({ answers: [{ questionId: 'essay', value: `${c.i}.${version}`, version }] })).catch(
        (err: Error & { code?: string }) => ({ status: 0, headers: {}, text: err.code ?? err.message }),
      );
      // A save racing the candidate's own Submit is refused (409): the attempt is over, not the service.
      if (res.status === 409 && c.submitted) break;
      counts.saves += 1;
      const key = res.status ? String(res.status) : res.text;
      counts.byStatus.set(key, (counts.byStatus.get(key) ?? 0) + 1);
      if (res.status === 200 && JSON.parse(res.text).results[0].saved) {
        counts.savesOk += 1;
        c.acked = version;
        retrying = false;
        if (firstFailedAt && !backAt && sentAt > firstFailedAt) backAt = Date.now();
        await sleep(SAVE_EVERY_MS * (0.5 + Math.random()));
      } else {
        counts.failed += 1;
        if (killedAt && !firstFailedAt) firstFailedAt = Date.now();
        retrying = true;
        await sleep(1000); // the page retries a failed save
      }
    }
  };
  const loops = candidates.map((c) => saveLoop(c));

  await sleep(Number(opts['kill-after']) * 1000);
  log('SIGKILL to the primary…');
  killedAt = Date.now();
  await primary.kill();
  await once(watcher, 'exit');
  const outcome = JSON.parse(watcherOut || '{}') as { outcome?: string; promotedAt?: string; promoteMs?: number; firstFailedAt?: string };
  log(`watcher: ${outcome.outcome ?? 'no answer'}${outcome.promotedAt ? `, promoted ${Date.parse(outcome.promotedAt) - killedAt} ms after the kill` : ''}`);
  while (!backAt && Date.now() - killedAt < 60_000) await sleep(50);
  log(`saves succeed again ${backAt ? `${backAt - killedAt} ms after the kill` : 'NOT within 60 s'}`);

  // Half the candidates submit now (retrying on failure, as the page does).
  await Promise.all(
    candidates
      .filter((c) => c.i % 2 === 0)
      .map(async (c) => {
        for (let tries = 0; tries < 20 && !c.submitted; tries++) {
          counts.submits += 1;
          const r = await request('POST', `/a/${c.assignmentId}/submit`, { cookie: c.cookie, 'content-type': 'application/x-www-form-urlencoded' }, `csrf=${encodeURIComponent(c.csrf)}`).catch(() => null);
          if (r?.status === 303) c.submitted = true;
          else await sleep(1000);
        }
      }),
  );
  await sleep(Number(opts.after) * 1000);
  stop = true;
  await Promise.all(loops);
  const haproxyStats = await haproxy.stats();

  // What the promoted standby holds, read directly.
  const direct = new pg.Client({ connectionString: standby.url('assay') });
  await direct.connect();
  const { rows: answers } = await direct.query<{ assignment_id: string; version: number }>(`SELECT assignment_id, version::int AS version FROM answers WHERE question_id = 'essay'`);
  const stored = new Map(answers.map((a) => [a.assignment_id, a.version]));
  const lostSaves = candidates.filter((c) => c.acked > 0 && (stored.get(c.assignmentId) ?? 0) < c.acked).length;
  const { rows: statuses } = await direct.query<{ id: string; status: string }>('SELECT id, status FROM assignments');
  const statusOf = new Map(statuses.map((s) => [s.id, s.status]));
  const submitted = candidates.filter((c) => c.submitted);
  const lostSubmits = submitted.filter((c) => !['submitted', 'marking', 'completed'].includes(statusOf.get(c.assignmentId) ?? '')).length;
  const { rows: events } = await direct.query<{ id: string }>('SELECT id FROM events WHERE assignment_id IS NOT NULL');
  const until = Date.now() + 60_000;
  while (Date.now() < until && !events.every((e) => rx.deliveredIds('/bench').has(e.id))) await sleep(250);
  const undelivered = events.filter((e) => !rx.deliveredIds('/bench').has(e.id)).length;
  await direct.end();
  await http.close();

  const downs = haproxyStats.map((s) => `${s.name} ${s.chkdown - (bootStats.find((b) => b.name === s.name)?.chkdown ?? 0)}`).join(', ');
  const out = [
    '',
    `Failover mid-exam: ${N} candidates saving every ~${SAVE_EVERY_MS / 1000} s, 2 API processes + 1 worker behind HAProxy, primary + synchronous standby (PostgreSQL on this machine), failover-watch --checks ${opts.checks}`,
    `  promotion (watcher)                 ${outcome.promotedAt ? `${Date.parse(outcome.promotedAt) - killedAt} ms after the kill (pg_promote took ${outcome.promoteMs} ms)` : `none: ${watcherOut.trim() || 'see watcher.log'}`}`,
    `  downtime                            ${firstFailedAt && backAt ? `${backAt - firstFailedAt} ms from the first failed request to the first successful one sent after it (${backAt - killedAt} ms after the kill)` : 'no failed request seen'}`,
    `  requests                            ${counts.saves} saves (${counts.savesOk} acknowledged), ${counts.failed} failed and retried (${counts.retried} retries), by answer: ${[...counts.byStatus].map(([k, n]) => `${k}: ${n}`).join(', ')}; ${counts.submits} submit requests`,
    `  acknowledged saves lost             ${lostSaves} of ${candidates.filter((c) => c.acked > 0).length} candidates' last acknowledged save (target 0)`,
    `  acknowledged submissions lost       ${lostSubmits} of ${submitted.length} (target 0)`,
    `  events not delivered                ${undelivered} of ${events.length} (target 0)`,
    `  HAProxy                             marked down since all were up: ${downs}; now ${haproxyStats.map((s) => `${s.name} ${s.status}`).join(', ')}`,
  ];
  process.stdout.write(`${out.join('\n')}\n`);
  process.exitCode = lostSaves === 0 && lostSubmits === 0 && undelivered === 0 && backAt > 0 ? 0 : 1;
} finally {
  await haproxy?.stop().catch(() => undefined);
  await Promise.all(
    children.map(async (c) => {
      if (c.exitCode !== null || c.signalCode !== null) return;
      const exited = once(c, 'exit');
      c.kill('SIGTERM');
      const force = setTimeout(() => c.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(force);
    }),
  );
  await rx.close();
  await standby?.destroy();
  await primary?.destroy();
  fs.rmSync(tmp, { recursive: true, force: true });
}
