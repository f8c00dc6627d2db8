import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse, TYPE, type MessageFormatElement } from '@formatjs/icu-messageformat-parser';
import { IntlMessageFormat } from 'intl-messageformat';
import { translator, type MessageKey, type MessageValues } from './catalogue.js';
import { chooseLocale, LOCALES, PSEUDO_LOCALE, SOURCE_LOCALE } from './locales.js';
import { pseudoMessage } from './pseudo.js';

/**
 * The catalogues (docs/languages.md): the same keys everywhere, every message
 * valid ICU MessageFormat with English's arguments and the plural forms its
 * language needs, each language really translated, the pseudo-locale usable
 * for every message, and the choice of a candidate's locale.
 */
type Catalogue = Record<string, string>;

function readCatalogue(tag: string): Catalogue {
  return JSON.parse(fs.readFileSync(new URL(`./messages/${tag}.json`, import.meta.url), 'utf8')) as Catalogue;
}

const english = readCatalogue(SOURCE_LOCALE);
/**
 * The staff portal's words (`portal.*`) are in English only for now (docs/languages.md): every other
 * catalogue holds exactly the rest, which the candidate sees, and shows the portal's keys in English.
 */
const ENGLISH_ONLY = 'portal.';
const translatable = Object.fromEntries(Object.entries(english).filter(([k]) => !k.startsWith(ENGLISH_ONLY)));
const others = LOCALES.filter((l) => l.tag !== SOURCE_LOCALE).map((l) => ({ tag: l.tag, messages: readCatalogue(l.tag) }));
const ast = (message: string) => parse(message, { ignoreTag: true });

/** How a message uses each argument: what sample value it needs. */
type ArgumentKind = 'text' | 'number' | 'date' | 'select';

/** Every argument a message names, in plural and select branches and tags too, with what it is used as. */
function argumentsOf(elements: MessageFormatElement[], found = new Map<string, ArgumentKind>()): Map<string, ArgumentKind> {
  for (const el of elements) {
    switch (el.type) {
      case TYPE.argument:
        if (!found.has(el.value)) found.set(el.value, 'text');
        break;
      case TYPE.number:
        found.set(el.value, 'number');
        break;
      case TYPE.date:
      case TYPE.time:
        found.set(el.value, 'date');
        break;
      case TYPE.plural:
        found.set(el.value, 'number');
        for (const option of Object.values(el.options)) argumentsOf(option.value, found);
        break;
      case TYPE.select:
        found.set(el.value, 'select');
        for (const option of Object.values(el.options)) argumentsOf(option.value, found);
        break;
      case TYPE.tag:
        argumentsOf(el.children, found);
        break;
      default:
        break;
    }
  }
  return found;
}

/**
 * The CLDR plural categories `tag` needs that one of the message's plurals
 * leaves out (`other` always needed); exact matches (`=0`) do not count as a
 * category. Empty when every plural is complete.
 */
const ROMANCE_MANY = new Set(['es', 'fr', 'pt-BR']);

function missingPluralCategories(tag: string, message: string): string[] {
  const missing = new Set<string>();
  const walk = (elements: MessageFormatElement[]) => {
    for (const el of elements) {
      if (el.type === TYPE.plural) {
        const needed = new Set<string>([...new Intl.PluralRules(tag, { type: el.pluralType }).resolvedOptions().pluralCategories, 'other']);
        // Spanish, French and Portuguese `many` is for millions ("1 000 000 de secondes"), which no count here reaches; left out, it takes `other`'s words.
        if (ROMANCE_MANY.has(tag) && el.pluralType !== 'ordinal') needed.delete('many');
        for (const category of needed) if (!(category in el.options)) missing.add(category);
      }
      if (el.type === TYPE.plural || el.type === TYPE.select) for (const option of Object.values(el.options)) walk(option.value);
      if (el.type === TYPE.tag) walk(el.children);
    }
  };
  walk(ast(message));
  return [...missing].sort();
}

