import { createHash } from 'node:crypto';
import type { StoredTranslations, TestTranslation, TranslationStatus, Translations } from './translation-schema.js';
import { sourceTexts, splitPath, type TestTexts } from './translatable.js';

/**
 * Translations as stored and read back (docs/test-format.md "Languages").
 * The API takes and gives plain strings in the nested shape; the store keeps
 * them flat (`questions.q1.options.a.text`), each with the hash of the
 * source text it was translated from. A text keeps its hash for as long as
 * it is saved unchanged; a new or edited text takes the current source's.
 * So a text whose source changed since is "stale" until it is edited.
 */

/** The hash a translated text keeps of its source: a SHA-256 prefix (it tells change, it is no secret). */
export function sourceHash(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 16);
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** One locale's nested texts as flat paths; what is not a non-empty string is skipped (a draft may hold anything). */
export function flatTexts(t: unknown): Map<string, string> {
  const out = new Map<string, string>();
  if (!isObj(t)) return out;
  for (const field of ['title', 'description'] as const) if (typeof t[field] === 'string' && t[field]) out.set(field, t[field]);
  for (const kind of ['sections', 'passages', 'questions'] as const) {
    const byId = t[kind];
    if (!isObj(byId)) continue;
    for (const [id, fields] of Object.entries(byId)) {
      if (!isObj(fields)) continue;
      for (const [path, text] of Object.entries(fields)) if (typeof text === 'string' && text) out.set(`${kind}.${id}.${path}`, text);
    }
  }
  return out;
}

/** Flat texts back in the API's nested shape. */
export function nestedTexts(flat: Iterable<[string, string]>): TestTranslation {
  const out: Record<string, unknown> = {};
  for (const [path, text] of flat) {
    const { kind, id, field } = splitPath(path);
    if (kind === 'test') out[field] = text;
    else ((((out[kind] ??= {}) as Obj)[id] ??= {}) as Obj)[field] = text;
  }
  return out as TestTranslation;
}

/**
 * The stored form of the translations a test is saved with: each text
 * stamped with its current source's hash, unless `previous` (what was stored
 * before) holds the same text, whose hash it keeps. A path the source lacks
 * (only in an unfinished draft; publishing refuses it) is stamped empty.
 */
export function stampTranslations(translations: unknown, test: TestTexts, previous: StoredTranslations = {}): StoredTranslations {
  if (!isObj(translations)) return {};
  const sources = sourceTexts(test);
  const out: StoredTranslations = {};
  for (const [locale, t] of Object.entries(translations)) {
    const texts = flatTexts(t);
    if (texts.size === 0) continue;
    const before = previous[locale] ?? {};
    out[locale] = Object.fromEntries(
      [...texts].map(([path, text]) => {
        const kept = before[path]?.text === text ? before[path].source : undefined;
        return [path, { text, source: kept ?? sourceHash(sources.get(path)?.text ?? '') }];
      }),
    );
  }
  return out;
}

/** The stored translations as the API gives them: plain strings, nested. */
export function plainTranslations(stored: StoredTranslations): Translations {
  return Object.fromEntries(Object.entries(stored).map(([locale, texts]) => [locale, nestedTexts(Object.entries(texts).map(([p, t]) => [p, t.text]))]));
}

/** Per locale: the source texts not translated, and the translated ones whose source changed since (by path, in the test's order). */
export function translationStatus(stored: StoredTranslations, test: TestTexts): TranslationStatus {
  const sources = sourceTexts(test);
  const out: TranslationStatus = {};
  for (const [locale, texts] of Object.entries(stored)) {
    const missing: string[] = [];
    const stale: string[] = [];
    for (const [path, source] of sources) {
      const t = texts[path];
      if (!t) missing.push(path);
      else if (t.source !== sourceHash(source.text)) stale.push(path);
    }
    out[locale] = { missing, stale };
  }
  return out;
}

/** The test's language and the locales it is translated into: the languages a candidate may read it in. */
export function languagesOf(language: string | null, stored: StoredTranslations | readonly string[]): string[] {
  const own = language ?? 'en';
  const locales = Array.isArray(stored) ? stored : Object.keys(stored);
  return [own, ...[...locales].filter((l) => l !== own).sort()];
}

/** Freshly stamped translations keeping, for each text saved unchanged, the hash it had in `previous` (the version or draft saved before). */
export function keepSourceHashes(fresh: StoredTranslations, previous: StoredTranslations): StoredTranslations {
  return Object.fromEntries(
    Object.entries(fresh).map(([locale, texts]) => [
      locale,
      Object.fromEntries(Object.entries(texts).map(([path, t]) => [path, previous[locale]?.[path]?.text === t.text ? { text: t.text, source: previous[locale]![path]!.source } : t])),
    ]),
  );
}
