import { Type, type Static } from '@sinclair/typebox';

/**
 * A test's content languages at the API (docs/test-format.md "Languages"):
 * `language`, the BCP 47 tag its texts are written in (absent: `en`), and
 * `translations`, per locale the same texts again, addressed by the ids of
 * what they translate — texts only, never keys, points or ids, so marking
 * and statistics stay per question whatever language a candidate read.
 *
 * Nothing here imports schemas.ts: TestInput is built with these.
 */

/** The longest language tag stored (a column CHECK says the same of assignments' locales). */
export const LANGUAGE_MAX_CHARS = 35;
/** The most translations one test carries. */
export const MAX_TRANSLATIONS = 20;
/** The language of a test that declares none. */
export const DEFAULT_LANGUAGE = 'en';

/** A BCP 47 language tag field (its canonical form is checked in translation-checks.ts). */
export const languageTag = (description: string) => Type.String({ minLength: 2, maxLength: LANGUAGE_MAX_CHARS, description });

const Id = Type.String({ pattern: '^[A-Za-z0-9_-]{1,64}$' });
// The bounds of each source field are checked per path (translation-checks.ts); these are the outer limits.
const Text = (maxLength: number) => Type.String({ minLength: 1, maxLength });

/** One locale's texts: each optional (a missing text falls back to the source). */
export const TestTranslation = Type.Object(
  {
    title: Type.Optional(Text(200)),
    description: Type.Optional(Text(2_000)),
    sections: Type.Optional(
      Type.Record(Id, Type.Object({ title: Type.Optional(Text(200)), instructions: Type.Optional(Text(10_000)) }, { additionalProperties: false }), {
        description: 'By section id',
      }),
    ),
    passages: Type.Optional(
      Type.Record(Id, Type.Object({ title: Type.Optional(Text(200)), text: Type.Optional(Text(100_000)) }, { additionalProperties: false }), {
        description: 'By passage id',
      }),
    ),
    questions: Type.Optional(
      Type.Record(Id, Type.Record(Type.String({ maxLength: 300 }), Text(100_000), { maxProperties: 500 }), {
        description: 'By question id, then by field path under the question (prompt, options.<optionId>.text, parts.<partId>.prompt, …)',
      }),
    ),
  },
  { additionalProperties: false, title: 'TestTranslation' },
);
export type TestTranslation = Static<typeof TestTranslation>;

export const Translations = Type.Record(Type.String({ maxLength: LANGUAGE_MAX_CHARS }), TestTranslation, {
  maxProperties: MAX_TRANSLATIONS,
  description: "By BCP 47 locale (not the test's own language): the test's texts in that language",
});
export type Translations = Static<typeof Translations>;

/** A translated text as stored: the text and a hash of the source text it was translated from (translation-store.ts). */
export interface StoredText {
  text: string;
  source: string;
}
/** The stored form: per locale, per flat path (`title`, `sections.s1.title`, `questions.q1.options.a.text`), the text and its source's hash. */
export type StoredTranslations = Record<string, Record<string, StoredText>>;

/** Per locale, the texts not translated and those whose source changed since they were (flat paths, in the test's order). */
export type TranslationStatus = Record<string, { missing: string[]; stale: string[] }>;
