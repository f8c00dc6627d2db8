import { html, type SafeHtml } from '../../../platform/web/html.js';
import { can, type Permission, type StaffPrincipal } from '../../staff/principal.js';
import { flashMessage, type Flash } from './components.js';

/**
 * The portal's page frame: skip link, banner with who is signed in and the
 * sign-out form, the main navigation (only what the role may use), the main
 * landmark and a footer. Own stylesheet and script only (strict CSP).
 */
export type NavKey =
  | 'overview'
  | 'assignments'
  | 'marking'
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
  /** The accessible name, fixed by docs/portal.md. */
  label: string;
  path: string;
  permission: Permission;
  /** The page works on one institution: operators carry their chosen one along. */
  scoped: boolean;
}

export const NAV: readonly NavItem[] = [
  { key: 'overview', label: 'Overview', path: '/portal', permission: 'read', scoped: true },
  { key: 'assignments', label: 'Assignments', path: '/portal/assignments', permission: 'read', scoped: true },
  { key: 'marking', label: 'Marking', path: '/portal/marking', permission: 'mark', scoped: true },
  { key: 'api-keys', label: 'API keys', path: '/portal/api-keys', permission: 'manage_integration', scoped: true },
  { key: 'callback-domains', label: 'Callback domains', path: '/portal/callback-domains', permission: 'read', scoped: true },
  { key: 'webhooks', label: 'Webhooks', path: '/portal/webhooks', permission: 'read', scoped: true },
  { key: 'lti', label: 'LTI platforms', path: '/portal/lti', permission: 'manage_integration', scoped: true },
  { key: 'staff', label: 'Staff', path: '/portal/staff', permission: 'manage_staff', scoped: true },
  { key: 'audit', label: 'Audit log', path: '/portal/audit', permission: 'manage_staff', scoped: true },
  { key: 'institutions', label: 'Institutions', path: '/portal/institutions', permission: 'operate', scoped: false },
  { key: 'tests', label: 'Tests', path: '/portal/tests', permission: 'author_tests', scoped: false },
];

/** A portal path with the operator's chosen institution carried along (staff of an institution never need it). */
export function scopedHref(path: string, institutionId: string | null | undefined, query: Record<string, string | undefined> = {}): string {
  const params = new URLSearchParams();
  if (institutionId) params.set('institution', institutionId);
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== '') params.set(k, v);
  const qs = params.toString();
  return qs ? `${path}?${qs}` : path;
}

function head(title: string, context: string): SafeHtml {
  return html`<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} – ${context}</title>
<link rel="stylesheet" href="/portal/assets/portal.css">
<link rel="stylesheet" href="/portal/assets/question-types.css">
<script src="/portal/assets/portal.js" defer></script>
</head>`;
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
}

/**
 * At phone width the navigation's links fold behind a Menu button
 * (aria-expanded, aria-controls; portal.js shows it and Escape closes it);
 * without the script the links stay one row that scrolls sideways. Wider
 * screens show the links as a row and never the button.
 */
export function portalLayout(p: PortalLayoutInput): string {
  const who = p.principal.name ?? p.principal.email;
  // Only an operator's links carry an institution: staff of one always act on their own.
  const inst = p.principal.role === 'operator' ? (p.institutionId ?? null) : null;
  const place = p.principal.role === 'operator' ? (p.institutionName ? `Operator · ${p.institutionName}` : 'Operator') : (p.principal.institutionName ?? '');
  const items = NAV.filter((n) => can(p.principal, n.permission));
  const current = items.find((n) => n.key === p.current);
  return `<!doctype html>${html`<html lang="en">
${head(p.title, 'Assay portal')}
<body>
<a class="skip-link" href="#main">Skip to main content</a>
<header class="portal-header">
  <div class="bar">
    <p class="brand"><a href="${scopedHref('/portal', inst)}">Assay <span>portal</span></a></p>
    <p class="place">${place}</p>
    <div class="who">
      <a href="/portal/account" class="account-link"${p.current === 'account' ? html` aria-current="page"` : ''}>${who}<span class="role"> (${p.principal.role})</span></a>
      <form method="post" action="/portal/sign-out" class="sign-out">
        <input type="hidden" name="csrf" value="${p.principal.sessionCsrf}">
        <button type="submit" class="link-button">Sign out</button>
      </form>
    </div>
  </div>
  <nav class="main-nav" aria-label="Main">
    <button type="button" class="nav-toggle" aria-expanded="false" aria-controls="main-nav-list" hidden>Menu${
      current ? html`<span class="nav-current" aria-hidden="true">: ${current.label}</span>` : ''
    }</button>
    <ul id="main-nav-list">
      ${items.map(
        (n) =>
          html`<li><a href="${n.scoped ? scopedHref(n.path, inst) : n.path}"${n.key === p.current ? html` aria-current="page"` : ''}>${n.label}</a></li>`,
      )}
    </ul>
  </nav>
</header>
<main id="main" tabindex="-1">
${p.flash ? flashMessage(p.flash) : ''}
${p.main}
</main>
<footer class="portal-footer"><p>Assay institution portal · <a href="/docs">API reference</a></p></footer>
</body>
</html>`}`;
}

/** The frame of the signed-out pages (sign-in, link landing): no navigation. */
export function signedOutLayout(p: { title: string; main: SafeHtml }): string {
  return `<!doctype html>${html`<html lang="en">
${head(p.title, 'Assay portal')}
<body class="signed-out">
<a class="skip-link" href="#main">Skip to main content</a>
<header class="portal-header"><div class="bar"><p class="brand"><a href="/portal">Assay <span>portal</span></a></p></div></header>
<main id="main" tabindex="-1">
${p.main}
</main>
<footer class="portal-footer"><p>Assay institution portal</p></footer>
</body>
</html>`}`;
}
