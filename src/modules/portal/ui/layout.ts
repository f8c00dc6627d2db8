import type { MessageKey, Translator } from '../../../platform/i18n/catalogue.js';
import { html, jsonForScript, type SafeHtml } from '../../../platform/web/html.js';
import { can, type Permission, type StaffPrincipal } from '../../staff/principal.js';
import { flashMessage, type Flash } from './components.js';
import { portalTranslator, richText } from './portal-text.js';

/**
 * The portal's page frame: skip link, banner with who is signed in and the
 * sign-out form, the main navigation (only what the role may use), the main
 * landmark and a footer. Own stylesheet and script only (strict CSP).
 */
export type NavKey =
  | 'overview'
  | 'assignments'
  | 'marking'
  | 'statistics'
  | 'api-keys'
  | 'callback-domains'
  | 'webhooks'
  | 'lti'
  | 'staff'
  | 'audit'
  | 'institutions'
  | 'tests'
  | 'account';

interface NavItem {
  key: NavKey;
  /** The accessible name's message (the English is fixed by docs/portal.md). */
  label: MessageKey;
  path: string;
  permission: Permission;
  /** The page works on one institution: operators carry their chosen one along. */
  scoped: boolean;
}

export const NAV: readonly NavItem[] = [
  { key: 'overview', label: 'portal.nav.overview', path: '/portal', permission: 'read', scoped: true },
  { key: 'assignments', label: 'portal.nav.assignments', path: '/portal/assignments', permission: 'read', scoped: true },
  { key: 'marking', label: 'portal.nav.marking', path: '/portal/marking', permission: 'mark', scoped: true },
  { key: 'statistics', label: 'portal.nav.statistics', path: '/portal/statistics', permission: 'read', scoped: true },
  { key: 'api-keys', label: 'portal.nav.apiKeys', path: '/portal/api-keys', permission: 'manage_integration', scoped: true },
  { key: 'callback-domains', label: 'portal.nav.callbackDomains', path: '/portal/callback-domains', permission: 'read', scoped: true },
  { key: 'webhooks', label: 'portal.nav.webhooks', path: '/portal/webhooks', permission: 'read', scoped: true },
  { key: 'lti', label: 'portal.nav.lti', path: '/portal/lti', permission: 'manage_integration', scoped: true },
  { key: 'staff', label: 'portal.nav.staff', path: '/portal/staff', permission: 'manage_staff', scoped: true },
  { key: 'audit', label: 'portal.nav.audit', path: '/portal/audit', permission: 'manage_staff', scoped: true },
  { key: 'institutions', label: 'portal.nav.institutions', path: '/portal/institutions', permission: 'operate', scoped: false },
  { key: 'tests', label: 'portal.nav.tests', path: '/portal/tests', permission: 'author_tests', scoped: false },
];

/** A portal path with the operator's chosen institution carried along (staff of an institution never need it). */
export function scopedHref(path: string, institutionId: string | null | undefined, query: Record<string, string | undefined> = {}): string {
  const params = new URLSearchParams();
  if (institutionId) params.set('institution', institutionId);
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== '') params.set(k, v);
  const qs = params.toString();
  return qs ? `${path}?${qs}` : path;
}

/**
 * The page's head. A page whose scripts speak (the editor, the proctoring
 * timeline, portal.js's menu) names their messages in `clientMessages`: the
 * catalogue's ICU sources go in `#assay-messages` and the student pages'
 * formatter (/assets/i18n.js, a module, so it runs before the deferred
 * scripts that follow it) gives them `window.AssayI18n.t`.
 */
function head(t: Translator, title: string, clientMessages: readonly MessageKey[]): SafeHtml {
  const messages = [...PORTAL_SCRIPT_MESSAGES, ...clientMessages];
  return html`<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${t.t('portal.layout.documentTitle', { title })}</title>
<link rel="stylesheet" href="/portal/assets/portal.css">
<link rel="stylesheet" href="/portal/assets/question-types.css">
<script type="application/json" id="assay-messages">${jsonForScript({ locale: t.lang, messages: t.messages(messages) })}</script>
<script type="module" src="/assets/i18n.js"></script>
<script src="/portal/assets/portal.js" defer></script>
</head>`;
}

/** What portal.js, on every page, says (its copy buttons' status). */
export const PORTAL_SCRIPT_MESSAGES: readonly MessageKey[] = ['portal.script.copied', 'portal.script.copyFailed'];

