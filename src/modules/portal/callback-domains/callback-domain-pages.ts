import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../../platform/context.js';
import { notFound, type ErrorDetail } from '../../../platform/errors.js';
import { html } from '../../../platform/web/html.js';
import { addCallbackDomain, getCallbackDomains, removeCallbackDomain } from '../../institutions/institutions.js';
import { can } from '../../staff/principal.js';
import { csrfField, dataTable, errorFor, errorSummary, hiddenFields, postButton, textField, type Flash } from '../ui/components.js';
import {
  CsrfBody,
  FORM,
  Html,
  Redirect,
  audited,
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
import { portalTranslator, richText } from '../ui/portal-text.js';

/**
 * Callback domains: the hosts a partner's `callbackUrl` may point at
 * (docs/api-rules.md "Assignments"), with the operator API's validation rules
 * (normaliseDomain): a host name, or `*.host` for any subdomain of it.
 */

export const callbackDomainPages: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  const title = portalTranslator().t('portal.nav.callbackDomains');
  institutionPage(app, ctx, { path: '/callback-domains', nav: 'callback-domains', title, permission: 'read' }, (scope, flash) =>
    domainsPage(ctx, scope, { flash }),
  );

  app.post(
    '/callback-domains',
    { schema: { ...pageRoute, consumes: FORM, body: Type.Object({ ...CsrfBody, domain: Type.Optional(Type.String({ maxLength: 1000 })) }), response: { 303: Redirect, 400: Html } } },
    async (request, reply) => {
      const scope = await institutionScope(ctx, request, 'manage_integration');
      if (!scope) throw notFound('institution');
      const entry = (request.body.domain ?? '').trim();
      if (!entry) {
        const errors = [{ field: 'domain', message: scope.t.t('portal.domains.error.missing') }];
        return sendHtml(reply, await domainsPage(ctx, scope, { errors, value: entry }), 400);
      }
      try {
        await audited(
          ctx,
          request,
          (c) => addCallbackDomain(c.pool, scope.institutionId, entry),
          (domain) => ({ action: 'callback_domain.added', objectType: 'callback_domain', objectId: domain, institutionId: scope.institutionId }),
        );
      } catch (err) {
        return sendHtml(reply, await domainsPage(ctx, scope, { errors: formErrors(err, 'domain'), value: entry }), 400);
      }
      return redirect(reply, scope.link('/portal/callback-domains', { done: 'domain-added' }));
    },
  );

  app.post(
    '/callback-domains/remove',
    { schema: { ...pageRoute, consumes: FORM, body: Type.Object({ ...CsrfBody, domain: Type.String({ minLength: 1, maxLength: 300 }) }), response: { 303: Redirect } } },
    async (request, reply) => {
      const scope = await institutionScope(ctx, request, 'manage_integration');
      if (!scope) throw notFound('institution');
      const domain = request.body.domain;
      await audited(
        ctx,
        request,
        async (c) => {
          if (!(await removeCallbackDomain(c.pool, scope.institutionId, domain))) throw notFound('callback domain');
        },
        () => ({ action: 'callback_domain.removed', objectType: 'callback_domain', objectId: domain, institutionId: scope.institutionId }),
      );
      return redirect(reply, scope.link('/portal/callback-domains', { done: 'domain-removed' }));
    },
  );
};

async function domainsPage(ctx: AppContext, scope: Scope, opts: { flash?: Flash | null; errors?: ErrorDetail[]; value?: string }): Promise<string> {
  const domains = await getCallbackDomains(ctx.pool, scope.institutionId);
  const { t } = scope;
  const manage = can(scope.p, 'manage_integration');
  const code = (s: string) => html`<code>${s}</code>`;
  const main = html`<h1>${t.t('portal.nav.callbackDomains')}</h1>
<p class="lede">${richText(t, 'portal.domains.lede', { callbackUrl: code('callbackUrl'), exact: code('partner.example'), wildcard: code('*.partner.example'), https: code('https:') })}</p>
${errorSummary(opts.errors, t)}
${manage
  ? html`<form method="post" action="/portal/callback-domains" class="panel" novalidate>
<h2>${t.t('portal.domains.add.heading')}</h2>
${csrfField(scope.p.sessionCsrf)}${hiddenFields(operatorField(scope))}
${textField({ name: 'domain', label: t.t('portal.domains.domain'), value: opts.value ?? '', hint: t.t('portal.domains.add.hint'), error: errorFor(opts.errors, 'domain'), maxlength: 260, autocomplete: 'off', t })}
<button type="submit" class="button primary">${t.t('portal.domains.add.submit')}</button>
</form>`
  : ''}
${dataTable({
  caption: t.t('portal.domains.caption', { institution: scope.institutionName }),
  stack: true,
  columns: [
    { label: t.t('portal.domains.domain') },
    { label: t.t('portal.domains.allows') },
    ...(manage ? [{ label: t.t('portal.marking.queue.action') }] : []),
  ],
  rows: domains.map((d) => {
    const allows = d.startsWith('*.') ? t.t('portal.domains.anySubdomain', { domain: d.slice(2) }) : t.t('portal.domains.thisHostOnly');
    return manage
      ? [
          html`<code>${d}</code>`,
          allows,
          postButton({
            action: '/portal/callback-domains/remove',
            label: html`${t.t('portal.staff.removeLink')}<span class="sr-only"> ${d}</span>`,
            csrf: scope.p.sessionCsrf,
            fields: { domain: d, ...operatorField(scope) },
            variant: 'danger',
          }),
        ]
      : [html`<code>${d}</code>`, allows];
  }),
  empty: t.t('portal.domains.none'),
})}`;
  return layoutFor(scope, { title: t.t('portal.nav.callbackDomains'), current: 'callback-domains', main, flash: opts.flash ?? null });
}
