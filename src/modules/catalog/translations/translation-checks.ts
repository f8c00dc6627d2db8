import type { ErrorDetail } from '../../../platform/errors.js';
import { canonicalTag } from '../../../platform/i18n/locales.js';
import { testMathBudget } from '../content/math-limits.js';
import { textChecks, type TextChecks } from '../content/text-checks.js';
import { questionType } from '../question-types/registry.js';
import type { BaseQuestion } from '../question-types/definition.js';
import type { TestInput } from '../schemas.js';
import { DEFAULT_LANGUAGE, LANGUAGE_MAX_CHARS } from './translation-schema.js';
import { sourceTexts, splitPath, type TestTexts } from './translatable.js';
import { flatTexts } from './translation-store.js';
import { translatedQuestion } from './localize.js';

/**
 * The rules of a test's `language` and `translations` the schema cannot say
 * (docs/test-format.md "Languages"), each problem at its field:
 * - `language` and every locale key well-formed BCP 47 in canonical form
 *   (`pt-BR`, not `pt-br`), no locale the test's own language;
 * - every path names a text of the test (a section, passage or question by
 *   id, a question's field by its type's translatable paths);
 * - each text within its source field's bound;
 * - a Markdown test's translated texts obey the content rules its source
 *   texts do (formulas parse within a budget per locale, images have alt
 *   text and name existing assets, links are https);
 * - a translated question still passes its type's own checks (a fill-in
 *   text keeps each blank, a hot-text text each hotspot).
 * Each text's content check comes from `checks` (content/text-checks.ts).
 */
export function checkTranslations(input: TestInput, details: ErrorDetail[], knownAssets?: ReadonlySet<string>, only?: 'bounds', checks: TextChecks = textChecks): void {
  const markdown = (input.contentFormat ?? 'plain') === 'markdown';
  if (!only && input.language !== undefined) checkTag(input.language, 'language', details);
  const own = input.language ?? DEFAULT_LANGUAGE;
  const translations = input.translations ?? {};
  if (Object.keys(translations).length === 0) return;
  const sources = sourceTexts(input as TestTexts);
  for (const [locale, t] of Object.entries(translations)) {
    const at = `translations.${locale}`;
    if (!only) {
      checkTag(locale, at, details);
      if (canonicalTag(locale) === canonicalTag(own)) details.push({ field: at, message: `is the test's own language ("${own}"); translations are into other languages` });
    }
    const budget = testMathBudget();
    const texts = flatTexts(t);
    for (const [path, text] of texts) {
      const field = `${at}.${path}`;
      const source = sources.get(path);
      if (!only && !source) {
        details.push({ field, message: unknownPath(path) });
        continue;
      }
      if (!only && source && text.length > source.max) details.push({ field, message: `must be at most ${source.max} characters, as its source field` });
      if (!markdown) continue;
      for (const p of checks.problems(text, budget)) {
        if (!only || p.bound) details.push({ field, message: `line ${p.line}, column ${p.column}: ${p.message}` });
      }
      if (!knownAssets || only) continue;
      for (const id of checks.assetIds(text)) {
        if (!knownAssets.has(id)) details.push({ field, message: `the image names asset "${id}", which does not exist (upload it first)` });
      }
    }
    if (!only) checkTranslatedQuestions(input, texts, at, details);
  }
}

function checkTag(tag: string, field: string, details: ErrorDetail[]): void {
  const canonical = canonicalTag(tag);
  if (tag.length > LANGUAGE_MAX_CHARS) details.push({ field, message: `is ${tag.length} characters; a language tag is at most ${LANGUAGE_MAX_CHARS}` });
  else if (canonical === null) details.push({ field, message: `"${tag}" is not a well-formed BCP 47 language tag` });
  else if (canonical !== tag) details.push({ field, message: `write the language tag "${tag}" as "${canonical}"` });
}

function unknownPath(path: string): string {
  const { kind, id, field } = splitPath(path);
  if (kind === 'test') return `is not a translatable field of the test (title, description)`;
  const what = kind === 'sections' ? 'section' : kind === 'passages' ? 'passage' : 'question';
  return `names no translatable text: no ${what} "${id}" has a text at "${field}"`;
}

/** Each translated question through its type's checks; a problem its source has too is the source's, reported there. */
function checkTranslatedQuestions(input: TestInput, texts: ReadonlyMap<string, string>, at: string, details: ErrorDetail[]): void {
  const perQuestion = new Map<string, Map<string, string>>();
  for (const [path, text] of texts) {
    const { kind, id, field } = splitPath(path);
    if (kind === 'questions') (perQuestion.get(id) ?? perQuestion.set(id, new Map()).get(id)!).set(field, text);
  }
  if (perQuestion.size === 0) return;
  const questions = input.questions ?? (input.sections ?? []).flatMap((s) => s.questions);
  for (const q of questions) {
    const t = q.id === undefined ? undefined : perQuestion.get(q.id);
    if (!t) continue;
    const parts = q.type === 'composite' ? q.parts.map((p) => ({ source: p as BaseQuestion, prefix: `parts.${p.id}.` })) : [{ source: q as BaseQuestion, prefix: '' }];
    const translated = translatedQuestion(q, t);
    parts.forEach(({ source, prefix }, j) => {
      const def = questionType(source.type);
      if (!def?.check) return;
      const after = q.type === 'composite' ? ((translated as typeof q).parts[j] as BaseQuestion) : (translated as BaseQuestion);
      if (after === source) return;
      const before: ErrorDetail[] = [];
      def.check(source, '', before);
      const seen = new Set(before.map((d) => `${d.field}\n${d.message}`));
      const found: ErrorDetail[] = [];
      def.check(after, '', found);
      for (const d of found) {
        if (!seen.has(`${d.field}\n${d.message}`)) details.push({ field: `${at}.questions.${q.id}${prefix ? `.${prefix.slice(0, -1)}` : ''}`, message: `in this language, ${d.field.replace(/^\./, '')}: ${d.message}` });
      }
    });
  }
}