/** The message's own words: its literal text, in every branch, without arguments. */
function literalText(elements: MessageFormatElement[]): string {
  return elements
    .map((el) => {
      if (el.type === TYPE.literal) return el.value;
      if (el.type === TYPE.plural || el.type === TYPE.select) return Object.values(el.options).map((o) => literalText(o.value)).join(' ');
      if (el.type === TYPE.tag) return literalText(el.children);
      return '';
    })
    .join('');
}

/** A message that is only punctuation and arguments (`{title} – {owner}`, `:`): the same in every language. */
const languageNeutral = (message: string) => !/\p{L}/u.test(literalText(ast(message)));

/** Sample values for a message's arguments: a string names its argument, so the output shows it was put in. */
function sampleValues(message: string): MessageValues {
  const values: MessageValues = {};
  for (const [name, kind] of argumentsOf(ast(message))) {
    values[name] = kind === 'number' ? 3 : kind === 'date' ? new Date('2031-05-03T14:05:00Z') : kind === 'select' ? 'other' : `«${name}»`;
  }
  return values;
}

describe('the catalogues', () => {
  it('every shipped locale has a catalogue, English has messages, and the Translator’s keys are English’s', () => {
    expect(Object.keys(english).length).toBeGreaterThan(0);
    expect(others.map((o) => o.tag).sort()).toEqual(LOCALES.map((l) => l.tag).filter((t) => t !== SOURCE_LOCALE).sort());
    const files = fs.readdirSync(new URL('./messages/', import.meta.url)).filter((f) => f.endsWith('.json')).map((f) => f.replace(/\.json$/, ''));
    expect(files.sort()).toEqual(LOCALES.map((l) => l.tag).sort());
  });

  it('shows the portal’s English-only words in English whatever the language', () => {
    expect(Object.keys(english).some((k) => k.startsWith(ENGLISH_ONLY))).toBe(true);
    for (const tag of ['fr', 'ar', 'ja']) expect(translator(chooseLocale({ assignment: tag })).t('portal.account.addPasskey')).toBe(english['portal.account.addPasskey']);
  });

  it.each(others)('$tag has exactly English’s keys but the portal’s', ({ messages }) => {
    expect(Object.keys(messages).sort()).toEqual(Object.keys(translatable).sort());
  });

  it.each([{ tag: SOURCE_LOCALE, messages: english }, ...others])('every $tag message parses as ICU MessageFormat and is a string', ({ messages }) => {
    for (const [key, message] of Object.entries(messages)) {
      expect(typeof message, key).toBe('string');
      expect(() => ast(message), `${key}: ${message}`).not.toThrow();
    }
  });

  it.each(others)('every $tag message names exactly the arguments of its English', ({ messages }) => {
    for (const [key, source] of Object.entries(translatable)) {
      const translated = messages[key];
      if (translated === undefined) continue; // reported by the key test
      expect([...argumentsOf(ast(translated)).keys()].sort(), `${key}: ${translated}`).toEqual([...argumentsOf(ast(source)).keys()].sort());
    }
  });

  it.each([{ tag: SOURCE_LOCALE, messages: english }, ...others])('every $tag plural has the CLDR categories the language needs', ({ tag, messages }) => {
    for (const [key, message] of Object.entries(messages)) expect(missingPluralCategories(tag, message), `${key}: ${message}`).toEqual([]);
  });

  it.each([{ tag: SOURCE_LOCALE, messages: english }, ...others])('every $tag message formats with sample values, each argument in its output', ({ tag, messages }) => {
    for (const [key, message] of Object.entries(messages)) {
      const values = sampleValues(english[key] ?? message);
      const out = String(new IntlMessageFormat(message, tag, undefined, { ignoreTag: true }).format(values));
      for (const v of Object.values(values)) if (typeof v === 'string' && v.startsWith('«')) expect(out, `${key}: ${out}`).toContain(v);
    }
  });

  it.each(others)('$tag is translated: at most 10 % of its worded messages are the English', ({ tag, messages }) => {
    const worded = Object.keys(translatable).filter((k) => !languageNeutral(english[k]!));
    const same = worded.filter((k) => messages[k] === english[k]);
    expect(worded.length).toBeGreaterThan(0);
    expect(same.length / worded.length, `${tag} keeps English for: ${same.join(', ')}`).toBeLessThanOrEqual(0.1);
  });

  it('tells the punctuation-only messages apart from worded ones', () => {
    expect(languageNeutral('{title} – {owner}')).toBe(true);
    expect(languageNeutral(':')).toBe(true);
    expect(languageNeutral('Test mode: {title}')).toBe(false);
    expect(languageNeutral('{n, plural, one {# question} other {# questions}}')).toBe(false);
  });

  it('keeps the screen-reader colon after "Test mode" in each language’s typography', () => {
    const end = (tag: string) => readCatalogue(tag)['layout.testModeTagEnd'];
    expect(end('fr')).toBe('\u00a0:');
    expect(end('zh-Hans')).toBe('：');
    expect(end('ja')).toBe('：');
    for (const tag of ['en', 'es', 'de', 'pt-BR', 'ar', 'he', 'hi', 'uk']) expect(end(tag), tag).toBe(':');
  });
});