/** "Assay portal" as the banner's home link, the product's name set apart from the word. */
function brand(t: Translator, href: string): SafeHtml {
  return html`<p class="brand"><a href="${href}">${richText(t, 'portal.layout.brand', { portal: html`<span>${t.t('portal.layout.brandPortal')}</span>` })}</a></p>`;
}

export interface PortalLayoutInput {
  title: string;
  principal: StaffPrincipal;
  current: NavKey | null;
  main: SafeHtml;
  flash?: Flash | null;
  /** The institution the page acts on (an operator's choice, or the staff member's own). */
  institutionId?: string | null;
  /** Its name, when known, for the banner. */
  institutionName?: string | null;
  /** The page's language (English until staff can choose theirs). */
  t?: Translator;
  /** The messages the page's own scripts format (window.AssayI18n.t), besides portal.js's. */
  clientMessages?: readonly MessageKey[];
}

/**
 * At phone width the navigation's links fold behind a Menu button
 * (aria-expanded, aria-controls; portal.js shows it and Escape closes it);
 * without the script the links stay one row that scrolls sideways. Wider
 * screens show the links as a row and never the button.
 */
export function portalLayout(p: PortalLayoutInput): string {
  const t = p.t ?? portalTranslator();
  const who = p.principal.name ?? p.principal.email;
  // Only an operator's links carry an institution: staff of one always act on their own.
  const inst = p.principal.role === 'operator' ? (p.institutionId ?? null) : null;
  const place =
    p.principal.role === 'operator'
      ? p.institutionName
        ? t.t('portal.layout.operatorOf', { institution: p.institutionName })
        : t.t('portal.layout.operator')
      : (p.principal.institutionName ?? '');
  const items = NAV.filter((n) => can(p.principal, n.permission));
  const current = items.find((n) => n.key === p.current);
  return `<!doctype html>${html`<html lang="${t.locale}">
${head(t, p.title, p.clientMessages ?? [])}
<body>
<a class="skip-link" href="#main">${t.t('portal.layout.skipLink')}</a>
<header class="portal-header">
  <div class="bar">
    ${brand(t, scopedHref('/portal', inst))}
    <p class="place">${place}</p>
    <div class="who">
      <a href="/portal/account" class="account-link"${p.current === 'account' ? html` aria-current="page"` : ''}>${who}<span class="role"> ${t.t('portal.layout.role', { role: p.principal.role })}</span></a>
      <form method="post" action="/portal/sign-out" class="sign-out">
        <input type="hidden" name="csrf" value="${p.principal.sessionCsrf}">
        <button type="submit" class="link-button">${t.t('portal.layout.signOut')}</button>
      </form>
    </div>
  </div>
  <nav class="main-nav" aria-label="${t.t('portal.layout.mainNav')}">
    <button type="button" class="nav-toggle" aria-expanded="false" aria-controls="main-nav-list" hidden>${t.t('portal.layout.menu')}${
      current ? html`<span class="nav-current" aria-hidden="true">${t.t('portal.layout.menuCurrent', { page: t.t(current.label) })}</span>` : ''
    }</button>
    <ul id="main-nav-list">
      ${items.map(
        (n) =>
          html`<li><a href="${n.scoped ? scopedHref(n.path, inst) : n.path}"${n.key === p.current ? html` aria-current="page"` : ''}>${t.t(n.label)}</a></li>`,
      )}
    </ul>
  </nav>
</header>
<main id="main" tabindex="-1">
${p.flash ? flashMessage(p.flash) : ''}
${p.main}
</main>
<footer class="portal-footer"><p>${richText(t, 'portal.layout.footerWithDocs', { docs: html`<a href="/docs">${t.t('portal.layout.apiReference')}</a>` })}</p></footer>
</body>
</html>`}`;
}

/** The frame of the signed-out pages (sign-in, link landing): no navigation. */
export function signedOutLayout(p: { title: string; main: SafeHtml; t?: Translator; clientMessages?: readonly MessageKey[] }): string {
  const t = p.t ?? portalTranslator();
  return `<!doctype html>${html`<html lang="${t.locale}">
${head(t, p.title, p.clientMessages ?? [])}
<body class="signed-out">
<a class="skip-link" href="#main">${t.t('portal.layout.skipLink')}</a>
<header class="portal-header"><div class="bar">${brand(t, '/portal')}</div></header>
<main id="main" tabindex="-1">
${p.main}
</main>
<footer class="portal-footer"><p>${t.t('portal.layout.footer')}</p></footer>
</body>
</html>`}`;
}
