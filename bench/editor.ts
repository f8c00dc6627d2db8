import { parseArgs } from 'node:util';
import { performance } from 'node:perf_hooks';
import Fastify from 'fastify';
import { createPool } from '../src/platform/db.js';
import { systemClock } from '../src/platform/clock.js';
import { migrate } from '../src/platform/migrate.js';
import { createInstitution } from '../src/modules/institutions/institutions.js';
import { PORTAL_COOKIE, createPortalSession } from '../src/modules/staff/portal-sessions.js';
import { inviteStaff } from '../src/modules/staff/staff-service.js';
import { createDraftTest } from '../src/modules/catalog/drafts.js';
import { buildServer, serverContext } from '../src/server.js';
import { benchAppConfig, openBenchDatabase } from './bench-database.js';

/**
 * `npm run bench:editor -- [--requests 300]`
 *
 * The test editor on a 200-question Markdown test (two sections, every
 * question type, a formula in every tenth prompt), over HTTP on a real
 * server (`listen`), one request at a time, as a signed-in author:
 *
 * - open: `GET /portal/authoring/tests/{id}/draft` (the JSON the editor
 *   opens from: the draft and every problem publishing would refuse), and
 *   `GET /portal/tests/{id}/edit` when the app has the editor page;
 * - save: `PUT /portal/authoring/tests/{id}/draft` with the next revision
 *   (the whole test, as the editor's autosave sends it);
 * - preview: `GET /portal/tests/{id}/draft/preview` (cached per revision).
 *
 * The baseline, measured in the same run: a bare Fastify server on the same
 * database answering the same requests with the least SQL (the draft row
 * read; one conditional UPDATE), so the ratio is the cost of the app's
 * session, CSRF, validation of 200 questions, problems list and audit.
 * Target (issue 22): open and save < 150 ms p99.
 */
const { values: opts } = parseArgs({ options: { requests: { type: 'string', default: '300' } } });
const REQUESTS = Number(opts.requests);
if (!Number.isInteger(REQUESTS) || REQUESTS < 200) throw new Error('--requests: a whole number ≥ 200');

const TYPES = ['single_choice', 'multiple_choice', 'short_text', 'numeric', 'essay', 'matching', 'ordering', 'fill_blanks', 'file_upload'] as const;

function question(i: number): Record<string, unknown> {
  const formula = i % 10 === 0 ? ` Use $x^${(i % 7) + 2}$ where it helps.` : '';
  const prompt = `Question ${i + 1}: a prompt of ordinary length, with **some** emphasis and a \`code\` word.${formula}`;
  switch (TYPES[i % TYPES.length]) {
    case 'single_choice':
      return { type: 'single_choice', prompt, points: 1, options: [1, 2, 3, 4].map((k) => ({ id: `o${k}`, text: `Option ${k}` })), correctOptionId: 'o2' };
    case 'multiple_choice':
      return { type: 'multiple_choice', prompt, points: 1, options: [1, 2, 3, 4].map((k) => ({ id: `o${k}`, text: `Option ${k}` })), correctOptionIds: ['o1', 'o3'] };
    case 'short_text':
      return { type: 'short_text', prompt, points: 1, acceptedAnswers: ['alpha', 'beta'] };
    case 'numeric':
      return { type: 'numeric', prompt, points: 1, answer: i, tolerance: 0.5 };
    case 'essay':
      return { type: 'essay', prompt, points: 1, rubric: 'A clear answer with one example.', maxWords: 300 };
    case 'matching':
      return {
        type: 'matching', prompt, points: 1,
        stems: [1, 2, 3].map((k) => ({ id: `s${k}`, text: `Stem ${k}` })),
        choices: [1, 2, 3].map((k) => ({ id: `c${k}`, text: `Choice ${k}` })),
        correct: { s1: 'c1', s2: 'c2', s3: 'c3' },
      };
    case 'ordering':
      return { type: 'ordering', prompt, points: 1, items: [1, 2, 3, 4].map((k) => ({ id: `i${k}`, text: `Item ${k}` })) };
    case 'fill_blanks':
      return { type: 'fill_blanks', prompt, points: 1, text: 'The {{b1}} sat on the {{b2}}.', blanks: [{ id: 'b1', kind: 'text', acceptedAnswers: ['cat'] }, { id: 'b2', kind: 'choice', options: [{ id: 'm', text: 'mat' }, { id: 'h', text: 'hat' }], correctOptionId: 'm' }] };
    default:
      return { type: 'file_upload', prompt, points: 1, accept: ['application/pdf'], maxBytes: 5 * 1024 * 1024 };
  }
}

