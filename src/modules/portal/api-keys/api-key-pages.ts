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

/**
 * API keys (admins and operators: manage_integration). A new key is shown
 * once, in the response to the form that created it (never in a URL or a
 * redirect), with a copy button; the list shows prefixes only.
 */
const KeyParams = Type.Object({ keyId: Type.String({ maxLength: 64 }) });
const TITLE = 'API keys';

export const apiKeyPages: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  institutionPage(app, ctx, { path: '/api-keys', nav: 'api-keys', title: TITLE, permission: 'manage_integration' }, (scope, flash) =>
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
        const errors = [{ field: 'label', message: 'The label must be at most 200 characters.' }];
        return sendHtml(reply, await keysPage(ctx, scope, { errors, label }), 400);
      }
      if (mode !== 'live' && mode !== 'test') {
        return sendHtml(reply, await keysPage(ctx, scope, { errors: [{ field: 'mode', message: 'Choose live or test.' }], label }), 400);
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
      const main = html`<h1>Revoke API key ${key.prefix}…?</h1>
<p>${key.label ? html`The key labelled <strong>${key.label}</strong>` : 'This key'} was created ${ago(key.createdAt, ctx.clock.now())}${
        key.lastUsedAt ? html` and last used ${ago(key.lastUsedAt, ctx.clock.now())}` : ' and has never been used'
      }.</p>
<p>Every request made with it will be refused from the moment you revoke it. This cannot be undone: create a new key first if a system still needs one.</p>
<div class="actions">
${postButton({ action: `/portal/api-keys/${key.keyId}/revoke`, label: 'Revoke key', csrf: scope.p.sessionCsrf, variant: 'danger', fields: operatorField(scope) })}
<a href="${scope.link('/portal/api-keys')}" class="button">Cancel</a>
</div>`;
      return sendHtml(reply, layoutFor(scope, { title: `Revoke API key ${key.prefix}…`, current: 'api-keys', main }));
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
  const keys = await listApiKeys(ctx.pool, scope.institutionId);
  const now = ctx.clock.now();
  const active = keys.filter((k) => !k.revokedAt);
  const main = html`
${opts.created ? createdKey(opts.created.apiKey, opts.created.record) : ''}
<h1>API keys</h1>
<p class="lede">Your servers call the Assay partner API with these keys (<code>Authorization: Bearer ak_live_…</code>). Each key is shown once, when it is created; Assay stores only a hash. Keep several keys to rotate without downtime.
A <strong>test</strong> key (<code>ak_test_…</code>) works on separate test-mode data: assignments, events and webhook endpoints that live keys never see, and simulated student actions for development.</p>
${errorSummary(opts.errors)}
<form method="post" action="/portal/api-keys" class="panel" novalidate>
<h2>Create a key</h2>
${csrfField(scope.p.sessionCsrf)}${hiddenFields(operatorField(scope))}
${textField({ name: 'label', label: 'Label', value: opts.label ?? '', hint: 'What uses the key, for example "LMS production". Optional.', error: errorFor(opts.errors, 'label'), maxlength: 200 })}
${selectField({
  name: 'mode',
  label: 'Mode',
  value: 'live',
  options: [
    { value: 'live', label: 'Live (real students)' },
    { value: 'test', label: 'Test (sandbox data for development)' },
  ],
  hint: 'A test key sees only test-mode data and can simulate student actions.',
})}
<button type="submit" class="button primary">Create API key</button>
</form>
${dataTable({
  caption: html`Keys of ${scope.institutionName} (${active.length} active)`,
  stack: true,
  columns: [{ label: 'Prefix' }, { label: 'Label' }, { label: 'Mode' }, { label: 'Created' }, { label: 'Last used' }, { label: 'Status' }, { label: 'Action' }],
  rows: keys.map((k) => [
    html`<code>${k.prefix}…</code>`,
    k.label ?? html`<span class="empty">No label</span>`,
    k.mode === 'test' ? testBadge() : 'Live',
    whenShort(k.createdAt),
    k.lastUsedAt ? html`${whenShort(k.lastUsedAt)} <span class="hint">(${ago(k.lastUsedAt, now)})</span>` : 'Never',
    statusBadge(k.revokedAt ? 'revoked' : 'active'),
    k.revokedAt
      ? html`Revoked ${whenShort(k.revokedAt)}`
      : html`<a href="${scope.link(`/portal/api-keys/${k.keyId}/revoke`)}">Revoke<span class="sr-only"> key ${k.prefix}…</span></a>`,
  ]),
  empty: 'There are no API keys yet.',
})}`;
  return layoutFor(scope, { title: TITLE, current: 'api-keys', main, flash: opts.flash ?? null });
}

function createdKey(apiKey: string, record: ApiKeyRecord): SafeHtml {
  return html`<section class="secret" aria-labelledby="new-key-title">
<h2 id="new-key-title">Your new ${record.mode === 'test' ? 'test ' : ''}API key${record.label ? html` “${record.label}”` : ''}</h2>
<p>Copy it now and store it in your server's secret store. <strong>It will not be shown again.</strong></p>
<div class="secret-value">
<code id="new-key" tabindex="0" aria-label="The new API key">${apiKey}</code>
<button type="button" class="button" data-copy="new-key" data-copy-status="copy-status" hidden>Copy key</button>
</div>
<p class="copy-status" id="copy-status" role="status"></p>
</section>`;
}
