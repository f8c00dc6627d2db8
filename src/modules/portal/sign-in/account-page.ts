import { html, type SafeHtml } from '../../../platform/web/html.js';
import { csrfField, dataTable, flashMessage, textField, when, type Flash } from '../ui/components.js';
import type { PasskeyView } from '../../staff/passkeys.js';
import type { StaffPrincipal } from '../../staff/principal.js';

const ROLE_TEXT: Record<StaffPrincipal['role'], string> = {
  operator: 'Operator: runs the platform, every institution',
  admin: 'Admin: everything of your institution, including staff and the API integration',
  author: 'Author: writes and publishes your institution\'s own tests',
  reviewer: 'Reviewer: marking and proctoring review',
  viewer: 'Viewer: can read, cannot change anything',
};

const FLASHES: Record<string, Flash> = {
  'passkey-added': { kind: 'success', text: 'The passkey was added. You can now sign in with it.' },
  'passkey-removed': { kind: 'success', text: 'The passkey was removed.' },
};

export function accountFlash(done: string | undefined): Flash | null {
  return done ? (FLASHES[done] ?? null) : null;
}

export function accountMain(p: { principal: StaffPrincipal; passkeys: PasskeyView[]; flash: Flash | null }): SafeHtml {
  const s = p.principal;
  return html`${p.flash ? flashMessage(p.flash) : ''}
<h1>Your account</h1>
<dl class="facts">
<dt>Name</dt><dd>${s.name ?? 'Not given'}</dd>
<dt>Email</dt><dd>${s.email}</dd>
<dt>Role</dt><dd>${ROLE_TEXT[s.role]}</dd>
${s.institutionName ? html`<dt>Institution</dt><dd>${s.institutionName}</dd>` : ''}
</dl>
<p>For your security you are signed out after 30 minutes without activity, and 12 hours after signing in.</p>

<h2>Passkeys</h2>
<p>A passkey lets you sign in with this device's screen lock or a security key, without waiting for an email.</p>
${dataTable({
  caption: 'Your passkeys',
  captionHidden: true,
  columns: [{ label: 'Name' }, { label: 'Added' }, { label: 'Last used' }, { label: 'Action' }],
  rows: p.passkeys.map((k) => [
    k.name,
    when(k.createdAt),
    when(k.lastUsedAt),
    // aria-label rather than hidden text: an absolutely placed sr-only span escapes the table's scrolling region on a phone.
    html`<form method="post" action="/portal/account/passkeys/${encodeURIComponent(k.credentialId)}/remove" class="inline-form">
${csrfField(s.sessionCsrf)}<button type="submit" class="button danger" aria-label="Remove passkey ${k.name}">Remove</button>
</form>`,
  ]),
  empty: 'You have no passkeys yet.',
})}
<section class="passkey-add" aria-labelledby="add-passkey-heading" data-passkey-register data-csrf="${s.sessionCsrf}" hidden>
<h3 id="add-passkey-heading">Add a passkey</h3>
<form data-passkey-form novalidate>
${textField({ name: 'passkey-name', label: 'Passkey name', hint: 'So you can tell your passkeys apart, for example "Work laptop".', maxlength: 100, value: '' })}
<button type="submit" class="button primary">Add a passkey</button>
</form>
<p role="status" class="passkey-status" data-passkey-status></p>
</section>
<p class="passkey-unsupported" data-passkey-unsupported>Adding a passkey needs JavaScript and a browser that supports passkeys.</p>
<script src="/portal/assets/passkeys.js" defer></script>`;
}
