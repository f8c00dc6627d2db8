// The page's messages in the candidate's language (docs/languages.md): the server sends the catalogue's
// ICU MessageFormat sources the page's scripts need (#assay-messages), and they are formatted here by the
// same library the server uses, with CLDR's plural rules through Intl. Loaded before the page's other
// scripts, which call window.AssayI18n.t(key, values).
import { IntlMessageFormat } from '/assets/vendor/intl-messageformat.js';

const el = document.getElementById('assay-messages');
const data = el ? JSON.parse(el.textContent) : { locale: document.documentElement.lang || 'en', messages: {} };
const formats = new Map();

function t(key, values) {
  let f = formats.get(key);
  if (!f) {
    const source = data.messages[key];
    // A key the page did not send is a bug in the page, shown as the key rather than a broken script.
    if (source === undefined) return key;
    f = new IntlMessageFormat(source, data.locale, undefined, { ignoreTag: true });
    formats.set(key, f);
  }
  return String(f.format(values));
}

// Dates the server wrote in UTC (timeTag), shown in the candidate's own time zone, named.
const zoned = new Intl.DateTimeFormat(data.locale, { day: 'numeric', month: 'long', year: 'numeric', hour: 'numeric', minute: '2-digit', timeZoneName: 'short' });
for (const el of document.querySelectorAll('time[data-local][datetime]')) {
  const d = new Date(el.getAttribute('datetime'));
  if (!Number.isNaN(d.getTime())) el.textContent = zoned.format(d);
}

window.AssayI18n = {
  locale: data.locale,
  t,
  number: (n, opts) => new Intl.NumberFormat(data.locale, opts).format(n),
  /** A clock time (14:05, 2:05 PM) in the candidate's own time zone; `opts` adjusts it (a 24-hour clock: { hourCycle: 'h23' }). */
  time: (d, opts) => new Intl.DateTimeFormat(data.locale, { hour: 'numeric', minute: '2-digit', ...opts }).format(d),
};
