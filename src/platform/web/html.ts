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
export function testModeNotice(institutionName: string): SafeHtml {
  const who = institutionName ? `${institutionName}’s developers` : 'the institution’s developers';
  return html`<div class="test-mode-banner" id="test-mode-notice"><p><strong class="test-mode-tag">Test mode<span class="sr-only">:</span></strong> This attempt is a sandbox run by ${who}; nothing here counts.</p></div>`;
}

export function layout(p: LayoutInput): string {
  const owner = p.institutionName || 'Assay';
  const title = p.testMode ? `Test mode: ${p.title}` : p.title;
  return `<!doctype html>${html`<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} – ${owner}</title>
<link rel="stylesheet" href="/assets/student.css">
<link rel="stylesheet" href="/assets/question-types.css">
${p.script ? html`<script src="/assets/question-fields.js" defer></script><script src="/assets/question-types.js" defer></script><script src="/assets/student.js" defer></script>` : ''}
${(p.moduleScripts ?? []).map((src) => html`<script type="module" src="${src}"></script>`)}
</head>
<body>
<a class="skip-link" href="#main">Skip to main content</a>
<header class="site-header">${p.testMode ? testModeNotice(p.institutionName) : ''}<p class="institution">${owner}</p></header>
<main id="main" tabindex="-1">
${p.main}
</main>
<footer class="site-footer"><p>${p.institutionName ? html`Assessment delivered by Assay for ${p.institutionName}.` : 'Assessment delivered by Assay.'}</p></footer>
</body>
</html>`}`;
}

const DATE_FORMAT = new Intl.DateTimeFormat('en-GB', { dateStyle: 'long', timeStyle: 'short', timeZone: 'UTC' });

/** A date for people, in UTC and said so; the machine-readable value is in `datetime`. */
export function timeTag(d: Date): SafeHtml {
  return html`<time datetime="${d.toISOString()}">${DATE_FORMAT.format(d)} UTC</time>`;
}

export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

export function formatPoints(n: number): string {
  return Number.isInteger(n) ? String(n) : String(Math.round(n * 100) / 100);
}
