import fs from 'node:fs';
import { IntlMessageFormat, type PrimitiveType } from 'intl-messageformat';
import type English from './messages/en.json';
import { chooseLocale, LOCALES, PSEUDO_LOCALE, SOURCE_LOCALE, type LocaleChoice, type LocaleTag } from './locales.js';
import { accent, pseudoMessage } from './pseudo.js';

/** A message's key: every key of the English catalogue, which every other catalogue has too (catalogue.test.ts). */
export type MessageKey = keyof typeof English;
export type MessageValues = Record<string, PrimitiveType>;

type Catalogue = Readonly<Record<string, string>>;

function readCatalogue(tag: string): Catalogue {
  return JSON.parse(fs.readFileSync(new URL(`./messages/${tag}.json`, import.meta.url), 'utf8')) as Catalogue;
}

let catalogues: Map<LocaleTag, Catalogue> | null = null;

/** Every catalogue, read once: the shipped locales from messages/, and the pseudo-locale made from English. */
export function allCatalogues(): ReadonlyMap<LocaleTag, Catalogue> {
  if (!catalogues) {
    catalogues = new Map(LOCALES.map((l) => [l.tag, readCatalogue(l.tag)]));
    const english = catalogues.get(SOURCE_LOCALE)!;
    catalogues.set(PSEUDO_LOCALE, Object.fromEntries(Object.entries(english).map(([k, v]) => [k, pseudoMessage(v)])));
  }
  return catalogues;
}

/**
 * Everything a page needs to speak one locale: its messages formatted with
 * ICU MessageFormat (plural and select rules from CLDR through `Intl`), and
 * dates, times, numbers and durations through `Intl` for the candidate's
 * locale. A message missing from a catalogue is taken from English, so a late
 * key never breaks a page (the catalogue test keeps them complete).
 */
export interface Translator {
  /** The catalogue shown (`fr`). */
  readonly locale: LocaleTag;
  /** What `<html lang>` says and `Intl` formats for (`fr-CA`). */
  readonly lang: string;
  readonly dir: 'ltr' | 'rtl';
  readonly choice: LocaleChoice;
  t(key: MessageKey, values?: MessageValues): string;
  /** The messages the page's scripts format in the browser (with the same library), by key. */
  messages(keys: readonly MessageKey[]): Record<string, string>;
  /** A date and time, with its time zone named (UTC unless the candidate's zone is known). */
  dateTime(d: Date): string;
  /** A date with a short month and a time, the zone named (`2 Mar 2026, 04:05 UTC`): for mails. */
  dateTimeShort(d: Date): string;
  /** A time of day, the zone named (`04:05 UTC`). */
  timeOfDay(d: Date): string;
  date(d: Date): string;
  /**
   * A date or time in a shape of the page's own (a chart's day labels, a
   * timeline's seconds), in the translator's zone unless `options` name one
   * (a calendar day kept as UTC midnight); `timeZoneName` says the zone.
   */
  dateWith(d: Date, options: Intl.DateTimeFormatOptions): string;
  number(n: number, opts?: Intl.NumberFormatOptions): string;
  /** A length of time in whole minutes, in words (`90 minutes`, `90 Minuten`). */
  minutes(n: number): string;
  /** Names joined as the language joins a list (`A, B and C`). */
  list(items: readonly string[]): string;
  /** Alternatives joined as the language offers a choice (`A, B or C`). */
  orList(items: readonly string[]): string;
}

const formats = new Map<string, IntlMessageFormat>();

/** One message of one catalogue compiled for one formatting locale: the pseudo-locale formats as `en-GB` too, so the catalogue is part of the key. */
function compiled(catalogue: LocaleTag, locale: string, key: string, source: string): IntlMessageFormat {
  const id = `${catalogue}\u0000${locale}\u0000${key}`;
  let f = formats.get(id);
  if (!f) {
    f = new IntlMessageFormat(source, locale, undefined, { ignoreTag: true });
    formats.set(id, f);
  }
  return f;
}

