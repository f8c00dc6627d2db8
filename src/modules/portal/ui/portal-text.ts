import { englishTranslator, type MessageKey, type Translator } from '../../../platform/i18n/catalogue.js';
import { escapeHtml, SafeHtml } from '../../../platform/web/html.js';

/**
 * The portal's words. Its texts are `portal.` messages of the shared
 * catalogue, English only for now (other catalogues fall back to English for
 * them); every page takes a `Translator` so staff can later read it in their
 * own language.
 */

let english: Translator | null = null;

/** The portal's English, made once: pages render it for every row of a table. */
export function portalTranslator(): Translator {
  return (english ??= englishTranslator());
}

const MARK = /\u0001(\d+)\u0002/g;

/**
 * A sentence that holds markup (a link, a `<code>`, a `<strong>`) or a
 * straight apostrophe: the message itself stays free of HTML. Its SafeHtml
 * values go in as they are and its string values escaped as `html` escapes
 * them; both stand in the message as markers while it is formatted, so a
 * translation may move them anywhere in its sentence (and a string cannot
 * pick a `select` branch here: numbers only choose, for plurals). The
 * message's own text is escaped but for the apostrophe, which needs it
 * neither in element content nor in the double-quoted attributes the portal
 * writes (the only attributes this may fill).
 */
export function richText(t: Translator, key: MessageKey, values: Record<string, string | number | SafeHtml> = {}): SafeHtml {
  const parts: string[] = [];
  const args: Record<string, string | number> = {};
  for (const [name, v] of Object.entries(values)) {
    if (typeof v === 'number') {
      args[name] = v;
      continue;
    }
    args[name] = `\u0001${parts.length}\u0002`;
    parts.push(v instanceof SafeHtml ? v.value : escapeHtml(v));
  }
  const text = t.t(key, args).replace(/[&<>"]/g, (c) => escapeHtml(c));
  return new SafeHtml(text.replace(MARK, (_, i: string) => parts[Number(i)]!));
}
