import type { ErrorDetail } from '../../../platform/errors.js';
import { html, type SafeHtml } from '../../../platform/web/html.js';
import type { PlatformView } from '../../lti/platforms.js';
import type { RefusedScore } from '../../lti/score-log.js';
import { csrfField, dataTable, errorFor, errorSummary, hiddenFields, postButton, textArea, textField, when, type Flash } from '../ui/components.js';
import { layoutFor, operatorField, type Scope } from '../ui/page.js';

/**
 * The LTI platforms page's markup: Assay's URLs to paste into the LMS (with
 * copy buttons), the one-time Dynamic Registration URL, the registered
 * platforms, the registration form, and one platform's page (its
 * deployments, edited in place, and its removal).
 */
export const TITLE = 'LTI platforms';

export type ToolUrls = PlatformView['tool'];

/** The form's fields, as typed (redisplayed after a refusal). */
export interface PlatformForm {
  issuer: string;
  clientId: string;
  deploymentIds: string;
  authLoginUrl: string;
  authTokenUrl: string;
  jwksUrl: string;
}

export const EMPTY_FORM: PlatformForm = { issuer: '', clientId: '', deploymentIds: '', authLoginUrl: '', authTokenUrl: '', jwksUrl: '' };

function copyRow(id: string, label: string, hint: string, value: string): SafeHtml {
  return html`<div class="field">
<p class="tool-url-label" id="${id}-label"><strong>${label}</strong> <span class="hint">${hint}</span></p>
<div class="secret-value">
<code id="${id}" tabindex="0" aria-labelledby="${id}-label">${value}</code>
<button type="button" class="button" data-copy="${id}" data-copy-status="tool-copy-status" hidden>Copy<span class="sr-only"> ${label}</span></button>
</div>
</div>`;
}

export function toolUrlsPanel(tool: ToolUrls): SafeHtml {
  return html`<section class="panel" aria-labelledby="tool-urls-title">
<h2 id="tool-urls-title">Assay's URLs for your LMS</h2>
<p>Enter these in the LMS when adding Assay as an LTI 1.3 tool. Each LMS names the fields a little differently: the LTI guide lists them for Canvas, Moodle, Blackboard and Brightspace.</p>
${copyRow('tool-login-url', 'Login URL', '(OIDC login initiation URL)', tool.loginUrl)}
${copyRow('tool-launch-url', 'Launch URL', '(target link URI and redirect URI)', tool.launchUrl)}
${copyRow('tool-jwks-url', 'Public key set URL', '(JWKS URL of the tool)', tool.jwksUrl)}
${copyRow('tool-deep-linking-url', 'Deep linking URL', '(content selection / link selection)', tool.deepLinkingUrl)}
<p class="copy-status" id="tool-copy-status" role="status"></p>
</section>`;
}

function registrationPanel(scope: Scope, invite: { registrationUrl: string; expiresAt: Date } | null): SafeHtml {
  return html`<section class="panel" aria-labelledby="dynamic-registration-title">
<h2 id="dynamic-registration-title">Register with a URL (Dynamic Registration)</h2>
<p>Canvas, Moodle and other platforms that offer LTI Dynamic Registration need only one URL: the LMS fetches Assay's configuration and registers itself. Each URL works once, for 7 days.</p>
${invite
  ? html`<div class="secret">
<p id="registration-url-label"><strong>Registration URL</strong> (valid until ${when(invite.expiresAt)}): paste it into the LMS's tool registration.</p>
<div class="secret-value">
<code id="registration-url" tabindex="0" aria-labelledby="registration-url-label">${invite.registrationUrl}</code>
<button type="button" class="button" data-copy="registration-url" data-copy-status="registration-copy-status" hidden>Copy<span class="sr-only"> registration URL</span></button>
</div>
<p class="copy-status" id="registration-copy-status" role="status"></p>
</div>`
  : postButton({ action: '/portal/lti/registration-url', label: 'Make a registration URL', csrf: scope.p.sessionCsrf, fields: operatorField(scope), variant: 'secondary' })}
</section>`;
}

function registerForm(scope: Scope, form: PlatformForm, errors: ErrorDetail[] | undefined): SafeHtml {
  return html`<form method="post" action="/portal/lti" class="panel" novalidate>
<h2>Register a platform by hand</h2>
<p>The LMS shows these values after you add Assay as a tool.</p>
${csrfField(scope.p.sessionCsrf)}${hiddenFields(operatorField(scope))}
${textField({ name: 'issuer', label: 'Issuer', value: form.issuer, hint: 'The platform ID, an https URL such as https://canvas.instructure.com.', error: errorFor(errors, 'issuer'), maxlength: 2048, autocomplete: 'off', type: 'url' })}
${textField({ name: 'clientId', label: 'Client ID', value: form.clientId, hint: 'The client id the LMS gave Assay.', error: errorFor(errors, 'clientId'), maxlength: 255, autocomplete: 'off' })}
${textArea({ name: 'deploymentIds', label: 'Deployment IDs', value: form.deploymentIds, hint: 'One per line. A launch from a deployment not listed here is refused.', error: errorFor(errors, 'deploymentIds'), rows: 3 })}
${textField({ name: 'authLoginUrl', label: 'Authentication request URL', value: form.authLoginUrl, hint: "The platform's OIDC authorisation endpoint.", error: errorFor(errors, 'authLoginUrl'), maxlength: 2048, autocomplete: 'off', type: 'url' })}
${textField({ name: 'authTokenUrl', label: 'Access token URL', value: form.authTokenUrl, hint: "The platform's OAuth2 token endpoint, for sending grades.", error: errorFor(errors, 'authTokenUrl'), maxlength: 2048, autocomplete: 'off', type: 'url' })}
${textField({ name: 'jwksUrl', label: 'Public keyset URL', value: form.jwksUrl, hint: "The platform's JWKS URL, against which every launch is verified.", error: errorFor(errors, 'jwksUrl'), maxlength: 2048, autocomplete: 'off', type: 'url' })}
<button type="submit" class="button primary">Register platform</button>
</form>`;
}