/**
 * Intl's formatters, made once per locale and options and kept: building one
 * costs far more than formatting with it, and every candidate page asks for
 * the same few (a page request builds its Translator).
 */
const intlFormatters = new Map<string, Intl.DateTimeFormat | Intl.NumberFormat | Intl.ListFormat>();

function cachedFormatter<F extends Intl.DateTimeFormat | Intl.NumberFormat | Intl.ListFormat>(kind: string, lang: string, options: object, make: () => F): F {
  const id = `${kind}\u0000${lang}\u0000${JSON.stringify(options)}`;
  let f = intlFormatters.get(id) as F | undefined;
  if (!f) {
    // A partner's tag may name any region or variant: the cache starts over rather than grow without bound.
    if (intlFormatters.size >= 2000) intlFormatters.clear();
    f = make();
    intlFormatters.set(id, f);
  }
  return f;
}

const dates = (lang: string, options: Intl.DateTimeFormatOptions) => cachedFormatter('date', lang, options, () => new Intl.DateTimeFormat(lang, options));
const numbers = (lang: string, options: Intl.NumberFormatOptions = {}) => cachedFormatter('number', lang, options, () => new Intl.NumberFormat(lang, options));
const lists = (lang: string, options: Intl.ListFormatOptions) => cachedFormatter('list', lang, options, () => new Intl.ListFormat(lang, options));

export function translator(choice: LocaleChoice, opts: { timeZone?: string } = {}): Translator {
  const all = allCatalogues();
  const own = all.get(choice.tag) ?? all.get(SOURCE_LOCALE)!;
  const english = all.get(SOURCE_LOCALE)!;
  const lang = choice.formatLocale;
  const timeZone = opts.timeZone ?? 'UTC';
  const source = (key: string) => own[key] ?? english[key] ?? key;
  // In the pseudo-locale what Intl writes is marked too, so the walk can tell it from hard-coded English.
  const intl = choice.tag === PSEUDO_LOCALE ? (s: string) => `[${accent(s)}]` : (s: string) => s;
  return {
    locale: choice.tag,
    lang: choice.tag === PSEUDO_LOCALE ? PSEUDO_LOCALE : lang,
    dir: choice.dir,
    choice,
    t: (key, values) => String(compiled(choice.tag, lang, key, source(key)).format(values)),
    messages: (keys) => Object.fromEntries(keys.map((k) => [k, source(k)])),
    // The zone is named in the locale's own way ("14:05 UTC", "UTC 14:05"), never appended.
    dateTime: (d) => intl(dates(lang, { day: 'numeric', month: 'long', year: 'numeric', hour: 'numeric', minute: '2-digit', timeZoneName: 'short', timeZone }).format(d)),
    dateTimeShort: (d) => intl(dates(lang, { day: 'numeric', month: 'short', year: 'numeric', hour: '2-digit', minute: '2-digit', timeZoneName: 'short', timeZone }).format(d)),
    timeOfDay: (d) => intl(dates(lang, { hour: '2-digit', minute: '2-digit', timeZoneName: 'short', timeZone }).format(d)),
    date: (d) => intl(dates(lang, { dateStyle: 'long', timeZone }).format(d)),
    dateWith: (d, options) => intl(dates(lang, { timeZone, ...options }).format(d)),
    number: (n, o) => numbers(lang, o).format(n),
    minutes: (n) => intl(numbers(lang, { style: 'unit', unit: 'minute', unitDisplay: 'long', maximumFractionDigits: 1 }).format(n)),
    list: (items) => intl(lists(lang, { style: 'long', type: 'conjunction' }).format(items)),
    orList: (items) => intl(lists(lang, { style: 'long', type: 'disjunction' }).format(items)),
  };
}

/** English, for what is not a candidate's page yet (the staff portal) and for tests. */
export function englishTranslator(): Translator {
  return translator(chooseLocale({}));
}
