import type { MessageKey, Translator } from '../../../platform/i18n/catalogue.js';
import { html, type SafeHtml } from '../../../platform/web/html.js';
import { csrfField, dataTable, flashMessage, textField, when, type Flash } from '../ui/components.js';
import { richText } from '../ui/portal-text.js';
import type { PasskeyView } from '../../staff/passkeys.js';
import type { StaffPrincipal } from '../../staff/principal.js';

/** The account page: who is signed in, what their role allows, and their passkeys. */

const ROLE_TEXT: Record<StaffPrincipal['role'], MessageKey> = {
  operator: 'portal.account.role.operator',
  admin: 'portal.account.role.admin',
  author: 'portal.account.role.author',
  reviewer: 'portal.account.role.reviewer',
  viewer: 'portal.account.role.viewer',
};

const FLASHES: Record<string, MessageKey> = {
  'passkey-added': 'portal.account.flash.passkeyAdded',
  'passkey-removed': 'portal.account.flash.passkeyRemoved',
};

export function accountFlash(done: string | undefined, t: Translator): Flash | null {
  const key = done && Object.hasOwn(FLASHES, done) ? FLASHES[done] : undefined;
  return key ? { kind: 'success', text: t.t(key) } : null;
}

export function accountMain(p: { principal: StaffPrincipal; passkeys: PasskeyView[]; flash: Flash | null; t: Translator }): SafeHtml {
  const { t } = p;
  const s = p.principal;
  return html`${p.flash ? flashMessage(p.flash) : ''}
<h1>${t.t('portal.account.title')}</h1>
<dl class="facts">
<dt>${t.t('portal.account.name')}</dt><dd>${s.name ?? t.t('portal.account.nameNotGiven')}</dd>
<dt>${t.t('portal.account.email')}</dt><dd>${s.email}</dd>
<dt>${t.t('portal.account.role')}</dt><dd>${t.t(ROLE_TEXT[s.role])}</dd>
${s.institutionName ? html`<dt>${t.t('portal.account.institution')}</dt><dd>${s.institutionName}</dd>` : ''}
</dl>
<p>${t.t('portal.account.sessionLimits')}</p>

<h2>${t.t('portal.account.passkeys')}</h2>
<p>${richText(t, 'portal.account.passkeysLede')}</p>
${dataTable({
  caption: t.t('portal.account.passkeysCaption'),
  captionHidden: true,
  columns: [{ label: t.t('portal.account.passkeyName') }, { label: t.t('portal.account.passkeyAdded') }, { label: t.t('portal.account.passkeyLastUsed') }, { label: t.t('portal.account.action') }],
  rows: p.passkeys.map((k) => [
    k.name,
    when(k.createdAt, t),
    when(k.lastUsedAt, t),
    // aria-label rather than hidden text: an absolutely placed sr-only span escapes the table's scrolling region on a phone.
    html`<form method="post" action="/portal/account/passkeys/${encodeURIComponent(k.credentialId)}/remove" class="inline-form">
${csrfField(s.sessionCsrf)}<button type="submit" class="button danger" aria-label="${t.t('portal.account.removePasskeyLabel', { name: k.name })}">${t.t('portal.account.remove')}</button>
</form>`,
  ]),
  empty: t.t('portal.account.noPasskeys'),
})}
<section class="passkey-add" aria-labelledby="add-passkey-heading" data-passkey-register data-csrf="${s.sessionCsrf}" hidden>
<h3 id="add-passkey-heading">${t.t('portal.account.addPasskey')}</h3>
<form data-passkey-form novalidate>
${textField({ name: 'passkey-name', label: t.t('portal.account.passkeyNameLabel'), hint: t.t('portal.account.passkeyNameHint'), maxlength: 100, value: '', t })}
<button type="submit" class="button primary">${t.t('portal.account.addPasskey')}</button>
</form>
<p role="status" class="passkey-status" data-passkey-status></p>
</section>
<p class="passkey-unsupported" data-passkey-unsupported>${t.t('portal.account.passkeyUnsupported')}</p>
<script src="/portal/assets/passkeys.js" defer></script>`;
}
