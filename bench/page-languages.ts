import { parseArgs } from 'node:util';
import { performance } from 'node:perf_hooks';
import type { TestVersion } from '../src/modules/catalog/tests-service.js';
import { deliver } from '../src/modules/catalog/delivery.js';
import { testPage } from '../src/modules/student/pages/test-page.js';
import { englishTranslator, translator, type Translator } from '../src/platform/i18n/catalogue.js';
import { chooseLocale } from '../src/platform/i18n/locales.js';
import { sectionedTest } from '../test/helpers/sectioned.js';

/**
 * `npm run bench:languages -- [--renders 3000]`
 *
 * What the candidate's language costs the server: the test page of a
 * sectioned test (a drawn pool, matching, ordering, fill-in-the-blanks and
 * an essay) rendered by the page function itself, `renders` times, in
 * English — the baseline, measured in the same run — and in French (a Latin
 * catalogue), Arabic (right to left, six plural forms), Japanese and the
 * pseudo-locale. Every message is compiled once per locale and key
 * (catalogue.ts), so after the first page a language should cost about what
 * English does. Prints p50 / p99 in milliseconds and each language's p50 as
 * a ratio of English's.
 */
const { values: opts } = parseArgs({ options: { renders: { type: 'string', default: '3000' } } });
const RENDERS = Number(opts.renders);
if (!Number.isInteger(RENDERS) || RENDERS < 10) throw new Error('--renders: a whole number ≥ 10');

const input = sectionedTest();
const version = {
  testVersionId: 'tv_bench',
  testId: 'tst_bench',
  version: 1,
  title: input.title,
  description: input.description ?? '',
  durationMinutes: input.durationMinutes,
  proctoring: 'none',
  marking: input.marking,
  resultVisibility: input.resultVisibility,
  passPercent: input.passPercent ?? null,
  proctoringRules: null,
  questions: input.sections!.flatMap((s) => s.questions),
  sections: input.sections!.map((s) => ({ id: s.id, title: s.title, instructions: s.instructions ?? null, shuffleQuestions: s.shuffleQuestions ?? false, draw: s.draw ?? null, questionIds: s.questions.map((q) => q.id) })),
  createdAt: new Date(),
} as unknown as TestVersion;
const test = deliver(version, null);
const now = new Date();

function render(t: Translator): string {
  return testPage({ assignmentId: 'asg_bench', institutionName: 'Northfield University', test, csrfToken: 'csrf', deadlineAt: new Date(now.getTime() + 1_800_000), serverNow: now, answers: [], t });
}

function measure(t: Translator): { p50: number; p99: number; bytes: number } {
  const bytes = Buffer.byteLength(render(t));
  for (let i = 0; i < Math.min(200, RENDERS); i++) render(t);
  const times: number[] = [];
  for (let i = 0; i < RENDERS; i++) {
    const start = performance.now();
    render(t);
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  return { p50: times[Math.floor(times.length * 0.5)]!, p99: times[Math.floor(times.length * 0.99)]!, bytes };
}

// English once to warm the process up (the first pages also compile the code paths), then measured as the baseline.
measure(englishTranslator());
const english = measure(englishTranslator());
const rows: Array<[string, ReturnType<typeof measure>]> = [['en (baseline)', english]];
for (const tag of ['fr', 'ar', 'ja', 'en-XA']) rows.push([tag, measure(translator(chooseLocale({ assignment: tag }, { pseudo: true })))]);
process.stdout.write(`test page, ${RENDERS} renders per language (node ${process.version})\n`);
process.stdout.write('language        p50 ms   p99 ms   bytes   p50 vs en\n');
for (const [name, m] of rows) {
  process.stdout.write(`${name.padEnd(15)} ${m.p50.toFixed(3).padStart(7)}  ${m.p99.toFixed(3).padStart(7)}  ${String(m.bytes).padStart(6)}   ${(m.p50 / english.p50).toFixed(2)}×\n`);
}
