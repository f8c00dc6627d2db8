import { match } from '@formatjs/intl-localematcher';
import { canonicalTag } from '../../../platform/i18n/locales.js';
import type { Passage, Question } from '../schemas.js';
import type { StoredSection } from '../sections.js';
import { DEFAULT_LANGUAGE, type StoredTranslations } from './translation-schema.js';
import { splitPath, valueAt, withValueAt } from './translatable.js';
import { languagesOf } from './translation-store.js';

/**
 * The content language a candidate reads a test in, and the test in it
 * (docs/test-format.md "Languages"): the translation's texts laid over the
 * source by path, every text it lacks left in the source language. Ids,
 * keys and points are never touched, so marking, the answers' shapes and
 * the statistics are the same whichever language was read.
 */

/** A question with the texts given (field path under the question → text) in place of its own; a path naming no string is ignored. */
export function translatedQuestion<Q>(q: Q, texts: ReadonlyMap<string, string>): Q {
  let out = q;
  for (const [path, text] of texts) {
    const segments = path.split('.');
    if (typeof valueAt(out, segments) === 'string') out = withValueAt(out, segments, text);
  }
  return out;
}

/** What a test needs to be shown in another language: its texts, and its translations as stored. */
export interface Translatable {
  title: string;
  description: string;
  questions: Question[];
  sections: StoredSection[] | null;
  passages: Passage[];
  language: string | null;
  translations: StoredTranslations;
}

/** The test in `locale` (one of its translations' keys); the test itself for its own language or an unknown one. */
export function localizeTest<T extends Translatable>(test: T, locale: string): T & { contentLanguage: string } {
  const own = test.language ?? DEFAULT_LANGUAGE;
  const texts = locale === own ? undefined : test.translations[locale];
  if (!texts) return { ...test, contentLanguage: own };
  const perQuestion = new Map<string, Map<string, string>>();
  const testFields = new Map<string, string>();
  const bySection = new Map<string, Map<string, string>>();
  const byPassage = new Map<string, Map<string, string>>();
  for (const [path, { text }] of Object.entries(texts)) {
    const { kind, id, field } = splitPath(path);
    const into = kind === 'questions' ? perQuestion : kind === 'sections' ? bySection : kind === 'passages' ? byPassage : null;
    if (into) (into.get(id) ?? into.set(id, new Map()).get(id)!).set(field, text);
    else testFields.set(field, text);
  }
  const field = (m: Map<string, string> | undefined, name: string) => m?.get(name);
  return {
    ...test,
    title: testFields.get('title') ?? test.title,
    description: testFields.get('description') ?? test.description,
    sections:
      test.sections?.map((s) => {
        const t = bySection.get(s.id);
        return t ? { ...s, title: field(t, 'title') ?? s.title, instructions: s.instructions === null ? null : (field(t, 'instructions') ?? s.instructions) } : s;
      }) ?? null,
    passages: test.passages.map((p) => {
      const t = byPassage.get(p.id);
      return t ? { ...p, ...(p.title !== undefined && t.has('title') ? { title: t.get('title')! } : {}), text: field(t, 'text') ?? p.text } : p;
    }),
    questions: test.questions.map((q) => {
      const t = perQuestion.get(q.id);
      return t ? translatedQuestion(q, t) : q;
    }),
    contentLanguage: locale,
  };
}

/** The matcher's answer when none of a test's languages is close enough. */
const NO_MATCH = 'zxx';

/**
 * The content language for a candidate: the first of their own choice, the
 * assignment's `locale` and the browser's languages (best first) that is
 * close enough (CLDR matching, as the UI's catalogues are chosen) to the
 * test's language or one of its translations; else the test's language.
 */
export function chooseContentLanguage(
  test: { language: string | null; translations: StoredTranslations },
  wanted: readonly (string | null | undefined)[],
): string {
  const available = languagesOf(test.language, test.translations);
  for (const raw of wanted) {
    const tag = raw ? canonicalTag(raw) : null;
    if (!tag) continue;
    // A language the test has exactly is taken as it is: the matcher's "best fit" could prefer a sibling.
    if (available.includes(tag)) return tag;
    const found = match([tag], available, NO_MATCH, { algorithm: 'best fit' });
    if (found !== NO_MATCH) return found;
  }
  return available[0]!;
}

/** Right-to-left content languages (the `dir` a page marks their containers with). */
export function contentDirection(tag: string): 'ltr' | 'rtl' {
  try {
    const loc = new Intl.Locale(tag).maximize();
    return ['Arab', 'Hebr', 'Thaa', 'Syrc', 'Nkoo', 'Adlm', 'Rohg'].includes(loc.script ?? '') ? 'rtl' : 'ltr';
  } catch {
    return 'ltr';
  }
}
