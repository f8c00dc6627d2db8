import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../../platform/context.js';
import { notFound, type ErrorDetail } from '../../../platform/errors.js';
import { html, type SafeHtml } from '../../../platform/web/html.js';
import { createApiKey, listApiKeys, revokeApiKey, type ApiKeyRecord } from '../../institutions/api-keys.js';
import { ago, csrfField, dataTable, errorFor, errorSummary, hiddenFields, postButton, selectField, statusBadge, testBadge, textField, whenShort } from '../ui/components.js';
import {
  CsrfBody,
  FORM,
  Html,
  InstitutionQuery,
  Redirect,
  auditContext,
  flashFrom,
  formErrors,
  institutionPage,
  institutionScope,
  layoutFor,
  operatorField,
  pageRoute,
  redirect,
  sendHtml,
  type Scope,
} from '../ui/page.js';
import type { Translator } from '../../../platform/i18n/catalogue.js';
import { portalTranslator, richText } from '../ui/portal-text.js';

/**
 * API keys (admins and operators: manage_integration). A new key is shown
 * once, in the response to the form that created it (never in a URL or a
 * redirect), with a copy button; the list shows prefixes only.
 */
const KeyParams = Type.Object({ keyId: Type.String({ maxLength: 64 }) });

export const apiKeyPages: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  const title = portalTranslator().t('portal.nav.apiKeys');
  institutionPage(app, ctx, { path: '/api-keys', nav: 'api-keys', title, permission: 'manage_integration' }, (scope, flash) =>
    keysPage(ctx, scope, { flash }),
  );

  app.post(
    '/api-keys',
    {
      schema: {
        ...pageRoute,
        consumes: FORM,
        body: Type.Object({ ...CsrfBody, label: Type.Optional(Type.String({ maxLength: 1000 })), mode: Type.Optional(Type.String({ maxLength: 10 })) }),
        response: { 200: Html, 201: Html, 400: Html },
      },
    },
    async (request, reply) => {
      const scope = await institutionScope(ctx, request, 'manage_integration');
      if (!scope) throw notFound('institution');
      const label = (request.body.label ?? '').trim();
      const mode = request.body.mode ?? 'live';
      if (label.length > 200) {
        const errors = [{ field: 'label', message: scope.t.t('portal.apiKeys.error.label') }];
        return sendHtml(reply, await keysPage(ctx, scope, { errors, label }), 400);
      }
      if (mode !== 'live' && mode !== 'test') {
        return sendHtml(reply, await keysPage(ctx, scope, { errors: [{ field: 'mode', message: scope.t.t('portal.apiKeys.error.mode') }], label }), 400);
      }
      try {
        const created = await createApiKey(ctx.pool, scope.institutionId, label || null, auditContext(request), mode);
        reply.header('cache-control', 'no-store');
        return sendHtml(reply, await keysPage(ctx, scope, { created: { apiKey: created.apiKey, record: created.record } }), 201);
      } catch (err) {
        return sendHtml(reply, await keysPage(ctx, scope, { errors: formErrors(err, 'label'), label }), 400);
      }
    },
  );

  app.get(
    '/api-keys/:keyId/revoke',
    { schema: { ...pageRoute, params: KeyParams, querystring: Type.Object(InstitutionQuery), response: { 200: Html } } },
    async (request, reply) => {
      const scope = await institutionScope(ctx, request, 'manage_integration');
      if (!scope) throw notFound('institution');
      const key = (await listApiKeys(ctx.pool, scope.institutionId)).find((k) => k.keyId === request.params.keyId && !k.revokedAt);
      if (!key) throw notFound('API key');
      const { t } = scope;
      const now = ctx.clock.now();
      const which = key.label ? richText(t, 'portal.apiKeys.revoke.keyLabelled', { label: html`<strong>${key.label}</strong>` }) : t.t('portal.apiKeys.revoke.thisKey');
      const main = html`<h1>${t.t('portal.apiKeys.revoke.heading', { prefix: key.prefix })}</h1>
<p>${key.lastUsedAt
        ? richText(t, 'portal.apiKeys.revoke.usedKey', { key: which, created: ago(key.createdAt, now, t), used: ago(key.lastUsedAt, now, t) })
        : richText(t, 'portal.apiKeys.revoke.unusedKey', { key: which, created: ago(key.createdAt, now, t) })}</p>
<p>${t.t('portal.apiKeys.revoke.text')}</p>
<div class="actions">
${postButton({ action: `/portal/api-keys/${key.keyId}/revoke`, label: t.t('portal.apiKeys.revoke.button'), csrf: scope.p.sessionCsrf, variant: 'danger', fields: operatorField(scope) })}
<a href="${scope.link('/portal/api-keys')}" class="button">${t.t('portal.staff.remove.cancel')}</a>
</div>`;
      return sendHtml(reply, layoutFor(scope, { title: t.t('portal.apiKeys.revoke.title', { prefix: key.prefix }), current: 'api-keys', main }));
    },
  );

  app.post(
    '/api-keys/:keyId/revoke',
    { schema: { ...pageRoute, consumes: FORM, params: KeyParams, body: Type.Object(CsrfBody), response: { 303: Redirect } } },
    async (request, reply) => {
      const scope = await institutionScope(ctx, request, 'manage_integration');
      if (!scope) throw notFound('institution');
      const keyId = request.params.keyId;
      if (!(await revokeApiKey(ctx.pool, scope.institutionId, keyId, ctx.clock.now(), auditContext(request)))) throw notFound('API key');
      return redirect(reply, scope.link('/portal/api-keys', { done: 'key-revoked' }));
    },
  );
};

