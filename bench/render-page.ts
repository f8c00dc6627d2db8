import { parseArgs } from 'node:util';
import { performance } from 'node:perf_hooks';
import { createPool } from '../src/platform/db.js';
import { systemClock } from '../src/platform/clock.js';
import { migrate } from '../src/platform/migrate.js';
import { createApiKey } from '../src/modules/institutions/api-keys.js';
import { createInstitution } from '../src/modules/institutions/institutions.js';
import { createTest, publishTest } from '../src/modules/catalog/tests-service.js';
import type { TestInput } from '../src/modules/catalog/schemas.js';
import type { TestVersion } from '../src/modules/catalog/tests-service.js';
import { deliver } from '../src/modules/catalog/delivery.js';
import { createContentCache } from '../src/modules/catalog/content/content-cache.js';
import { studentAssetUrl } from '../src/modules/catalog/content/content-format.js';
import { testPage } from '../src/modules/student/pages/test-page.js';
import { buildServer, serverContext } from '../src/server.js';
import { benchAppConfig, openBenchDatabase } from './bench-database.js';
import { seatStudent } from './seat-student.js';

/**
 * `npm run bench:render -- [--renders 2000 --requests 500]`
 *
 * The student test page of a Markdown test with 40 formulas (20 questions,
 * each prompt with an inline and a display formula; issue 22 wants < 50 ms
 * p99 server time, rendered once per version, not per request):
 *
 * 1. the page function (`testPage`) called directly: the first render of a
 *    version (a fresh content cache each time: every formula through Temml)
 *    against the cached one, and the same test as plain text for scale;
 * 2. the page over HTTP (`app.inject`, the real app and database): the first
 *    request after start (loads the version, renders every text) and then
 *    `requests` requests, one at a time, as a seated student.
 *
 * Prints p50 / p99 / max in milliseconds. Uses DATABASE_URL's server when
 * set (a fresh database, dropped after), else an embedded PostgreSQL.
 */
const { values: opts } = parseArgs({ options: { renders: { type: 'string', default: '2000' }, requests: { type: 'string', default: '500' } } });
const RENDERS = Number(opts.renders);
const REQUESTS = Number(opts.requests);
if (!Number.isInteger(RENDERS) || RENDERS < 10 || !Number.isInteger(REQUESTS) || REQUESTS < 10) throw new Error('--renders and --requests: whole numbers ≥ 10');

const FORMULAS = [
  ['x^2 + y^2 = r^2', '\\int_0^1 x^2 \\, dx = \\frac{1}{3}'],
  ['\\sqrt{a^2 + b^2}', '\\sum_{k=1}^{n} k = \\frac{n(n+1)}{2}'],
  ['e^{i\\pi} + 1 = 0', '\\lim_{h \\to 0} \\frac{f(x+h) - f(x)}{h}'],
  ['\\alpha \\beta \\gamma', '\\begin{pmatrix} a & b \\\\ c & d \\end{pmatrix}'],
] as const;

function formulaTest(format: 'markdown' | 'plain'): TestInput {
  return {
    title: 'Forty Formulas',
    description: 'A page of mathematics.',
    durationMinutes: 60,
    proctoring: 'none',
    marking: 'auto',
    resultVisibility: 'immediate',
    passPercent: null,
    contentFormat: format,
    questions: Array.from({ length: 20 }, (_, i) => {
      const [inline, display] = FORMULAS[i % FORMULAS.length]!;
      return {
        id: `q${i + 1}`,
        type: 'single_choice' as const,
        prompt: `Question ${i + 1}: given $${inline}$ for **this** case,\n\n$$${display} + ${i}$$\n\nwhich is right?`,
        points: 1,
        options: [
          { id: 'a', text: `Option a of ${i + 1}` },
          { id: 'b', text: `Option b of ${i + 1}` },
          { id: 'c', text: `Option c of ${i + 1}` },
        ],
        correctOptionId: 'a',
      };
    }),
  } as TestInput;
}

function stats(ms: number[]): string {
  const s = [...ms].sort((a, b) => a - b);
  const at = (p: number) => s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]!;
  return `n=${s.length}  p50 ${at(50).toFixed(2)} ms  p99 ${at(99).toFixed(2)} ms  max ${s.at(-1)!.toFixed(2)} ms`;
}

