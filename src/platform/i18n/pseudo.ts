import { parse, TYPE, type MessageFormatElement } from '@formatjs/icu-messageformat-parser';
import { printAST } from '@formatjs/icu-messageformat-parser/printer.js';

const ACCENTED: Record<string, string> = {
  a: 'å', b: 'ƀ', c: 'ç', d: 'ð', e: 'é', f: 'ƒ', g: 'ĝ', h: 'ĥ', i: 'î', j: 'ĵ', k: 'ķ', l: 'ļ', m: 'ɱ',
  n: 'ñ', o: 'ö', p: 'þ', q: 'ǫ', r: 'ŕ', s: 'š', t: 'ţ', u: 'û', v: 'ṽ', w: 'ŵ', x: 'ẋ', y: 'ý', z: 'ž',
  A: 'Å', B: 'Ɓ', C: 'Ç', D: 'Ð', E: 'É', F: 'Ƒ', G: 'Ĝ', H: 'Ĥ', I: 'Î', J: 'Ĵ', K: 'Ķ', L: 'Ļ', M: 'Ṁ',
  N: 'Ñ', O: 'Ö', P: 'Þ', Q: 'Ǫ', R: 'Ŕ', S: 'Š', T: 'Ţ', U: 'Û', V: 'Ṽ', W: 'Ŵ', X: 'Ẋ', Y: 'Ý', Z: 'Ž',
};

/**
 * Padding that makes a message 40 % longer, the growth a longer language
 * (German, Finnish) brings: in words of five, as a language's text can wrap
 * between words (one unbroken run would test a word no language has).
 */
function padding(length: number): string {
  return Array.from({ length }, (_, i) => (i % 6 === 5 ? ' ' : '·')).join('').trimEnd();
}

/** Letters swapped for accented ones: also what the pseudo-locale does to what Intl writes (durations, dates, lists). */
export function accent(text: string): string {
  return text.replace(/[A-Za-z]/g, (c) => ACCENTED[c] ?? c);
}

function walk(elements: MessageFormatElement[]): MessageFormatElement[] {
  return elements.map((el) => {
    switch (el.type) {
      case TYPE.literal:
        return { ...el, value: accent(el.value) };
      case TYPE.plural:
      case TYPE.select:
        return { ...el, options: Object.fromEntries(Object.entries(el.options).map(([k, o]) => [k, { ...o, value: walk(o.value) }])) };
      case TYPE.tag:
        return { ...el, children: walk(el.children) };
      default:
        return el;
    }
  });
}

function literalLength(elements: MessageFormatElement[]): number {
  return elements.reduce((n, el) => n + (el.type === TYPE.literal ? el.value.length : el.type === TYPE.tag ? literalLength(el.children) : 0), 0);
}

/**
 * One English message in the pseudo-locale: every letter accented, the text
 * padded to 140 % of its length and the whole bracketed (`[Šåvéð·····]`),
 * with its ICU arguments, plurals and tags kept as they were, so it formats
 * with the same values.
 */
export function pseudoMessage(source: string): string {
  const ast = parse(source, { ignoreTag: true });
  const grow = Math.ceil(literalLength(ast) * 0.4);
  return `[${printAST(walk(ast))}${grow > 0 ? ` ${padding(grow)}` : ''}]`;
}

/** Whether a piece of visible text is pseudo-locale output (accented and bracketed), for the walk that finds hard-coded strings. */
export const PSEUDO_TEXT = /\[[^\]]*\]/;