describe('the argument and plural checks themselves', () => {
  it('find arguments inside plural, select and nested branches', () => {
    const names = argumentsOf(ast('{who, select, staff {{name} marked {n, plural, one {# answer by {reviewer}} other {# answers}}} other {{name}}}'));
    expect([...names.keys()].sort()).toEqual(['n', 'name', 'reviewer', 'who']);
    expect(names.get('n')).toBe('number');
    expect(names.get('who')).toBe('select');
  });

  it('flag a plural that lacks a category the language needs, and accept a complete one', () => {
    const englishOnly = '{n, plural, one {# question} other {# questions}}';
    expect(missingPluralCategories('en', englishOnly)).toEqual([]);
    expect(missingPluralCategories('ar', englishOnly)).toEqual(['few', 'many', 'two', 'zero']);
    expect(missingPluralCategories('uk', englishOnly)).toEqual(['few', 'many']);
    expect(missingPluralCategories('he', '{n, plural, one {#} two {#} other {#}}')).toEqual([]);
    expect(missingPluralCategories('ja', '{n, plural, other {# 問}}')).toEqual([]);
    expect(missingPluralCategories('ja', '{n, plural, =0 {なし} other {# 問}}')).toEqual([]);
    // Without `other` a plural does not even parse.
    expect(() => ast('{n, plural, one {# question}}')).toThrow();
    expect(missingPluralCategories('ar', '{n, plural, zero {#} one {#} two {#} few {#} many {#} other {#}}')).toEqual([]);
  });
});

describe('the pseudo-locale', () => {
  const pseudo = translator(chooseLocale({ candidate: PSEUDO_LOCALE }, { pseudo: true }));

  it('is chosen only with the pseudo-locale on', () => {
    expect(pseudo.locale).toBe(PSEUDO_LOCALE);
    expect(pseudo.lang).toBe(PSEUDO_LOCALE);
    expect(chooseLocale({ candidate: PSEUDO_LOCALE }).tag).toBe(SOURCE_LOCALE);
  });

  it('makes every English message into one that parses, formats with the same values and keeps each argument', () => {
    for (const [key, source] of Object.entries(english)) {
      const made = pseudoMessage(source);
      expect(() => ast(made), key).not.toThrow();
      expect([...argumentsOf(ast(made)).keys()].sort(), key).toEqual([...argumentsOf(ast(source)).keys()].sort());
      const values = sampleValues(source);
      const out = pseudo.t(key as MessageKey, values);
      expect(out.startsWith('[') && out.endsWith(']'), `${key}: ${out}`).toBe(true);
      for (const v of Object.values(values)) if (typeof v === 'string' && v.startsWith('«')) expect(out, key).toContain(v);
      // Also after the pseudo text was compiled: English, formatted for the same en-GB, stays English.
      if (!languageNeutral(source)) expect(translator(chooseLocale({})).t(key as MessageKey, values), key).not.toBe(out);
    }
  });
});

