import { englishTranslator, type MessageKey, type Translator } from '../i18n/catalogue.js';

/**
 * A minimal HTML template: `html\`…\`` escapes every interpolated value
 * unless it is already SafeHtml (the result of another `html` call), and
 * joins arrays. Nothing a partner or author wrote reaches the page unescaped.
 */
export class SafeHtml {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ENTITIES[c]!);
}

function render(value: unknown): string {
  if (value === null || value === undefined || value === false) return '';
  if (value instanceof SafeHtml) return value.value;
  if (Array.isArray(value)) return value.map(render).join('');
  return escapeHtml(String(value));
}

export function html(strings: TemplateStringsArray, ...values: unknown[]): SafeHtml {
  let out = strings[0]!;
  values.forEach((v, i) => {
    out += render(v) + strings[i + 1]!;
  });
  return new SafeHtml(out);
}

/** JSON for a `<script type="application/json">` block: `<` is escaped so no text can close the element. */
export function jsonForScript(value: unknown): SafeHtml {
  return new SafeHtml(JSON.stringify(value).replace(/</g, '\\u003c').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029'));
}

/**
 * Headers for every student page: a strict CSP (own scripts, styles and
 * fetches only; no inline script, no framing), no caching of answers or
 * tokens, and no Referer (the start link must not leak to another site).
 */
export const PAGE_HEADERS: Record<string, string> = {
  'content-type': 'text/html; charset=utf-8',
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
  'cache-control': 'no-store',
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
};

export interface LayoutInput {
  /** The page's language: every text the layout adds, `<html lang dir>`, and the messages its scripts format. */
  t: Translator;
  /** Keys of the messages the page's scripts show (formatted in the browser by the same library), sent with the page. */
  clientMessages?: readonly MessageKey[];
  /** The document title, before " – <institution>". */
  title: string;
  institutionName: string;
  main: SafeHtml;
  /** Loads the page script (test page only). */
  script?: boolean;
  /** Further scripts loaded as ES modules (the proctoring scripts of proctored tests), from Assay's own /assets. */
  moduleScripts?: string[];
  /** The page belongs to a test-mode assignment: a notice says so on every page, and the title starts with it. */
  testMode?: boolean;
}

/**
 * The notice on every page of a test-mode assignment, at the top of the
 * banner landmark so it is read first and seen before anything else: a
 * developer or tester must never take a sandbox run for a real exam.
 */
export function testModeNotice(t: Translator, institutionName: string): SafeHtml {
  const notice = institutionName ? t.t('layout.testModeNotice', { institution: institutionName }) : t.t('layout.testModeNoticeNoName');
  return html`<div class="test-mode-banner" id="test-mode-notice"><p><strong class="test-mode-tag">${t.t('layout.testModeTag')}<span class="sr-only">${t.t('layout.testModeTagEnd')}</span></strong> ${notice}</p></div>`;
}

export function layout(p: LayoutInput): string {
  const { t } = p;
  const owner = p.institutionName || 'Assay';
  const title = t.t(p.testMode ? 'layout.documentTitleTestMode' : 'layout.documentTitle', { title: p.title, owner });
  return `<!doctype html>${html`<html lang="${t.lang}" dir="${t.dir}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
<link rel="stylesheet" href="/assets/student.css">
<link rel="stylesheet" href="/assets/question-types.css">
<script type="application/json" id="assay-messages">${jsonForScript({ locale: t.lang, messages: t.messages(p.clientMessages ?? []) })}</script><script type="module" src="/assets/i18n.js"></script>
${p.script ? html`<script src="/assets/question-fields.js" defer></script><script src="/assets/question-types.js" defer></script><script src="/assets/test-saving.js" defer></script><script src="/assets/test-timer.js" defer></script><script src="/assets/test-status.js" defer></script><script src="/assets/student.js" defer></script>` : ''}
${(p.moduleScripts ?? []).map((src) => html`<script type="module" src="${src}"></script>`)}
</head>
<body>
<a class="skip-link" href="#main">${t.t('layout.skipLink')}</a>
<header class="site-header">${p.testMode ? testModeNotice(t, p.institutionName) : ''}<p class="institution">${owner}</p></header>
<main id="main" tabindex="-1">
${p.main}
</main>
<footer class="site-footer"><p>${p.institutionName ? t.t('layout.footer', { institution: p.institutionName }) : t.t('layout.footerNoName')}</p></footer>
</body>
</html>`}`;
}

/**
 * A date for people in the page's language, in UTC and said so; the
 * machine-readable value is in `datetime`. `data-local` asks the page's
 * script (assets/i18n.js) to show it in the candidate's own time zone, which
 * the browser knows and the server does not; without the script it stays UTC.
 */
export function timeTag(d: Date, t: Translator = englishTranslator()): SafeHtml {
  return html`<time datetime="${d.toISOString()}" data-local>${t.dateTime(d)}</time>`;
}

export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

export function formatPoints(n: number): string {
  return Number.isInteger(n) ? String(n) : String(Math.round(n * 100) / 100);
}
