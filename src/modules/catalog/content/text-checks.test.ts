import { describe, expect, it } from 'vitest';
import { isDeepStrictEqual } from 'node:util';
import type { ErrorObject } from 'ajv';
import { AppError, type ErrorDetail } from '../../../platform/errors.js';
import { validatorCompiler } from '../../../platform/http/validation.js';
import { checkTestInput } from '../authoring.js';
import { TestInput } from '../schemas.js';
import { checkTranslations } from '../translations/translation-checks.js';
import { checkTestContent, markdownTexts, testAssetIds } from './content-checks.js';
import { testMathBudget } from './math-limits.js';
import { checkText, createTextChecks, freshTextChecks, type KeptTextChecks, type TextChecks } from './text-checks.js';
import { heavyEdit, heavyText, randomDraft, randomEdit, startWalk, type Draft } from '../../../../test/helpers/random-test-edits.js';

/**
 * The kept content checks (text-checks.ts) against checks made afresh: over
 * random walks of edits (texts, questions, sections, passages, pools, the
 * marking, the content format, translations, assets uploaded while the
 * texts naming them stay the same, tests past the formula budget), with one
 * store kept along each walk as a process keeps it across saves, every check
 * of every step must give exactly what a check with nothing kept gives: the
 * same problems in the same order, the same bounds problems, the same assets.
 */
type Validate = ((data: unknown) => boolean) & { errors?: ErrorObject[] | null };
const validate = validatorCompiler({ schema: TestInput, method: 'PUT', url: '/draft', httpPart: 'body' } as never) as unknown as Validate;

/** Everything the checks say of a test, with `texts` giving each text's check. */
function everything(input: TestInput, assets: ReadonlySet<string>, texts: TextChecks) {
  let whole: { problems: ErrorDetail[] } | { assetIds: string[]; questions: string[]; translations: unknown };
  try {
    const c = checkTestInput(structuredClone(input), assets, texts);
    whole = { assetIds: c.assetIds, questions: c.questions.map((q) => q.id), translations: c.translations };
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    whole = { problems: err.details ?? [] };
  }
  const bounds: ErrorDetail[] = [];
  checkTestContent(structuredClone(input), bounds, undefined, 'bounds', texts);
  checkTranslations(structuredClone(input), bounds, undefined, 'bounds', texts);
  return { whole, bounds, assetIds: testAssetIds(input, texts) };
}

interface Tally {
  steps: number;
  passed: number;
  refused: number;
  overBudget: number;
  uploads: number;
}

/** A walk of `steps` edits from a random test; each step's kept checks compared with fresh ones. */
function walk(seed: number, opts: { steps: number; size: number; heavy?: number; kept: KeptTextChecks; tally: Tally }): void {
  const w = startWalk(seed);
  const d: Draft = randomDraft(w, opts.size, opts.heavy ?? 0);
  for (let step = 0; step < opts.steps; step++) {
    const what = opts.heavy && step % 2 === 0 ? heavyEdit(d, w) : randomEdit(d, w);
    if (what.startsWith('uploaded')) opts.tally.uploads++;
    const input: unknown = structuredClone(d);
    // Only what the schema accepts reaches the checks (drafts.ts); the walk goes on from any state.
    if (!validate(input)) continue;
    const assets = new Set(w.assets);
    const fresh = everything(input as TestInput, assets, freshTextChecks);
    const kept = everything(input as TestInput, assets, opts.kept);
    if (!isDeepStrictEqual(kept, fresh)) {
      expect.soft(kept, `seed ${seed}, step ${step} (${what})`).toEqual(fresh);
      return;
    }
    opts.tally.steps++;
    if ('problems' in fresh.whole) {
      opts.tally.refused++;
      if (fresh.whole.problems.some((p) => p.message.includes("the test's formulas together"))) opts.tally.overBudget++;
    } else opts.tally.passed++;
  }
}

const tally = (): Tally => ({ steps: 0, passed: 0, refused: 0, overBudget: 0, uploads: 0 });

describe('the kept checks of texts', () => {
  it('give exactly the problems of a full check over random edits, one store kept along each walk', () => {
    const t = tally();
    for (let seed = 1; seed <= 14; seed++) walk(seed, { steps: 45, size: 20, kept: createTextChecks(8_000_000), tally: t });
    // The walks reach both outcomes, and uploads happen while texts naming them stay the same.
    expect(t.steps).toBeGreaterThan(400);
    expect(t.passed).toBeGreaterThan(10);
    expect(t.refused).toBeGreaterThan(100);
    expect(t.uploads).toBeGreaterThan(5);
  });

  it('give the same with a store too small to keep a test (texts dropped and checked again)', () => {
    const t = tally();
    for (let seed = 101; seed <= 104; seed++) walk(seed, { steps: 30, size: 20, kept: createTextChecks(2_500), tally: t });
    expect(t.steps).toBeGreaterThan(60);
  });

  it("give the same for tests past the test's formula budget, where a kept text must be checked against what is left", { timeout: 120_000 }, () => {
    const t = tally();
    // 14 prompts of formulas near the bounds are some 96,000 of the 100,000 characters a test's formulas may hold; the walk adds and lightens them.
    for (const seed of [7, 8]) walk(seed, { steps: 10, size: 18, heavy: 14, kept: createTextChecks(8_000_000), tally: t });
    expect(t.overBudget).toBeGreaterThan(2);
    expect(t.overBudget).toBeLessThan(t.steps);
  });

  it('reuse a text\'s check only where the budget left covers what it spends, and spend it as checking afresh does', () => {
    const kept = createTextChecks(1_000_000);
    const text = 'A formula $\\frac{a}{b} + c$ and another $x^2$';
    const once = checkText(text);
    expect(once.chars).toBe('\\frac{a}{b} + c'.length + 'x^2'.length);
    expect(once.bytes).toBeGreaterThan(0);
    // Enough left: the kept problems (none), spent exactly.
    const roomy = testMathBudget();
    const fresh = testMathBudget();
    expect(kept.problems(text, roomy)).toEqual(freshTextChecks.problems(text, fresh));
    expect(roomy).toEqual(fresh);
    // Not enough left for its second formula: the text is checked against what is left, as a fresh check would.
    const tight = { chars: 16, bytes: 1_000_000 };
    const tightFresh = { ...tight };
    const problems = kept.problems(text, tight);
    expect(problems).toEqual(freshTextChecks.problems(text, tightFresh));
    expect(problems.map((p) => p.message)).toEqual([expect.stringMatching(/the test's formulas together are longer than/)]);
    expect(tight).toEqual(tightFresh);
  });

  it('hold at most their weight, the least recently used dropped first', () => {
    const kept = createTextChecks(600);
    const texts = Array.from({ length: 10 }, (_, i) => `Text ${i} with $x_${i}$`);
    for (const t of texts) kept.problems(t);
    expect(kept.stats().weight).toBeLessThanOrEqual(600);
    expect(kept.missing(texts)).toContain(texts[0]);
    expect(kept.missing([texts.at(-1)!])).toEqual([]);
  });

  it('list the Markdown texts of a test once each, and none of a plain test', () => {
    const input = { contentFormat: 'markdown', passages: [{ id: 'p', text: 'Same' }], questions: [{ id: 'q', type: 'essay', prompt: 'Same', points: 1, rubric: heavyText(1) }] } as never as TestInput;
    expect(markdownTexts(input)).toEqual(['Same', heavyText(1)]);
    expect(markdownTexts({ ...input, contentFormat: 'plain' })).toEqual([]);
  });
});
