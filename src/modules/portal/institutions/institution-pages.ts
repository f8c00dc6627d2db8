import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../../platform/context.js';
import { notFound, type ErrorDetail } from '../../../platform/errors.js';
import { html } from '../../../platform/web/html.js';
import { createInstitution, getInstitution, listInstitutions, setInstitutionStatus } from '../../institutions/institutions.js';
import { INSTITUTION_STATUSES } from '../../institutions/institution-status.js';
import { requirePermission, type StaffPrincipal } from '../../staff/principal.js';
import { listStaff } from '../../staff/staff-service.js';
import { csrfField, dataTable, errorFor, errorSummary, pager, postButton, statusBadge, textArea, textField, when, whenShort, type Flash } from '../ui/components.js';
import { portalLayout, scopedHref } from '../ui/layout.js';
import { CsrfBody, DoneQuery, FORM, Html, Redirect, auditContext, flashFrom, formErrors, pageRoute, redirect, sendHtml } from '../ui/page.js';
import type { Translator } from '../../../platform/i18n/catalogue.js';
import { portalTranslator, richText } from '../ui/portal-text.js';

/** Institutions (operators only): list, create, suspend and reactivate, and each one's staff and pages. */
const PAGE_SIZE = 50;
const Params = Type.Object({ institutionId: Type.String({ maxLength: 64 }) });

export const institutionPages: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  // Operators' pages: English until staff can choose their language.
  const t = portalTranslator();
  app.get(
    '/institutions',
    { schema: { ...pageRoute, querystring: Type.Object({ ...DoneQuery, page: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000 })) }), response: { 200: Html } } },
    async (request, reply) => {
      const p = requirePermission(request, 'operate');
      return sendHtml(reply, await listPage(ctx, p, { page: request.query.page ?? 1, flash: flashFrom(request, t), t }));
    },
  );

  app.post(
    '/institutions',
    {
      schema: {
        ...pageRoute,
        consumes: FORM,
        body: Type.Object({ ...CsrfBody, name: Type.Optional(Type.String({ maxLength: 1000 })), domains: Type.Optional(Type.String({ maxLength: 30_000 })) }),
        response: { 303: Redirect, 400: Html },
      },
    },
    async (request, reply) => {
      const p = requirePermission(request, 'operate');
      const form = { name: (request.body.name ?? '').trim(), domains: request.body.domains ?? '' };
      const entries = form.domains.split(/[\s,]+/).filter(Boolean);
      const errors: ErrorDetail[] = [];
      if (!form.name) errors.push({ field: 'name', message: t.t('portal.institutions.error.nameMissing') });
      if (form.name.length > 200) errors.push({ field: 'name', message: t.t('portal.staff.error.nameTooLong') });
      if (entries.length > 100) errors.push({ field: 'domains', message: t.t('portal.institutions.error.tooManyDomains') });
      if (errors.length === 0) {
        try {
          const created = await createInstitution(ctx.pool, { name: form.name, callbackDomains: entries }, auditContext(request));
          return redirect(reply, `/portal/institutions/${created.institutionId}?done=institution-created`);
        } catch (err) {
          errors.push(...formErrors(err, 'domains').map((d) => ({ field: d.field.startsWith('callbackDomains') ? 'domains' : d.field, message: d.message })));
        }
      }
      return sendHtml(reply, await listPage(ctx, p, { page: 1, errors, form, t }), 400);
    },
  );

  app.get('/institutions/:institutionId', { schema: { ...pageRoute, params: Params, querystring: Type.Object(DoneQuery), response: { 200: Html } } }, async (request, reply) => {
    const p = requirePermission(request, 'operate');
    const inst = await getInstitution(ctx.pool, request.params.institutionId);
    if (!inst) throw notFound('institution');
    const staff = await listStaff(ctx.pool, inst.institutionId);
    const on = (path: string) => scopedHref(path, inst.institutionId);
    const main = html`<nav class="breadcrumbs" aria-label="${t.t('portal.breadcrumb')}"><ol><li><a href="/portal/institutions">${t.t('portal.nav.institutions')}</a></li><li aria-current="page">${inst.name}</li></ol></nav>
<div class="page-head"><h1>${inst.name}</h1><p>${statusBadge(inst.status, t)}</p></div>
<dl class="facts">
<dt>${t.t('portal.institutions.id')}</dt><dd><code>${inst.institutionId}</code></dd>
<dt>${t.t('portal.assignments.created')}</dt><dd>${when(inst.createdAt, t)}</dd>
<dt>${t.t('portal.nav.callbackDomains')}</dt><dd>${inst.callbackDomains.length > 0 ? inst.callbackDomains.join(', ') : t.t('portal.institutions.noDomains')}</dd>
</dl>
<div class="actions panel">
${inst.status === 'active'
  ? postButton({ action: `/portal/institutions/${inst.institutionId}/status`, label: t.t('portal.institutions.suspend'), csrf: p.sessionCsrf, variant: 'danger', fields: { status: 'suspended' } })
  : postButton({ action: `/portal/institutions/${inst.institutionId}/status`, label: t.t('portal.institutions.reactivate'), csrf: p.sessionCsrf, variant: 'primary', fields: { status: 'active' } })}
<p class="hint">${richText(t, 'portal.institutions.suspendHint')}</p>
</div>
<h2>${t.t('portal.institutions.workOn')}</h2>
<ul>
<li><a href="${on('/portal')}">${t.t('portal.nav.overview')}</a></li>
<li><a href="${on('/portal/assignments')}">${t.t('portal.nav.assignments')}</a></li>
<li><a href="${on('/portal/marking')}">${t.t('portal.nav.marking')}</a></li>
<li><a href="${on('/portal/api-keys')}">${t.t('portal.nav.apiKeys')}</a></li>
<li><a href="${on('/portal/callback-domains')}">${t.t('portal.nav.callbackDomains')}</a></li>
<li><a href="${on('/portal/webhooks')}">${t.t('portal.nav.webhooks')}</a></li>
<li><a href="${on('/portal/audit')}">${t.t('portal.nav.audit')}</a></li>
</ul>
${dataTable({
  caption: t.t('portal.institutions.staffOf', { institution: inst.name }),
  stack: true,
  columns: [{ label: t.t('portal.staff.email') }, { label: t.t('portal.staff.name') }, { label: t.t('portal.staff.role') }, { label: t.t('portal.staff.lastSignIn') }],
  rows: staff.map((s) => [s.email, s.name ?? '–', s.role, s.lastSignInAt ? whenShort(s.lastSignInAt, t) : t.t('portal.staff.notYet')]),
  empty: t.t('portal.institutions.noStaff'),
})}
<p><a href="${on('/portal/staff')}" class="button">${t.t('portal.institutions.manageStaff')}</a></p>`;
    return sendHtml(reply, portalLayout({ title: inst.name, principal: p, current: 'institutions', main, flash: flashFrom(request, t), t }));
  });

  app.post(
    '/institutions/:institutionId/status',
    {
      schema: {
        ...pageRoute,
        consumes: FORM,
        params: Params,
        body: Type.Object({ ...CsrfBody, status: Type.Union(INSTITUTION_STATUSES.map((s) => Type.Literal(s))) }),
        response: { 303: Redirect },
      },
    },
    async (request, reply) => {
      requirePermission(request, 'operate');
      const { institutionId } = request.params;
      const status = request.body.status;
      if (!(await setInstitutionStatus(ctx.pool, institutionId, status, auditContext(request)))) throw notFound('institution');
      return redirect(reply, `/portal/institutions/${institutionId}?done=${status === 'active' ? 'institution-reactivated' : 'institution-suspended'}`);
    },
  );
};