describe('chooseLocale', () => {
  it('serves fr-CA from the French catalogue with Canadian formats', () => {
    expect(chooseLocale({ assignment: 'fr-CA' })).toEqual({ tag: 'fr', formatLocale: 'fr-CA', dir: 'ltr', source: 'assignment', unmatched: null });
  });

  it.each([
    ['zh-CN', 'zh-Hans'],
    ['pt', 'pt-BR'],
    ['pt-PT', 'pt-BR'],
    ['iw', 'he'],
    ['es-MX', 'es'],
    ['de-CH', 'de'],
  ])('matches %s to the nearest catalogue, %s', (requested, tag) => {
    const choice = chooseLocale({ assignment: requested });
    expect(choice.tag).toBe(tag);
    expect(choice.unmatched).toBeNull();
  });

  it('gives Hebrew and Arabic right to left', () => {
    expect(chooseLocale({ assignment: 'iw' }).dir).toBe('rtl');
    expect(chooseLocale({ assignment: 'ar-EG' })).toMatchObject({ tag: 'ar', dir: 'rtl', formatLocale: 'ar-EG' });
  });

  it('falls back from nl, keeping what was asked for the page to say so', () => {
    expect(chooseLocale({ assignment: 'nl' })).toEqual({ tag: 'en', formatLocale: 'en-GB', dir: 'ltr', source: 'default', unmatched: 'nl' });
    expect(chooseLocale({ assignment: 'nl', acceptLanguage: 'de-DE' })).toMatchObject({ tag: 'de', source: 'browser', unmatched: 'nl' });
  });

  it('prefers the candidate’s choice to the assignment’s, and the assignment’s to the browser’s', () => {
    expect(chooseLocale({ candidate: 'ja', assignment: 'fr', acceptLanguage: 'de' })).toMatchObject({ tag: 'ja', source: 'candidate' });
    expect(chooseLocale({ assignment: 'fr', acceptLanguage: 'de' })).toMatchObject({ tag: 'fr', source: 'assignment' });
    expect(chooseLocale({ candidate: null, assignment: null, acceptLanguage: 'de' })).toMatchObject({ tag: 'de', source: 'browser' });
    expect(chooseLocale({})).toMatchObject({ tag: 'en', source: 'default', unmatched: null });
  });

  it('orders Accept-Language by q-value, then by position, and drops q=0', () => {
    expect(chooseLocale({ acceptLanguage: 'de;q=0.5, fr;q=0.9' }).tag).toBe('fr');
    expect(chooseLocale({ acceptLanguage: 'uk, es' }).tag).toBe('uk');
    expect(chooseLocale({ acceptLanguage: 'ja;q=0, es;q=0.1' }).tag).toBe('es');
    expect(chooseLocale({ acceptLanguage: 'nl, pt-BR;q=0.8' })).toMatchObject({ tag: 'pt-BR', source: 'browser', unmatched: null });
  });

  it('skips malformed Accept-Language parts', () => {
    expect(chooseLocale({ acceptLanguage: 'xx_YY, *, ;q=0.9, fr;q=0, ja;q=0.5' })).toMatchObject({ tag: 'ja', source: 'browser' });
    expect(chooseLocale({ acceptLanguage: ',,;;, en_GB' })).toMatchObject({ tag: 'en', source: 'default' });
  });

  it('offers en-XA only with the pseudo-locale on', () => {
    expect(chooseLocale({ assignment: PSEUDO_LOCALE })).toMatchObject({ tag: 'en', unmatched: PSEUDO_LOCALE });
    expect(chooseLocale({ acceptLanguage: PSEUDO_LOCALE })).toMatchObject({ tag: 'en', source: 'default' });
    expect(chooseLocale({ assignment: PSEUDO_LOCALE }, { pseudo: true })).toMatchObject({ tag: PSEUDO_LOCALE, source: 'assignment' });
  });
});
