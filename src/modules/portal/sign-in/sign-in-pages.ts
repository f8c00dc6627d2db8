import { html, type SafeHtml } from '../../../platform/web/html.js';
import { csrfField, errorSummary, flashMessage, hiddenFields, textField } from '../ui/components.js';
import type { LinkState } from '../../staff/sign-in-links.js';

/** The signed-out pages: sign-in form, "check your email", the link's landing page and its refusals. */

/** The one answer to every sign-in request, whether or not the address has an account. */
export const CHECK_EMAIL_TEXT = "If that address has an account, we've emailed a sign-in link";

const passkeyScript = html`<script src="/portal/assets/passkeys.js" defer></script>`;

/**
 * Without ASSAY_SMTP_URL no mail leaves the machine: the mailer writes each
 * message to the server's log (development only). Said on the pages, so a
 * developer who signs in for the first time knows where the link went.
 */
function mailToLogNote(): SafeHtml {
  return html`<section class="notice" aria-labelledby="mail-log-heading">
<h2 id="mail-log-heading">Development: no email is sent</h2>
<p>This server has no outgoing mail (<code>ASSAY_SMTP_URL</code> is not set), so each sign-in link is written to the server's log instead: look in the terminal running <code>npm start</code>. Fine for development only; a production server sets <code>ASSAY_SMTP_URL</code>.</p>
</section>`;
}

export function signInMain(p: { csrf: string; next: string | null; email?: string; error?: string | null; signedOut?: boolean; mailToLog: boolean }): SafeHtml {
  const details = p.error ? [{ field: 'email', message: p.error }] : undefined;
  return html`${p.signedOut ? flashMessage({ kind: 'success', text: 'You have signed out.' }) : ''}
<h1>Sign in to the Assay portal</h1>
${errorSummary(details)}
<p>Enter the email address your institution invited. We'll email you a link that signs you in.</p>
${p.mailToLog ? mailToLogNote() : ''}
<form method="post" action="/portal/sign-in" novalidate>
${csrfField(p.csrf)}${hiddenFields({ next: p.next })}
${textField({ name: 'email', label: 'Email', type: 'email', autocomplete: 'email', required: true, value: p.email ?? '', error: p.error ?? null, maxlength: 254 })}
<button type="submit" class="button primary">Email me a sign-in link</button>
</form>
<section class="passkey-sign-in" aria-labelledby="passkey-heading" data-passkey-sign-in data-csrf="${p.csrf}" data-next="${p.next ?? ''}" hidden>
<h2 id="passkey-heading">Or use a passkey</h2>
<p>If you added a passkey to your account, you can sign in with it instead.</p>
<button type="button" class="button secondary" data-passkey-action="sign-in">Sign in with a passkey</button>
<p role="status" class="passkey-status" data-passkey-status></p>
</section>
${passkeyScript}`;
}

export function checkEmailMain(p: { mailToLog: boolean }): SafeHtml {
  return html`<h1>Check your email</h1>
<p role="status">${CHECK_EMAIL_TEXT}.</p>
${p.mailToLog ? mailToLogNote() : ''}
<p>Open the link on this device within 15 minutes. It works once.</p>
<p>Nothing arrived after a few minutes? Check your spam folder, check the address, or <a href="/portal/sign-in">ask for a new link</a>.</p>`;
}

export function linkLandingMain(p: { csrf: string; action: string }): SafeHtml {
  return html`<h1>Sign in to the Assay portal</h1>
<p>Press the button to sign in. The link then stops working, so keep this tab.</p>
<form method="post" action="${p.action}">
${csrfField(p.csrf)}
<button type="submit" class="button primary">Sign in</button>
</form>`;
}

export function linkRefusedPage(state: Exclude<LinkState, 'valid'>): { status: number; title: string; main: SafeHtml } {
  const newLink = html`<p><a class="button primary" href="/portal/sign-in">Request a new sign-in link</a></p>`;
  switch (state) {
    case 'used':
      return {
        status: 410,
        title: 'This sign-in link has already been used',
        main: html`<h1>This sign-in link has already been used</h1>
<p>Each sign-in link works once. If you are already signed in, <a href="/portal">go to the portal</a>. Otherwise request a new link with your email address.</p>
${newLink}`,
      };
    case 'expired':
      return {
        status: 410,
        title: 'This sign-in link has expired',
        main: html`<h1>This sign-in link has expired</h1>
<p>Sign-in links work for 15 minutes. Request a new link with your email address; it arrives in a minute or two.</p>
${newLink}`,
      };
    default:
      return {
        status: 404,
        title: 'This sign-in link is not valid',
        main: html`<h1>This sign-in link is not valid</h1>
<p>Check that you opened the whole link from the email (some mail programs break long links), or request a new link.</p>
${newLink}`,
      };
  }
}

export function rateLimitedMain(retryAfterSeconds: number): SafeHtml {
  const minutes = Math.max(1, Math.ceil(retryAfterSeconds / 60));
  return html`<h1>Too many sign-in attempts</h1>
<p role="alert">For your security, sign-in links for this address or network are limited. Wait ${minutes} minute${minutes === 1 ? '' : 's'}, then try again.</p>
<p>A link you already received still works until it expires: check your email.</p>
<p><a href="/portal/sign-in">Back to sign-in</a></p>`;
}
