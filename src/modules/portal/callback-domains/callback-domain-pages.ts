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

/**
 * Callback domains: the hosts a partner's `callbackUrl` may point at
 * (docs/api-rules.md "Assignments"), with the operator API's validation rules
 * (normaliseDomain): a host name, or `*.host` for any subdomain of it.
 */
const TITLE = 'Callback domains';

export const callbackDomainPages: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  institutionPage(app, ctx, { path: '/callback-domains', nav: 'callback-domains', title: TITLE, permission: 'read' }, (scope, flash) =>
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
        const errors = [{ field: 'domain', message: 'Enter a domain, for example partner.example or *.partner.example.' }];
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
  const manage = can(scope.p, 'manage_integration');
  const main = html`<h1>Callback domains</h1>
<p class="lede">When a student finishes, Assay sends them back to the assignment's <code>callbackUrl</code>. Its host must be one of these domains: <code>partner.example</code> allows exactly that host; <code>*.partner.example</code> allows any subdomain of it (not partner.example itself). Only <code>https:</code> URLs are accepted.</p>
${errorSummary(opts.errors)}
${manage
  ? html`<form method="post" action="/portal/callback-domains" class="panel" novalidate>
<h2>Add a domain</h2>
${csrfField(scope.p.sessionCsrf)}${hiddenFields(operatorField(scope))}
${textField({ name: 'domain', label: 'Domain', value: opts.value ?? '', hint: 'A host name such as lms.partner.example, or *.partner.example for every subdomain.', error: errorFor(opts.errors, 'domain'), maxlength: 260, autocomplete: 'off' })}
<button type="submit" class="button primary">Add domain</button>
</form>`
  : ''}
${dataTable({
  caption: html`Allowed callback domains of ${scope.institutionName}`,
  stack: true,
  columns: manage ? [{ label: 'Domain' }, { label: 'Allows' }, { label: 'Action' }] : [{ label: 'Domain' }, { label: 'Allows' }],
  rows: domains.map((d) => {
    const allows = d.startsWith('*.') ? `any subdomain of ${d.slice(2)}` : 'this host only';
    return manage
      ? [html`<code>${d}</code>`, allows, postButton({ action: '/portal/callback-domains/remove', label: html`Remove<span class="sr-only"> ${d}</span>`, csrf: scope.p.sessionCsrf, fields: { domain: d, ...operatorField(scope) }, variant: 'danger' })]
      : [html`<code>${d}</code>`, allows];
  }),
  empty: 'No callback domains yet: assignments cannot be created until one is added.',
})}`;
  return layoutFor(scope, { title: TITLE, current: 'callback-domains', main, flash: opts.flash ?? null });
}
