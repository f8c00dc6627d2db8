import type { ErrorDetail } from '../../../platform/errors.js';
import type { Translator } from '../../../platform/i18n/catalogue.js';
import { html, type SafeHtml } from '../../../platform/web/html.js';
import { portalTranslator, richText } from '../ui/portal-text.js';
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

function copyRow(t: Translator, id: string, label: string, hint: string, value: string): SafeHtml {
  return html`<div class="field">
<p class="tool-url-label" id="${id}-label"><strong>${label}</strong> <span class="hint">${hint}</span></p>
<div class="secret-value">
<code id="${id}" tabindex="0" aria-labelledby="${id}-label">${value}</code>
<button type="button" class="button" data-copy="${id}" data-copy-status="tool-copy-status" hidden>${t.t('portal.lti.copy')}<span class="sr-only"> ${label}</span></button>
</div>
</div>`;
}

/** Why an LMS could not use these URLs: not https, or a name or address only this machine (or its network) reaches; null when they look public. */
export function toolUrlProblem(loginUrl: string): 'insecure' | 'local' | null {
  let url: URL;
  try {
    url = new URL(loginUrl);
  } catch {
    return 'insecure';
  }
  const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  const local =
    host === 'localhost' ||
    host.endsWith('.localhost') ||
    host === '::1' ||
    host === '0.0.0.0' ||
    /^127\./.test(host) ||
    /^10\./.test(host) ||
    /^192\.168\./.test(host) ||
    /^172\.(1[6-9]|2\d|3[01])\./.test(host) ||
    /^169\.254\./.test(host) ||
    /^f[cd][0-9a-f]{2}:/.test(host) ||
    /^fe80:/.test(host);
  if (local) return 'local';
  return url.protocol === 'https:' ? null : 'insecure';
}

/**
 * A warning above the URLs when Assay's public URL (PUBLIC_BASE_URL) is not
 * one an LMS can use: LTI 1.3 platforms launch tools over https only, and
 * post to the tool from the user's browser and call it from their servers,
 * which cannot reach localhost or a private address.
 */
function toolUrlWarning(tool: ToolUrls, t: Translator): SafeHtml {
  const problem = toolUrlProblem(tool.loginUrl);
  if (!problem) return html``;
  const base = new URL(tool.loginUrl).origin;
  return html`<div class="notice" role="note" id="tool-url-warning">
<h3>${t.t('portal.lti.toolUrls.warningHeading')}</h3>
<p>${richText(t, problem === 'local' ? 'portal.lti.toolUrls.warningLocal' : 'portal.lti.toolUrls.warningInsecure', { base: html`<code>${base}</code>`, variable: html`<code>PUBLIC_BASE_URL</code>` })}</p>
</div>`;
}

export function toolUrlsPanel(tool: ToolUrls, t: Translator = portalTranslator()): SafeHtml {
  return html`<section class="panel" aria-labelledby="tool-urls-title">
<h2 id="tool-urls-title">${richText(t, 'portal.lti.toolUrls.heading')}</h2>
${toolUrlWarning(tool, t)}
<p>${t.t('portal.lti.toolUrls.text')}</p>
<ul class="lms-fields">${(['canvas', 'moodle', 'blackboard', 'brightspace'] as const).map((lms) => html`<li>${t.t(`portal.lti.toolUrls.fields.${lms}`)}</li>`)}</ul>
<p class="hint">${t.t('portal.lti.toolUrls.fieldsHint')}</p>
${copyRow(t, 'tool-login-url', t.t('portal.lti.toolUrls.login'), t.t('portal.lti.toolUrls.loginHint'), tool.loginUrl)}
${copyRow(t, 'tool-launch-url', t.t('portal.lti.toolUrls.launch'), t.t('portal.lti.toolUrls.launchHint'), tool.launchUrl)}
${copyRow(t, 'tool-jwks-url', t.t('portal.lti.toolUrls.jwks'), t.t('portal.lti.toolUrls.jwksHint'), tool.jwksUrl)}
${copyRow(t, 'tool-deep-linking-url', t.t('portal.lti.toolUrls.deepLinking'), t.t('portal.lti.toolUrls.deepLinkingHint'), tool.deepLinkingUrl)}
<p class="copy-status" id="tool-copy-status" role="status"></p>
</section>`;
}

