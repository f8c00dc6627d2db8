import type { Translator } from '../../../platform/i18n/catalogue.js';
import { html, type SafeHtml } from '../../../platform/web/html.js';
import { csrfField, errorSummary, flashMessage, hiddenFields, textField } from '../ui/components.js';
import { richText } from '../ui/portal-text.js';
import type { LinkState } from '../../staff/sign-in-links.js';

/** The signed-out pages: sign-in form, "check your email", the link's landing page and its refusals. */

const passkeyScript = html`<script src="/portal/assets/passkeys.js" defer></script>`;

/**
 * Without ASSAY_SMTP_URL no mail leaves the machine: the mailer writes each
 * message to the server's log (development only). Said on the pages, so a
 * developer who signs in for the first time knows where the link went.
 */
function mailToLogNote(t: Translator): SafeHtml {
  return html`<section class="notice" aria-labelledby="mail-log-heading">
<h2 id="mail-log-heading">${t.t('portal.signIn.mailToLog.heading')}</h2>
<p>${richText(t, 'portal.signIn.mailToLog.text', { setting: html`<code>ASSAY_SMTP_URL</code>`, command: html`<code>npm start</code>` })}</p>
</section>`;
}

export function signInMain(p: { csrf: string; next: string | null; email?: string; error?: string | null; signedOut?: boolean; mailToLog: boolean; t: Translator }): SafeHtml {
  const { t } = p;
  const details = p.error ? [{ field: 'email', message: p.error }] : undefined;
  return html`${p.signedOut ? flashMessage({ kind: 'success', text: t.t('portal.signIn.signedOut') }) : ''}
<h1>${t.t('portal.signIn.heading')}</h1>
${errorSummary(details, t)}
<p>${richText(t, 'portal.signIn.lede')}</p>
${p.mailToLog ? mailToLogNote(t) : ''}
<form method="post" action="/portal/sign-in" novalidate>
${csrfField(p.csrf)}${hiddenFields({ next: p.next })}
${textField({ name: 'email', label: t.t('portal.signIn.email'), type: 'email', autocomplete: 'email', required: true, value: p.email ?? '', error: p.error ?? null, maxlength: 254, t })}
<button type="submit" class="button primary">${t.t('portal.signIn.emailMeALink')}</button>
</form>
<section class="passkey-sign-in" aria-labelledby="passkey-heading" data-passkey-sign-in data-csrf="${p.csrf}" data-next="${p.next ?? ''}" hidden>
<h2 id="passkey-heading">${t.t('portal.signIn.passkey.heading')}</h2>
<p>${t.t('portal.signIn.passkey.text')}</p>
<button type="button" class="button secondary" data-passkey-action="sign-in">${t.t('portal.signIn.passkey.button')}</button>
<p role="status" class="passkey-status" data-passkey-status></p>
</section>
${passkeyScript}`;
}

/** The one answer to every sign-in request, whether or not the address has an account. */
export function checkEmailMain(p: { mailToLog: boolean; t: Translator }): SafeHtml {
  const { t } = p;
  return html`<h1>${t.t('portal.checkEmail.heading')}</h1>
<p role="status">${t.t('portal.checkEmail.sent')}</p>
${p.mailToLog ? mailToLogNote(t) : ''}
<p>${t.t('portal.checkEmail.openSoon')}</p>
<p>${richText(t, 'portal.checkEmail.nothingArrived', { newLink: html`<a href="/portal/sign-in">${t.t('portal.checkEmail.newLink')}</a>` })}</p>`;
}

export function linkLandingMain(p: { csrf: string; action: string; t: Translator }): SafeHtml {
  const { t } = p;
  return html`<h1>${t.t('portal.signIn.heading')}</h1>
<p>${t.t('portal.linkLanding.text')}</p>
<form method="post" action="${p.action}">
${csrfField(p.csrf)}
<button type="submit" class="button primary">${t.t('portal.linkLanding.button')}</button>
</form>`;
}

export function linkRefusedPage(state: Exclude<LinkState, 'valid'>, t: Translator): { status: number; title: string; main: SafeHtml; t: Translator } {
  const newLink = html`<p><a class="button primary" href="/portal/sign-in">${t.t('portal.linkRefused.newLink')}</a></p>`;
  switch (state) {
    case 'used':
      return {
        status: 410,
        title: t.t('portal.linkRefused.used.title'),
        main: html`<h1>${t.t('portal.linkRefused.used.title')}</h1>
<p>${richText(t, 'portal.linkRefused.used.text', { portalLink: html`<a href="/portal">${t.t('portal.linkRefused.used.portalLink')}</a>` })}</p>
${newLink}`,
        t,
      };
    case 'expired':
      return {
        status: 410,
        title: t.t('portal.linkRefused.expired.title'),
        main: html`<h1>${t.t('portal.linkRefused.expired.title')}</h1>
<p>${t.t('portal.linkRefused.expired.text')}</p>
${newLink}`,
        t,
      };
    default:
      return {
        status: 404,
        title: t.t('portal.linkRefused.invalid.title'),
        main: html`<h1>${t.t('portal.linkRefused.invalid.title')}</h1>
<p>${t.t('portal.linkRefused.invalid.text')}</p>
${newLink}`,
        t,
      };
  }
}

export function rateLimitedMain(retryAfterSeconds: number, t: Translator): SafeHtml {
  const minutes = Math.max(1, Math.ceil(retryAfterSeconds / 60));
  return html`<h1>${t.t('portal.signInLimited.title')}</h1>
<p role="alert">${t.t('portal.signInLimited.text', { minutes })}</p>
<p>${t.t('portal.signInLimited.linkStillWorks')}</p>
<p><a href="/portal/sign-in">${t.t('portal.signInLimited.back')}</a></p>`;
}
