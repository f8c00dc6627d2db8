import type { ErrorDetail } from '../../../platform/errors.js';
import type { TestInput } from '../schemas.js';
import { testMathBudget } from './math-limits.js';
import { checkContent, contentAssetIds } from './render-content.js';

type InputQuestion = NonNullable<TestInput['questions']>[number];

/** Every text of a test that is written in its content format, with its field path (as validation errors name it). */
export function contentFields(input: TestInput): Array<{ field: string; source: string }> {
  const out: Array<{ field: string; source: string }> = [];
  const add = (field: string, source: string | null | undefined) => {
    if (source) out.push({ field, source });
  };
  const question = (q: InputQuestion, at: string) => {
    add(`${at}.prompt`, q.prompt);
    switch (q.type) {
      case 'single_choice':
      case 'multiple_choice':
        q.options.forEach((o, j) => add(`${at}.options.${j}.text`, o.text));
        break;
      case 'matching':
        q.stems.forEach((s, j) => add(`${at}.stems.${j}.text`, s.text));
        q.choices.forEach((c, j) => add(`${at}.choices.${j}.text`, c.text));
        break;
      case 'ordering':
        q.items.forEach((item, j) => add(`${at}.items.${j}.text`, item.text));
        break;
      case 'fill_blanks':
        add(`${at}.text`, q.text);
        q.blanks.forEach((b, j) => {
          if (b.kind === 'choice') b.options.forEach((o, m) => add(`${at}.blanks.${j}.options.${m}.text`, o.text));
        });
        break;
      case 'short_text':
      case 'essay':
      case 'file_upload':
        add(`${at}.rubric`, q.rubric);
        break;
      default:
        break;
    }
  };
  input.questions?.forEach((q, i) => question(q, `questions.${i}`));
  input.sections?.forEach((sec, k) => {
    add(`sections.${k}.instructions`, sec.instructions);
    sec.questions.forEach((q, i) => question(q, `sections.${k}.questions.${i}`));
  });
  return out;
}

/** The assets a test's texts name (each once); none for plain text. */
export function testAssetIds(input: TestInput): string[] {
  if ((input.contentFormat ?? 'plain') === 'plain') return [];
  return [...new Set(contentFields(input).flatMap((f) => contentAssetIds(f.source, 'markdown')))];
}

/**
 * The content rules of a Markdown test: each problem checkContent finds, at
 * its field with its line and column, and each image naming an asset that
 * `knownAssets` (the owner's assets that exist) lacks, and the bounds on
 * formulas (math-limits.ts: per formula, per field, per test). Without knownAssets
 * (a check with no database at hand) asset existence is not checked.
 * `only: 'bounds'` keeps the bounds' problems alone (what a draft, which may
 * be unfinished, must still not hold).
 */
export function checkTestContent(input: TestInput, details: ErrorDetail[], knownAssets?: ReadonlySet<string>, only?: 'bounds'): void {
  if ((input.contentFormat ?? 'plain') === 'plain') return;
  // The test's fields share one budget for formulas (math-limits.ts): past it, the field where it ran out is named.
  const budget = testMathBudget();
  for (const { field, source } of contentFields(input)) {
    for (const p of checkContent(source, 'markdown', budget)) {
      if (!only || p.bound) details.push({ field, message: `line ${p.line}, column ${p.column}: ${p.message}` });
    }
    if (!knownAssets) continue;
    for (const id of contentAssetIds(source, 'markdown')) {
      if (!knownAssets.has(id)) details.push({ field, message: `the image names asset "${id}", which does not exist (upload it first)` });
    }
  }
}
