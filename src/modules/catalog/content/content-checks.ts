import type { ErrorDetail } from '../../../platform/errors.js';
import type { BuiltInInput, TestInput } from '../schemas.js';
import type { BaseQuestion } from '../question-types/definition.js';
import { questionType } from '../question-types/registry.js';
import { testMathBudget } from './math-limits.js';
import { flatTexts } from '../translations/translation-store.js';
import { textChecks, type TextChecks } from './text-checks.js';

type InputQuestion = NonNullable<TestInput['questions']>[number];

/** Every text of a test that is written in its content format, with its field path (as validation errors name it). */
export function contentFields(input: TestInput): Array<{ field: string; source: string }> {
  const out: Array<{ field: string; source: string }> = [];
  const add = (field: string, source: string | null | undefined) => {
    if (source) out.push({ field, source });
  };
  const question = (input: InputQuestion, at: string) => {
    add(`${at}.prompt`, input.prompt);
    const def = questionType(input.type);
    if (def) {
      // The prompt is added above; a definition that lists it too is not checked twice.
      for (const [field, source] of def.contentFields(input as BaseQuestion)) if (field !== 'prompt') add(`${at}.${field}`, source);
      return;
    }
    const q = input as BuiltInInput;
    switch (q.type) {
      case 'composite':
        q.parts.forEach((part, j) => question(part as InputQuestion, `${at}.parts.${j}`));
        break;
      default:
        break;
    }
  };
  input.passages?.forEach((p, k) => add(`passages.${k}.text`, p.text));
  input.questions?.forEach((q, i) => question(q, `questions.${i}`));
  input.sections?.forEach((sec, k) => {
    add(`sections.${k}.instructions`, sec.instructions);
    sec.questions.forEach((q, i) => question(q, `sections.${k}.questions.${i}`));
  });
  return out;
}

/** The assets a test's questions show outside their texts (an image type's `image`), in any content format. */
export function questionAssets(input: TestInput): Array<{ field: string; assetId: string }> {
  const out: Array<{ field: string; assetId: string }> = [];
  const question = (q: InputQuestion, at: string) => {
    for (const [field, assetId] of questionType(q.type)?.assets?.(q as BaseQuestion) ?? []) out.push({ field: `${at}.${field}`, assetId });
    if (q.type === 'composite') q.parts.forEach((part, j) => question(part as InputQuestion, `${at}.parts.${j}`));
  };
  input.questions?.forEach((q, i) => question(q, `questions.${i}`));
  input.sections?.forEach((sec, k) => sec.questions.forEach((q, i) => question(q, `sections.${k}.questions.${i}`)));
  return out;
}

/** The texts of a translation of the test, any locale (they are written in the test's content format too). */
const translatedTexts = (input: TestInput): string[] => Object.values(input.translations ?? {}).flatMap((t) => [...flatTexts(t).values()]);

/** Every text of the test that its content checks read: none for plain text, else its fields' and its translations' (each once). */
export function markdownTexts(input: TestInput): string[] {
  if ((input.contentFormat ?? 'plain') === 'plain') return [];
  return [...new Set([...contentFields(input).map((f) => f.source), ...translatedTexts(input)])];
}

/** The assets a test shows (each once): those its texts name (none for plain text) and its questions' own images. */
export function testAssetIds(input: TestInput, texts: TextChecks = textChecks): string[] {
  const own = questionAssets(input).map((a) => a.assetId);
  if ((input.contentFormat ?? 'plain') === 'plain') return [...new Set(own)];
  // A translation may show its own images (a chart with translated labels): they are the version's assets too.
  const translated = translatedTexts(input);
  return [...new Set([...contentFields(input).flatMap((f) => texts.assetIds(f.source)), ...translated.flatMap((text) => texts.assetIds(text)), ...own])];
}

/**
 * The content rules of a Markdown test (of a plain one, only that a question type's own image exists): each problem checkContent finds, at
 * its field with its line and column, and each image naming an asset that
 * `knownAssets` (the owner's assets that exist) lacks, and the bounds on
 * formulas (math-limits.ts: per formula, per field, per test). Without knownAssets
 * (a check with no database at hand) asset existence is not checked.
 * `only: 'bounds'` keeps the bounds' problems alone (what a draft, which may
 * be unfinished, must still not hold). Each text's check comes from `texts`:
 * kept per text by default (text-checks.ts), the same problems as checking afresh.
 */
export function checkTestContent(input: TestInput, details: ErrorDetail[], knownAssets?: ReadonlySet<string>, only?: 'bounds', texts: TextChecks = textChecks): void {
  if (knownAssets && !only) {
    for (const { field, assetId } of questionAssets(input)) {
      if (!knownAssets.has(assetId)) details.push({ field, message: `names asset "${assetId}", which does not exist (upload it first)` });
    }
  }
  if ((input.contentFormat ?? 'plain') === 'plain') return;
  // The test's fields share one budget for formulas (math-limits.ts): past it, the field where it ran out is named.
  const budget = testMathBudget();
  for (const { field, source } of contentFields(input)) {
    for (const p of texts.problems(source, budget)) {
      if (!only || p.bound) details.push({ field, message: `line ${p.line}, column ${p.column}: ${p.message}` });
    }
    if (!knownAssets) continue;
    for (const id of texts.assetIds(source)) {
      if (!knownAssets.has(id)) details.push({ field, message: `the image names asset "${id}", which does not exist (upload it first)` });
    }
  }
}
