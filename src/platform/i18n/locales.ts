import { match } from '@formatjs/intl-localematcher';

/**
 * The languages the candidate's pages, report and mails are offered in
 * (docs/languages.md): each with its catalogue `messages/<tag>.json`, its
 * name in its own language (the intro page's Language menu) and its
 * direction. `en` is the source; every other catalogue has the same keys.
 */
export const LOCALES = [
  { tag: 'en', name: 'English', dir: 'ltr' },
  { tag: 'es', name: 'Español', dir: 'ltr' },
  { tag: 'fr', name: 'Français', dir: 'ltr' },
  { tag: 'de', name: 'Deutsch', dir: 'ltr' },
  { tag: 'pt-BR', name: 'Português (Brasil)', dir: 'ltr' },
  { tag: 'ar', name: 'العربية', dir: 'rtl' },
  { tag: 'he', name: 'עברית', dir: 'rtl' },
  { tag: 'zh-Hans', name: '简体中文', dir: 'ltr' },
  { tag: 'ja', name: '日本語', dir: 'ltr' },
  { tag: 'hi', name: 'हिन्दी', dir: 'ltr' },
  { tag: 'uk', name: 'Українська', dir: 'ltr' },
] as const;

export type LocaleTag = (typeof LOCALES)[number]['tag'] | typeof PSEUDO_LOCALE;

/**
 * The pseudo-locale (accented, 40 % longer, bracketed English), made from the
 * English catalogue: a page shown in it makes every string that did not come
 * from the catalogue, and every box too tight for a longer language, visible.
 * Offered only when the configuration allows it (tests, translators' review).
 */
export const PSEUDO_LOCALE = 'en-XA';

export const SOURCE_LOCALE = 'en';

/** How a locale was chosen, in the order tried (docs/languages.md). */
export type LocaleSource = 'candidate' | 'assignment' | 'test' | 'browser' | 'default';

export interface LocaleChoice {
  /** The catalogue shown. */
  readonly tag: LocaleTag;
  /**
   * The locale dates and numbers are formatted for and `<html lang>` names: the
   * request itself when only its region differs from the catalogue's (`fr-CA`
   * shows the French catalogue with Canadian dates), else the catalogue's tag.
   */
  readonly formatLocale: string;
  readonly dir: 'ltr' | 'rtl';
  readonly source: LocaleSource;
  /** What was asked for and could not be given exactly (an unsupported or unknown tag), for the page to say so; null when served as asked. */
  readonly unmatched: string | null;
}

const TAGS: readonly string[] = LOCALES.map((l) => l.tag);
/** The matcher's answer when nothing is close enough (`zxx`: no linguistic content, never a catalogue). */
const NO_MATCH = 'zxx';

/** A BCP 47 tag in its canonical form, or null for one that is not well-formed. */
export function canonicalTag(raw: string): string | null {
  try {
    return Intl.getCanonicalLocales(raw.trim())[0] ?? null;
  } catch {
    return null;
  }
}

/** A language's name in another language (`Dutch`, `néerlandais` for `nl` in `en`, `fr`), or the tag itself when Intl does not know it. */
export function languageName(tag: string, inLanguage: string): string {
  try {
    return new Intl.DisplayNames([inLanguage], { type: 'language', fallback: 'code' }).of(tag) ?? tag;
  } catch {
    return tag;
  }
}

export function directionOf(tag: string): 'ltr' | 'rtl' {
  return LOCALES.find((l) => l.tag === tag)?.dir ?? 'ltr';
}

/** The catalogue for one requested tag (CLDR's language matching: `fr-CA` → `fr`, `zh-CN` → `zh-Hans`, `pt` → `pt-BR`), or null when none is close enough. */
export function matchCatalogue(requested: string, opts: { pseudo?: boolean } = {}): LocaleTag | null {
  const tag = canonicalTag(requested);
  if (!tag) return null;
  if (tag === PSEUDO_LOCALE) return opts.pseudo ? PSEUDO_LOCALE : null;
  const found = match([tag], TAGS, NO_MATCH, { algorithm: 'best fit' });
  return found === NO_MATCH ? null : (found as LocaleTag);
}

/**
 * How a catalogue formats dates and numbers when asked for by its bare tag:
 * English is written in British English, so its dates read "12 March 2026".
 */
const DEFAULT_FORMAT: Partial<Record<LocaleTag, string>> = { en: 'en-GB' };

function formatLocaleFor(requested: string, catalogue: LocaleTag): string {
  if (catalogue === PSEUDO_LOCALE) return 'en-GB';
  if (canonicalTag(requested) === catalogue) return DEFAULT_FORMAT[catalogue] ?? catalogue;
  try {
    const asked = new Intl.Locale(requested).maximize();
    const have = new Intl.Locale(catalogue).maximize();
    // Same language and script: only the region differs, and Intl formats for the candidate's region.
    if (asked.language === have.language && asked.script === have.script) return new Intl.Locale(requested).baseName;
  } catch {
    /* a tag Intl cannot expand formats as its catalogue */
  }
  return catalogue;
}

/** One `Accept-Language` header's tags, best first (q=0 dropped); malformed entries are skipped. */
export function acceptLanguageTags(header: string | undefined): string[] {
  if (!header) return [];
  return header
    .split(',')
    .map((part, i) => {
      const [tag = '', ...params] = part.trim().split(';');
      const q = params.map((p) => /^\s*q=([0-9.]+)\s*$/.exec(p)?.[1]).find(Boolean);
      return { tag: tag.trim(), q: q === undefined ? 1 : Number(q), i };
    })
    .filter((e) => e.tag && e.tag !== '*' && e.q > 0 && Number.isFinite(e.q))
    .sort((a, b) => b.q - a.q || a.i - b.i)
    .map((e) => e.tag)
    .slice(0, 20);
}

/**
 * The locale a candidate's page is shown in: the first of the candidate's
 * own choice, the assignment's `locale`, the test's declared language and the
 * browser's `Accept-Language` that a catalogue serves, else English. A tag no
 * catalogue serves is skipped, never an error, and the first such tag of the
 * candidate or partner is kept in `unmatched` so the page can say what it
 * fell back from.
 */
export function chooseLocale(
  wanted: { candidate?: string | null; assignment?: string | null; test?: string | null; acceptLanguage?: string | undefined },
  opts: { pseudo?: boolean } = {},
): LocaleChoice {
  let unmatched: string | null = null;
  const tries: Array<[LocaleSource, string | null | undefined]> = [
    ['candidate', wanted.candidate],
    ['assignment', wanted.assignment],
    ['test', wanted.test],
    ...acceptLanguageTags(wanted.acceptLanguage).map((t): [LocaleSource, string] => ['browser', t]),
  ];
  for (const [source, requested] of tries) {
    if (!requested) continue;
    const tag = matchCatalogue(requested, opts);
    if (tag) return { tag, formatLocale: formatLocaleFor(requested, tag), dir: directionOf(tag), source, unmatched };
    if (source !== 'browser') unmatched ??= requested;
  }
  return { tag: SOURCE_LOCALE, formatLocale: DEFAULT_FORMAT[SOURCE_LOCALE] ?? SOURCE_LOCALE, dir: 'ltr', source: 'default', unmatched };
}
