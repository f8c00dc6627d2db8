import type { MessageKey, MessageValues, Translator } from '../../../platform/i18n/catalogue.js';
import { escapeHtml, html, SafeHtml } from '../../../platform/web/html.js';

/**
 * One catalogue message with markup where its arguments go: a `<time>`, a
 * `<strong>` button name, or a number isolated with `<bdi>`. The message stays
 * one whole sentence for the translator (the catalogue holds no HTML); each
 * marked argument is formatted as a placeholder, and the text around it is
 * escaped as every interpolated value is.
 */
export function richMessage(t: Translator, key: MessageKey, values: MessageValues, markup: Record<string, SafeHtml>): SafeHtml {
  const slots = Object.keys(markup);
  // Private-use characters: never in a catalogue nor in what a partner names, so they mark only our slots.
  const token = (i: number) => `\uE000${i}\uE001`;
  const text = t.t(key, { ...values, ...Object.fromEntries(slots.map((name, i) => [name, token(i)])) });
  const out = text
    .split(/(\uE000\d+\uE001)/)
    .map((part) => {
      const slot = /^\uE000(\d+)\uE001$/.exec(part);
      return slot ? markup[slots[Number(slot[1])]!]!.value : escapeHtml(part);
    })
    .join('');
  return new SafeHtml(out);
}

/**
 * A number, an id or an address inserted into a sentence: isolated with
 * `<bdi>` on right-to-left pages, so "12 of 20" or a request id keeps its own
 * order among Arabic or Hebrew words. Left-to-right pages need no isolation
 * and keep their markup as it was.
 */
export function isolated(t: Translator, text: string): SafeHtml {
  return t.dir === 'rtl' ? html`<bdi>${text}</bdi>` : html`${text}`;
}