function time(f: () => unknown): number {
  const t = performance.now();
  f();
  return performance.now() - t;
}

/** A stored version of the input, as the page gets it (no database needed for the page function). */
function asVersion(input: TestInput, id: string): TestVersion {
  return { ...input, testVersionId: id, testId: 'tst_bench', version: 1, sections: null, proctoringRules: null, createdAt: new Date() } as unknown as TestVersion;
}

const pageInput = (test: TestVersion, content: ReturnType<typeof createContentCache>) => {
  const now = new Date();
  return { assignmentId: 'asg_bench', institutionName: 'Bench University', test: deliver(test, null), csrfToken: 'csrf', deadlineAt: new Date(now.getTime() + 3_600_000), serverNow: now, answers: [], content };
};

console.log(`Student test page, 20 questions with 40 formulas; Node ${process.version}`);
console.log('\n1. testPage() called directly');
{
  const md = asVersion(formulaTest('markdown'), 'tv_md');
  const plain = asVersion(formulaTest('plain'), 'tv_plain');
  // Warm the code paths (JIT, Temml's tables) before measuring.
  for (let i = 0; i < 20; i++) testPage(pageInput(md, createContentCache({ assetUrl: studentAssetUrl })));
  const first = Array.from({ length: Math.min(RENDERS, 300) }, () => time(() => testPage(pageInput(md, createContentCache({ assetUrl: studentAssetUrl })))));
  const cache = createContentCache({ assetUrl: studentAssetUrl });
  testPage(pageInput(md, cache));
  const cached = Array.from({ length: RENDERS }, () => time(() => testPage(pageInput(md, cache))));
  const plainRuns = Array.from({ length: RENDERS }, () => time(() => testPage(pageInput(plain, cache))));
  const html = testPage(pageInput(md, cache));
  const maths = (html.match(/<math/g) ?? []).length;
  if (maths !== 40) throw new Error(`expected 40 formulas on the page, found ${maths}`);
  console.log(`  first render of a version (fresh cache):  ${stats(first)}`);
  console.log(`  cached (the same version again):          ${stats(cached)}`);
  console.log(`  the same test as plain text:              ${stats(plainRuns)}`);
  console.log(`  page size ${Math.round(html.length / 1024)} KB, ${maths} <math> elements`);
}

console.log('\n2. GET /a/{assignmentId} over app.inject (real app and database)');
const db = await openBenchDatabase('assay_bench_render');
const pool = createPool(db.url, 10);
try {
  await migrate(pool);
  const ctx = serverContext({ config: benchAppConfig(db.url), pool, clock: systemClock });
  const app = await buildServer(ctx, { logger: false });
  const institution = await createInstitution(pool, { name: 'Bench University', callbackDomains: ['bench.example'] });
  const { apiKey } = await createApiKey(pool, institution.institutionId, 'bench');
  const test = await createTest(pool, formulaTest('markdown'));
  await publishTest(pool, test.testId, institution.institutionId);
  const seat = await seatStudent(app, { apiKey, testId: test.testId, externalUserId: 'bench-1', email: 'bench-1@bench.example' });
  // seatStudent loaded the intro page only; the first test page request renders every text of the version.
  const get = async () => {
    const t = performance.now();
    const res = await app.inject({ method: 'GET', url: `/a/${seat.assignmentId}`, headers: { cookie: seat.cookie } });
    const ms = performance.now() - t;
    if (res.statusCode !== 200 || !res.body.includes('<math')) throw new Error(`page: ${res.statusCode}`);
    return ms;
  };
  const firstRequest = await get();
  const requests: number[] = [];
  for (let i = 0; i < REQUESTS; i++) requests.push(await get());
  console.log(`  first request (loads the version, renders its texts): ${firstRequest.toFixed(2)} ms`);
  console.log(`  following requests (cached texts):                     ${stats(requests)}`);
  console.log(`  PostgreSQL ${db.version}${db.embedded ? ' (embedded)' : ''}`);
  await app.close();
} finally {
  await pool.end();
  await db.close();
}