async function listPage(
  ctx: AppContext,
  p: StaffPrincipal,
  opts: { page: number; flash?: Flash | null; errors?: ErrorDetail[]; form?: { name: string; domains: string }; t: Translator },
): Promise<string> {
  const { t } = opts;
  const { data, total } = await listInstitutions(ctx.pool, { limit: PAGE_SIZE, offset: (opts.page - 1) * PAGE_SIZE });
  const main = html`<h1>${t.t('portal.nav.institutions')}</h1>
<p class="lede">${t.t('portal.institutions.lede', { total: String(total) })}</p>
${errorSummary(opts.errors, t)}
${dataTable({
  caption: t.t('portal.institutions.caption'),
  stack: true,
  columns: [{ label: t.t('portal.staff.name') }, { label: t.t('portal.assignments.status') }, { label: t.t('portal.nav.callbackDomains') }, { label: t.t('portal.assignments.created') }],
  rows: data.map((i) => [html`<a href="/portal/institutions/${i.institutionId}">${i.name}</a>`, statusBadge(i.status, t), i.callbackDomains.join(', ') || '–', whenShort(i.createdAt, t)]),
  empty: t.t('portal.institutions.none'),
})}
${pager({
  label: t.t('portal.institutions.pages'),
  newerHref: opts.page > 1 ? `/portal/institutions?page=${opts.page - 1}` : null,
  newerText: t.t('portal.pager.previous'),
  olderHref: opts.page * PAGE_SIZE < total ? `/portal/institutions?page=${opts.page + 1}` : null,
  olderText: t.t('portal.pager.next'),
  t,
})}
<form method="post" action="/portal/institutions" class="panel" novalidate>
<h2>${t.t('portal.institutions.create.heading')}</h2>
${csrfField(p.sessionCsrf)}
${textField({ name: 'name', label: t.t('portal.staff.name'), value: opts.form?.name ?? '', error: errorFor(opts.errors, 'name'), maxlength: 200, t })}
${textArea({
  name: 'domains',
  label: t.t('portal.nav.callbackDomains'),
  value: opts.form?.domains ?? '',
  hint: t.t('portal.institutions.create.domainsHint'),
  error: errorFor(opts.errors, 'domains'),
  rows: 3,
  t,
})}
<button type="submit" class="button primary">${t.t('portal.institutions.create.submit')}</button>
</form>`;
  return portalLayout({ title: t.t('portal.nav.institutions'), principal: p, current: 'institutions', main, flash: opts.flash ?? null, t });
}