function registrationPanel(scope: Scope, invite: { registrationUrl: string; expiresAt: Date } | null): SafeHtml {
  const { t } = scope;
  return html`<section class="panel" aria-labelledby="dynamic-registration-title">
<h2 id="dynamic-registration-title">${t.t('portal.lti.registration.heading')}</h2>
<p>${richText(t, 'portal.lti.registration.text')}</p>
${invite
  ? html`<div class="secret">
<p id="registration-url-label">${richText(t, 'portal.lti.registration.url', {
      label: html`<strong>${t.t('portal.lti.registration.urlLabel')}</strong>`,
      until: when(invite.expiresAt, t),
    })}</p>
<div class="secret-value">
<code id="registration-url" tabindex="0" aria-labelledby="registration-url-label">${invite.registrationUrl}</code>
<button type="button" class="button" data-copy="registration-url" data-copy-status="registration-copy-status" hidden>${t.t('portal.lti.copy')}<span class="sr-only"> ${t.t('portal.lti.registration.copyWhat')}</span></button>
</div>
<p class="copy-status" id="registration-copy-status" role="status"></p>
</div>`
  : postButton({ action: '/portal/lti/registration-url', label: t.t('portal.lti.registration.make'), csrf: scope.p.sessionCsrf, fields: operatorField(scope), variant: 'secondary' })}
</section>`;
}

function registerForm(scope: Scope, form: PlatformForm, errors: ErrorDetail[] | undefined): SafeHtml {
  const { t } = scope;
  const url = { maxlength: 2048, autocomplete: 'off', type: 'url', t } as const;
  return html`<form method="post" action="/portal/lti" class="panel" novalidate>
<h2>${t.t('portal.lti.register.heading')}</h2>
<p>${t.t('portal.lti.register.text')}</p>
${csrfField(scope.p.sessionCsrf)}${hiddenFields(operatorField(scope))}
${textField({ name: 'issuer', label: t.t('portal.lti.issuer'), value: form.issuer, hint: t.t('portal.lti.register.issuerHint'), error: errorFor(errors, 'issuer'), ...url })}
${textField({ name: 'clientId', label: t.t('portal.lti.clientId'), value: form.clientId, hint: t.t('portal.lti.register.clientIdHint'), error: errorFor(errors, 'clientId'), maxlength: 255, autocomplete: 'off', t })}
${textArea({ name: 'deploymentIds', label: t.t('portal.lti.deploymentIds'), value: form.deploymentIds, hint: t.t('portal.lti.register.deploymentIdsHint'), error: errorFor(errors, 'deploymentIds'), rows: 3, t })}
${textField({ name: 'authLoginUrl', label: t.t('portal.lti.authLoginUrl'), value: form.authLoginUrl, hint: t.t('portal.lti.register.authLoginUrlHint'), error: errorFor(errors, 'authLoginUrl'), ...url })}
${textField({ name: 'authTokenUrl', label: t.t('portal.lti.authTokenUrl'), value: form.authTokenUrl, hint: t.t('portal.lti.register.authTokenUrlHint'), error: errorFor(errors, 'authTokenUrl'), ...url })}
${textField({ name: 'jwksUrl', label: t.t('portal.lti.jwksUrl'), value: form.jwksUrl, hint: t.t('portal.lti.register.jwksUrlHint'), error: errorFor(errors, 'jwksUrl'), ...url })}
<button type="submit" class="button primary">${t.t('portal.lti.register.submit')}</button>
</form>`;
}

export function platformsPage(
  scope: Scope,
  p: { platforms: PlatformView[]; refused: Map<string, number>; tool: ToolUrls; flash?: Flash | null; errors?: ErrorDetail[]; form?: PlatformForm; invite?: { registrationUrl: string; expiresAt: Date } | null },
): string {
  const { t } = scope;
  const main = html`<h1>${t.t('portal.nav.lti')}</h1>
<p class="lede">${richText(t, 'portal.lti.lede', { institution: scope.institutionName })}</p>
${errorSummary(p.errors, t)}
${toolUrlsPanel(p.tool, t)}
${dataTable({
  caption: t.t('portal.lti.caption', { institution: scope.institutionName }),
  stack: true,
  columns: [
    { label: t.t('portal.lti.issuer') },
    { label: t.t('portal.lti.clientId') },
    { label: t.t('portal.lti.deployments') },
    { label: t.t('portal.lti.refusedGrades') },
    { label: t.t('portal.lti.registered') },
  ],
  rows: p.platforms.map((pl) => {
    const refused = p.refused.get(pl.ltiPlatformId) ?? 0;
    return [
      html`<a href="${scope.link(`/portal/lti/${pl.ltiPlatformId}`)}">${pl.issuer}</a>`,
      html`<code>${pl.clientId}</code>`,
      pl.deploymentIds.join(', '),
      refused === 0 ? t.t('portal.lti.refusedNone') : richText(t, 'portal.lti.refusedSome', { count: html`<strong>${String(refused)}</strong>` }),
      when(pl.createdAt, t),
    ];
  }),
  empty: t.t('portal.lti.none'),
})}
${registrationPanel(scope, p.invite ?? null)}
${registerForm(scope, p.form ?? EMPTY_FORM, p.errors)}`;
  return layoutFor(scope, { title: t.t('portal.nav.lti'), current: 'lti', main, flash: p.flash ?? null });
}