function bigTest(): Record<string, unknown> {
  const qs = Array.from({ length: 200 }, (_, i) => question(i));
  return {
    title: 'Two hundred questions',
    description: 'The editor benchmark.',
    durationMinutes: 120,
    proctoring: 'none',
    marking: 'manual',
    resultVisibility: 'after_review',
    passPercent: 50,
    contentFormat: 'markdown',
    sections: [
      { title: 'Part A', questions: qs.slice(0, 100) },
      { title: 'Part B', questions: qs.slice(100) },
    ],
  };
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
const fmt = (n: number) => n.toFixed(1).padStart(6);

async function measure(name: string, run: (i: number) => Promise<Response>, base?: number): Promise<number> {
  for (let i = 0; i < 5; i++) await (await run(-1 - i)).text(); // warm-up
  const times: number[] = [];
  let bytes = 0;
  for (let i = 0; i < REQUESTS; i++) {
    const t0 = performance.now();
    const res = await run(i);
    const body = await res.text();
    times.push(performance.now() - t0);
    bytes = body.length;
    if (!res.ok) throw new Error(`${name}: HTTP ${res.status} ${body.slice(0, 300)}`);
  }
  times.sort((x, y) => x - y);
  const p99 = percentile(times, 99);
  const ratio = base ? `  ×${(p99 / base).toFixed(1)} baseline p99` : '';
  process.stdout.write(`${name.padEnd(44)} p50 ${fmt(percentile(times, 50))} ms  p99 ${fmt(p99)} ms  max ${fmt(times.at(-1)!)} ms  ${(bytes / 1024).toFixed(0)} KB${ratio}\n`);
  return p99;
}

const db = await openBenchDatabase('assay_bench_editor');
const pool = createPool(db.url, 10);
try {
  await migrate(pool);
  const ctx = serverContext({ config: benchAppConfig(db.url), pool, clock: systemClock });
  const inst = await createInstitution(pool, { name: 'Bench University', callbackDomains: ['bench.example'] });
  const author = await inviteStaff(ctx, { institutionId: inst.institutionId, email: 'author@bench.example', role: 'author' }, { actor: { kind: 'cli' }, ip: null });
  const { sessionId, csrf } = await createPortalSession(pool, { staffId: author.staffId, method: 'link', now: new Date() });
  const content = bigTest();
  const draft = await createDraftTest(pool, { institutionId: inst.institutionId }, content);
  if (draft.problems.length > 0) throw new Error(`the bench test has problems: ${JSON.stringify(draft.problems.slice(0, 3))}`);
  const testId = draft.testId;
  const body = JSON.stringify(content);
  process.stdout.write(`A ${(body.length / 1024).toFixed(0)} KB test of 200 questions in 2 sections; ${REQUESTS} requests each; PostgreSQL ${db.version}\n\n`);

  const app = await buildServer(ctx, { logger: false });
  const base = await app.listen({ port: 0, host: '127.0.0.1' });
  const hasEditPage = app.hasRoute({ method: 'GET', url: '/portal/tests/:testId/edit' });

  // The baseline: the same requests answered by bare Fastify + pg with the least SQL.
  const bare = Fastify({ logger: false, bodyLimit: 4 * 1024 * 1024 });
  bare.get('/draft', async (_req, reply) => {
    const { rows } = await pool.query<{ content: unknown; revision: number }>({ name: 'bare-draft', text: 'SELECT content, revision FROM test_drafts WHERE test_id = $1', values: [testId] });
    return reply.send({ testId, content: rows[0]!.content, revision: rows[0]!.revision, problems: [] });
  });
  bare.put('/draft', async (req, reply) => {
    const b = req.body as { revision: number; content: unknown };
    const { rows } = await pool.query<{ revision: number }>({
      name: 'bare-save',
      text: 'UPDATE test_drafts SET content = $3, revision = revision + 1 WHERE test_id = $1 AND revision = $2 RETURNING revision',
      values: [testId, b.revision, JSON.stringify(b.content)],
    });
    if (!rows[0]) return reply.code(409).send({ error: 'stale' });
    return reply.send({ testId, content: b.content, revision: rows[0].revision, problems: [] });
  });
  const bareBase = await bare.listen({ port: 0, host: '127.0.0.1' });

  const headers = { cookie: `${PORTAL_COOKIE}=${sessionId}` };
  const jsonHeaders = { ...headers, 'content-type': 'application/json', 'x-csrf-token': csrf };
  const revisionOf = async (url: string, h: Record<string, string>) => ((await (await fetch(url, { headers: h })).json()) as { revision: number }).revision;

  const baseOpen = await measure('baseline: GET the draft row', () => fetch(`${bareBase}/draft`));
  let bareRevision = await revisionOf(`${bareBase}/draft`, {});
  const baseSave = await measure('baseline: PUT the draft row', async () => {
    const res = await fetch(`${bareBase}/draft`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: `{"revision":${bareRevision},"content":${body}}` });
    bareRevision += 1;
    return res;
  });
  process.stdout.write('\n');

  const worst: number[] = [];
  worst.push(await measure('open: GET /portal/authoring/tests/{id}/draft', () => fetch(`${base}/portal/authoring/tests/${testId}/draft`, { headers }), baseOpen));
  if (hasEditPage) worst.push(await measure('open: GET /portal/tests/{id}/edit', () => fetch(`${base}/portal/tests/${testId}/edit`, { headers: { ...headers, accept: 'text/html' } }), baseOpen));
  let revision = await revisionOf(`${base}/portal/authoring/tests/${testId}/draft`, headers);
  worst.push(
    await measure('save: PUT /portal/authoring/tests/{id}/draft', async () => {
      const res = await fetch(`${base}/portal/authoring/tests/${testId}/draft`, { method: 'PUT', headers: jsonHeaders, body: `{"revision":${revision},"content":${body}}` });
      revision += 1;
      return res;
    }, baseSave),
  );
  await measure('preview: GET …/draft/preview (same revision)', () => fetch(`${base}/portal/tests/${testId}/draft/preview?revision=${revision}`, { headers }));
  if (!hasEditPage) process.stdout.write('(GET /portal/tests/{id}/edit is not in this build: not measured)\n');
  process.stdout.write(`\nWorst p99 of open and save: ${Math.max(...worst).toFixed(1)} ms (target < 150 ms)\n`);
  await bare.close();
  await app.close();
} finally {
  await pool.end();
  await db.close();
}
