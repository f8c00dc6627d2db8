import { allCatalogues } from '../../src/platform/i18n/catalogue.js';
import type { LocaleTag } from '../../src/platform/i18n/locales.js';

/**
 * What the language tests read their expectations from: a language's
 * catalogue as the server loads it (never a hard-coded translation), and the
 * runs of plain ASCII letters in a test's own content, which a page may show
 * in any language.
 */
export function catalogue(tag: LocaleTag): Readonly<Record<string, string>> {
  const found = allCatalogues().get(tag);
  if (!found) throw new Error(`no catalogue ${tag}`);
  return found;
}

/** Every run of two or more ASCII letters in the strings of `value` (objects and arrays walked). */
export function latinWords(value: unknown, into = new Set<string>()): Set<string> {
  if (typeof value === 'string') for (const w of value.match(/[A-Za-z]{2,}/g) ?? []) into.add(w);
  else if (Array.isArray(value)) value.forEach((v) => latinWords(v, into));
  else if (value && typeof value === 'object') Object.values(value).forEach((v) => latinWords(v, into));
  return into;
}
