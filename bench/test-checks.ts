import { parseArgs } from 'node:util';
import { performance } from 'node:perf_hooks';
import { createPool } from '../src/platform/db.js';
import { migrate } from '../src/platform/migrate.js';
import { validatorCompiler } from '../src/platform/http/validation.js';
import { TestInput } from '../src/modules/catalog/schemas.js';
import { createTest, updateTest } from '../src/modules/catalog/tests-service.js';
import { createDraftTest, getDraftView, publishDraft, saveDraft } from '../src/modules/catalog/drafts.js';
import { checkTestInput } from '../src/modules/catalog/authoring.js';
import { openBenchDatabase } from './bench-database.js';
import { benchTestContent } from './editor-content.js';

/**
 * `npx tsx bench/test-checks.ts [--sizes 200,500] [--rounds 8]`
 *
 * How long the whole-test check holds the event loop on each path that runs
 * it, for tests of each size (bench/editor-content.ts: two sections, nine
 * types, two formulas per prompt; 200 questions are 44 KB, 500 are 110 KB,
 * more than the operator API's 64 KB body takes, so the services that the
 * routes, the portal's JSON page (512 KB) and the import call are called
 * here directly, on a real database, one at a time):
 *
 * - create: createTest (`POST /tests`, the JSON page's "New test", an
 *   import) of a test whose texts the process has never seen (a new tag in
 *   every prompt each round), the body's schema check included;
 * - replace: updateTest (`PUT /tests/{id}`), that test with one prompt changed;
 * - draft: createDraftTest (`POST /tests/drafts`) of a test never seen;
 * - save: saveDraft (`PUT …/draft`), one prompt changed;
 * - open: getDraftView of that draft from a second test never seen (`GET …/draft`, the editor page);
 * - publish: publishDraft (`POST …/versions`) of the draft just saved.
 *
 * - idle: a 20 ms timer and no work, the probe's floor on this machine now.
 *
 * For each: the call's time and the longest the event loop was held during
 * it (the largest gap between the runs of a 1 ms interval timer: synchronous
 * work, or the process waiting for a core on a loaded machine), and the most
 * CPU time the process spent within one such gap (what the work itself took,
 * which waiting for a core does not add to; a worker-pool thread busy at the
 * same moment would add to it), p50 and max over the rounds. The aim: no path
 * holds the loop more than 10 ms. Then the
 * whole-test check's own work on the loop for a test checked once before
 * (the schema check of a copy, then checkTestInput), timed directly.
 */
const { values: opts } = parseArgs({ options: { sizes: { type: 'string', default: '200,500' }, rounds: { type: 'string', default: '8' } } });
const SIZES = opts.sizes.split(',').map(Number);
const ROUNDS = Number(opts.rounds);
if (SIZES.some((n) => !Number.isInteger(n) || n < 2 || n > 500) || !Number.isInteger(ROUNDS) || ROUNDS < 1) throw new Error('--sizes: whole numbers 2–500; --rounds: ≥ 1');

type Validate = ((data: unknown) => boolean) & { errors?: unknown };
const validate = validatorCompiler({ schema: TestInput, method: 'POST', url: '/tests', httpPart: 'body' }) as unknown as Validate;
const asInput = (content: unknown): TestInput => {
  const body = JSON.parse(JSON.stringify(content)) as unknown;
  if (!validate(body)) throw new Error(`the bench test does not validate: ${JSON.stringify(validate.errors)}`);
  return body as TestInput;
};

// The loop's longest pause: the largest gap between two runs of a 1 ms timer; and the most CPU the
// process spent within one gap, which a wait for a core on a loaded machine does not add to.
const cpuMs = () => {
  const c = process.cpuUsage();
  return (c.user + c.system) / 1000;
};
let last = performance.now();
let lastCpu = cpuMs();
let gap = 0;
let gapCpu = 0;
const probe = setInterval(() => {
  const now = performance.now();
  const cpu = cpuMs();
  gap = Math.max(gap, now - last);
  gapCpu = Math.max(gapCpu, cpu - lastCpu);
  last = now;
  lastCpu = cpu;
}, 1);

