import type { MessageKey, MessageValues, Translator } from '../i18n/catalogue.js';
import { escapeHtml, SafeHtml } from './html.js';

/**
 * A message whose sentence holds markup (a link, a span a script fills in):
 * the catalogue keeps the whole sentence with a named argument where the
 * markup goes ("These questions use {passage}, shown above."), so each
 * language places it where its grammar wants it. The message is formatted
 * with a marker for each such argument; the text around the markers is
 * escaped and each marker replaced by its markup, so no message ever
 * carries HTML.
 */
export function messageWithMarkup(t: Translator, key: MessageKey, values: MessageValues, markup: Readonly<Record<string, SafeHtml>>): SafeHtml {
  const names = Object.keys(markup);
  const marker = (i: number) => `\u0001${i}\u0002`;
  const text = t.t(key, { ...values, ...Object.fromEntries(names.map((n, i) => [n, marker(i)])) });
  const pieces = text.split(/\u0001(\d+)\u0002/);
  // split with a capture group: even entries are text, odd ones the index of an argument's markup.
  return new SafeHtml(pieces.map((piece, i) => (i % 2 === 0 ? escapeHtml(piece) : markup[names[Number(piece)]!]!.value)).join(''));
}