function refusedPanel(scope: Scope, refused: RefusedScore[]): SafeHtml {
  const { t } = scope;
  return html`<section class="panel" aria-labelledby="refused-title">
<h2 id="refused-title">${t.t('portal.lti.refused.heading')}</h2>
${refused.length === 0
  ? html`<p>${t.t('portal.lti.refused.none')}</p>`
  : html`<p>${t.t('portal.lti.refused.text')}</p>
<ul class="refused-scores">${refused.map(
      (r) =>
        html`<li>${richText(t, 'portal.lti.refused.entry', {
          assignment: html`<a href="${scope.link(`/portal/assignments/${r.assignmentId}`)}"><code>${r.assignmentId}</code></a>`,
          when: when(r.attemptedAt ?? r.createdAt, t),
          outcome: r.outcome,
        })}</li>`,
    )}</ul>`}
</section>`;
}

export function platformPage(scope: Scope, pl: PlatformView, p: { refused: RefusedScore[]; flash?: Flash | null; errors?: ErrorDetail[]; deploymentIds?: string }): string {
  const { t } = scope;
  const main = html`<nav class="breadcrumbs" aria-label="${t.t('portal.breadcrumb')}"><ol><li><a href="${scope.link('/portal/lti')}">${t.t('portal.nav.lti')}</a></li><li aria-current="page">${pl.issuer}</li></ol></nav>
<h1>${pl.issuer}</h1>
${errorSummary(p.errors, t)}
<dl class="facts">
<dt>${t.t('portal.lti.issuer')}</dt><dd><code>${pl.issuer}</code></dd>
<dt>${t.t('portal.lti.clientId')}</dt><dd><code>${pl.clientId}</code></dd>
<dt>${t.t('portal.lti.authLoginUrl')}</dt><dd><code>${pl.authLoginUrl}</code></dd>
<dt>${t.t('portal.lti.authTokenUrl')}</dt><dd><code>${pl.authTokenUrl}</code></dd>
<dt>${t.t('portal.lti.jwksUrl')}</dt><dd><code>${pl.jwksUrl}</code></dd>
<dt>${t.t('portal.lti.registered')}</dt><dd>${when(pl.createdAt, t)}</dd>
</dl>
${refusedPanel(scope, p.refused)}
<form method="post" action="/portal/lti/${pl.ltiPlatformId}/deployments" class="panel" novalidate>
<h2>${t.t('portal.lti.deployments')}</h2>
${csrfField(scope.p.sessionCsrf)}${hiddenFields(operatorField(scope))}
${textArea({
  name: 'deploymentIds',
  label: t.t('portal.lti.deploymentIds'),
  value: p.deploymentIds ?? pl.deploymentIds.join('\n'),
  hint: t.t('portal.lti.deploymentsHint'),
  error: errorFor(p.errors, 'deploymentIds'),
  rows: 4,
  t,
})}
<button type="submit" class="button primary">${t.t('portal.lti.saveDeployments')}</button>
</form>
${toolUrlsPanel(pl.tool, t)}
<section class="panel" aria-labelledby="remove-title">
<h2 id="remove-title">${t.t('portal.lti.remove.heading')}</h2>
<p id="remove-hint">${t.t('portal.lti.remove.text')}</p>
${postButton({ action: `/portal/lti/${pl.ltiPlatformId}/remove`, label: t.t('portal.lti.remove.button'), csrf: scope.p.sessionCsrf, fields: operatorField(scope), variant: 'danger', describedBy: 'remove-hint' })}
</section>`;
  return layoutFor(scope, { title: t.t('portal.lti.platformTitle', { issuer: pl.issuer }), current: 'lti', main, flash: p.flash ?? null });
}