const db = await openBenchDatabase('assay_bench_checks');
const pool = createPool(db.url, 10);
let tags = 0;
try {
  await migrate(pool);
  const timed = async <R>(f: () => Promise<R>) => {
    await new Promise((resolve) => setTimeout(resolve, 2));
    gap = 0;
    gapCpu = 0;
    last = performance.now();
    lastCpu = cpuMs();
    const t = performance.now();
    const value = await f();
    const ms = performance.now() - t;
    // Let the probe run once after the call: a pause at its very end is counted too.
    await new Promise((resolve) => setTimeout(resolve, 2));
    return { ms, held: gap, cpu: gapCpu, value };
  };
  // One round of each path first (module loading, a pool thread's start), not counted.
  {
    const warm = benchTestContent(20, ' warm-up');
    const t = await createTest(pool, asInput(warm));
    await updateTest(pool, t.testId, asInput(warm));
    const d = await createDraftTest(pool, 'all', warm);
    await publishDraft(pool, 'all', d.testId, d.revision);
  }
  console.log(`Whole-test checks and the event loop; Node ${process.version}, PostgreSQL ${db.version}${db.embedded ? ' (embedded)' : ''}, ${ROUNDS} rounds per figure`);
  for (const n of SIZES) {
    const figures: Record<string, Array<{ ms: number; held: number; cpu: number }>> = { create: [], replace: [], draft: [], save: [], open: [], publish: [], idle: [] };
    for (let r = 0; r < ROUNDS; r++) {
      figures.idle!.push(await timed(() => new Promise((resolve) => setTimeout(resolve, 20))));
      const content = benchTestContent(n, ` (round ${++tags})`);
      const created = await timed(() => createTest(pool, asInput(content)));
      figures.create!.push(created);
      content.sections[0]!.questions[r % 10]!.prompt = `Question ${r}: replaced $y = ${r}$.`;
      figures.replace!.push(await timed(() => updateTest(pool, created.value.testId, asInput(content))));

      const fresh = benchTestContent(n, ` (round ${++tags})`);
      const draft = await timed(() => createDraftTest(pool, 'all', fresh));
      figures.draft!.push(draft);
      fresh.sections[0]!.questions[r % 10]!.prompt = `Question ${r}: edited $y = ${r}$.`;
      const saved = await timed(() => saveDraft(pool, 'all', draft.value.testId, { revision: draft.value.revision, content: fresh }));
      figures.save!.push(saved);
      // A draft the process has not checked: written through a second test's save, then read by id.
      const other = await createDraftTest(pool, 'all', { title: 'Empty for now' });
      const unseen = benchTestContent(n, ` (round ${++tags})`);
      await pool.query('UPDATE test_drafts SET content = $2, revision = revision + 1, updated_at = clock_timestamp() WHERE test_id = $1', [other.testId, JSON.stringify(unseen)]);
      figures.open!.push(await timed(() => getDraftView(pool, 'all', other.testId)));
      figures.publish!.push(await timed(() => publishDraft(pool, 'all', draft.value.testId, saved.value.revision)));
    }
    const kb = Math.round(JSON.stringify(benchTestContent(n)).length / 1024);
    console.log(`${n} questions (${kb} KB):`);
    for (const [path, xs] of Object.entries(figures)) {
      const sorted = (k: 'ms' | 'held' | 'cpu') => xs.map((x) => x[k]).sort((a, b) => a - b);
      const p50 = (k: 'ms' | 'held' | 'cpu') => sorted(k)[Math.floor((xs.length - 1) / 2)]!.toFixed(1).padStart(6);
      const max = (k: 'ms' | 'held' | 'cpu') => sorted(k).at(-1)!.toFixed(1).padStart(6);
      console.log(`  ${path.padEnd(8)} call p50 ${p50('ms')} ms  max ${max('ms')} ms   loop held p50 ${p50('held')} ms  max ${max('held')} ms   its CPU p50 ${p50('cpu')} ms  max ${max('cpu')} ms`);
    }
    // The check's own work on the loop for a test checked once before (every path after a test's first check).
    const input = asInput(benchTestContent(n, ` (round ${tags})`));
    checkTestInput(structuredClone(input), new Set());
    const schema: number[] = [];
    const rules: number[] = [];
    for (let r = 0; r < 30; r++) {
      let t = performance.now();
      const copy = structuredClone(input);
      validate(copy);
      schema.push(performance.now() - t);
      t = performance.now();
      checkTestInput(copy, new Set());
      rules.push(performance.now() - t);
    }
    const mid = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!.toFixed(1);
    console.log(`  the check on the loop, the test checked once before: schema (a copy, ajv) p50 ${mid(schema)} ms, rules and texts (checkTestInput) p50 ${mid(rules)} ms`);
  }
} finally {
  clearInterval(probe);
  await pool.end();
  await db.close();
}