export function platformsPage(
  scope: Scope,
  p: { platforms: PlatformView[]; refused: Map<string, number>; tool: ToolUrls; flash?: Flash | null; errors?: ErrorDetail[]; form?: PlatformForm; invite?: { registrationUrl: string; expiresAt: Date } | null },
): string {
  const main = html`<h1>${TITLE}</h1>
<p class="lede">Learning platforms (Canvas, Moodle, Blackboard, Brightspace, Sakai) that launch students into ${scope.institutionName}'s tests with LTI 1.3, and receive their grades.</p>
${errorSummary(p.errors)}
${toolUrlsPanel(p.tool)}
${dataTable({
  caption: html`Registered platforms of ${scope.institutionName}`,
  stack: true,
  columns: [{ label: 'Issuer' }, { label: 'Client ID' }, { label: 'Deployments' }, { label: 'Refused grades' }, { label: 'Registered' }],
  rows: p.platforms.map((pl) => {
    const refused = p.refused.get(pl.ltiPlatformId) ?? 0;
    return [
      html`<a href="${scope.link(`/portal/lti/${pl.ltiPlatformId}`)}">${pl.issuer}</a>`,
      html`<code>${pl.clientId}</code>`,
      pl.deploymentIds.join(', '),
      refused === 0 ? 'None in 30 days' : html`<strong>${String(refused)}</strong> in 30 days: see the platform's page`,
      when(pl.createdAt),
    ];
  }),
  empty: 'No learning platform is registered yet: use a registration URL or the form below.',
})}
${registrationPanel(scope, p.invite ?? null)}
${registerForm(scope, p.form ?? EMPTY_FORM, p.errors)}`;
  return layoutFor(scope, { title: TITLE, current: 'lti', main, flash: p.flash ?? null });
}

function refusedPanel(scope: Scope, refused: RefusedScore[]): SafeHtml {
  return html`<section class="panel" aria-labelledby="refused-title">
<h2 id="refused-title">Grades the LMS did not accept (last 30 days)</h2>
${refused.length === 0
  ? html`<p>None: every grade sent to this platform was accepted or is still being sent.</p>`
  : html`<p>The LMS refused these grades, or did not accept them after every retry. The reason, from its answer:</p>
<ul class="refused-scores">${refused.map(
      (r) => html`<li><a href="${scope.link(`/portal/assignments/${r.assignmentId}`)}"><code>${r.assignmentId}</code></a>, ${when(r.attemptedAt ?? r.createdAt)}: ${r.outcome}</li>`,
    )}</ul>`}
</section>`;
}

export function platformPage(scope: Scope, pl: PlatformView, p: { refused: RefusedScore[]; flash?: Flash | null; errors?: ErrorDetail[]; deploymentIds?: string }): string {
  const main = html`<nav class="breadcrumbs" aria-label="Breadcrumb"><ol><li><a href="${scope.link('/portal/lti')}">LTI platforms</a></li><li aria-current="page">${pl.issuer}</li></ol></nav>
<h1>${pl.issuer}</h1>
${errorSummary(p.errors)}
<dl class="facts">
<dt>Issuer</dt><dd><code>${pl.issuer}</code></dd>
<dt>Client ID</dt><dd><code>${pl.clientId}</code></dd>
<dt>Authentication request URL</dt><dd><code>${pl.authLoginUrl}</code></dd>
<dt>Access token URL</dt><dd><code>${pl.authTokenUrl}</code></dd>
<dt>Public keyset URL</dt><dd><code>${pl.jwksUrl}</code></dd>
<dt>Registered</dt><dd>${when(pl.createdAt)}</dd>
</dl>
${refusedPanel(scope, p.refused)}
<form method="post" action="/portal/lti/${pl.ltiPlatformId}/deployments" class="panel" novalidate>
<h2>Deployments</h2>
${csrfField(scope.p.sessionCsrf)}${hiddenFields(operatorField(scope))}
${textArea({ name: 'deploymentIds', label: 'Deployment IDs', value: p.deploymentIds ?? pl.deploymentIds.join('\n'), hint: 'One per line. Launches from a deployment not listed are refused.', error: errorFor(p.errors, 'deploymentIds'), rows: 4 })}
<button type="submit" class="button primary">Save deployments</button>
</form>
${toolUrlsPanel(pl.tool)}
<section class="panel" aria-labelledby="remove-title">
<h2 id="remove-title">Remove this platform</h2>
<p id="remove-hint">Its launches are refused from now on. Assignments it made and their results stay.</p>
${postButton({ action: `/portal/lti/${pl.ltiPlatformId}/remove`, label: 'Remove platform', csrf: scope.p.sessionCsrf, fields: operatorField(scope), variant: 'danger', describedBy: 'remove-hint' })}
</section>`;
  return layoutFor(scope, { title: `${TITLE}: ${pl.issuer}`, current: 'lti', main, flash: p.flash ?? null });
}