async function keysPage(
  ctx: AppContext,
  scope: Scope,
  opts: { flash?: ReturnType<typeof flashFrom>; errors?: ErrorDetail[]; label?: string; created?: { apiKey: string; record: ApiKeyRecord } },
): Promise<string> {
  const { t } = scope;
  const keys = await listApiKeys(ctx.pool, scope.institutionId);
  const now = ctx.clock.now();
  const active = keys.filter((k) => !k.revokedAt);
  const main = html`
${opts.created ? createdKey(t, opts.created.apiKey, opts.created.record) : ''}
<h1>${t.t('portal.nav.apiKeys')}</h1>
<p class="lede">${richText(t, 'portal.apiKeys.lede', { header: html`<code>Authorization: Bearer ak_live_…</code>` })}
${richText(t, 'portal.apiKeys.ledeTest', { test: html`<strong>${t.t('portal.apiKeys.ledeTestWord')}</strong>`, prefix: html`<code>ak_test_…</code>` })}</p>
${errorSummary(opts.errors, t)}
<form method="post" action="/portal/api-keys" class="panel" novalidate>
<h2>${t.t('portal.apiKeys.create.heading')}</h2>
${csrfField(scope.p.sessionCsrf)}${hiddenFields(operatorField(scope))}
${textField({ name: 'label', label: t.t('portal.apiKeys.label'), value: opts.label ?? '', hint: t.t('portal.apiKeys.create.labelHint'), error: errorFor(opts.errors, 'label'), maxlength: 200, t })}
${selectField({
  name: 'mode',
  label: t.t('portal.apiKeys.mode'),
  value: 'live',
  options: [
    { value: 'live', label: t.t('portal.apiKeys.create.modeLive') },
    { value: 'test', label: t.t('portal.apiKeys.create.modeTest') },
  ],
  hint: t.t('portal.apiKeys.create.modeHint'),
})}
<button type="submit" class="button primary">${t.t('portal.apiKeys.create.submit')}</button>
</form>
${dataTable({
  caption: t.t('portal.apiKeys.caption', { institution: scope.institutionName, active: String(active.length) }),
  stack: true,
  columns: [
    { label: t.t('portal.apiKeys.prefix') },
    { label: t.t('portal.apiKeys.label') },
    { label: t.t('portal.apiKeys.mode') },
    { label: t.t('portal.assignments.created') },
    { label: t.t('portal.apiKeys.lastUsed') },
    { label: t.t('portal.assignments.status') },
    { label: t.t('portal.marking.queue.action') },
  ],
  rows: keys.map((k) => [
    html`<code>${k.prefix}…</code>`,
    k.label ?? html`<span class="empty">${t.t('portal.apiKeys.noLabel')}</span>`,
    k.mode === 'test' ? testBadge(t) : t.t('portal.apiKeys.live'),
    whenShort(k.createdAt, t),
    k.lastUsedAt ? html`${whenShort(k.lastUsedAt, t)} <span class="hint">${t.t('portal.marking.queue.ago', { ago: ago(k.lastUsedAt, now, t) })}</span>` : t.t('portal.apiKeys.never'),
    statusBadge(k.revokedAt ? 'revoked' : 'active', t),
    k.revokedAt
      ? richText(t, 'portal.apiKeys.revokedAt', { when: whenShort(k.revokedAt, t) })
      : html`<a href="${scope.link(`/portal/api-keys/${k.keyId}/revoke`)}">${t.t('portal.apiKeys.revoke')}<span class="sr-only"> ${t.t('portal.apiKeys.revokeWhich', { prefix: k.prefix })}</span></a>`,
  ]),
  empty: t.t('portal.apiKeys.none'),
})}`;
  return layoutFor(scope, { title: t.t('portal.nav.apiKeys'), current: 'api-keys', main, flash: opts.flash ?? null });
}

function createdKey(t: Translator, apiKey: string, record: ApiKeyRecord): SafeHtml {
  const heading = record.label
    ? t.t('portal.apiKeys.created.headingLabelled', { mode: record.mode, label: record.label })
    : t.t('portal.apiKeys.created.heading', { mode: record.mode });
  return html`<section class="secret" aria-labelledby="new-key-title">
<h2 id="new-key-title">${heading}</h2>
<p>${richText(t, 'portal.apiKeys.created.text', { notAgain: html`<strong>${t.t('portal.webhooks.rotated.notAgain')}</strong>` })}</p>
<div class="secret-value">
<code id="new-key" tabindex="0" aria-label="${t.t('portal.apiKeys.created.label')}">${apiKey}</code>
<button type="button" class="button" data-copy="new-key" data-copy-status="copy-status" hidden>${t.t('portal.apiKeys.created.copy')}</button>
</div>
<p class="copy-status" id="copy-status" role="status"></p>
</section>`;
}
