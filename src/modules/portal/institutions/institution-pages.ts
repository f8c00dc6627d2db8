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

/** Institutions (operators only): list, create, suspend and reactivate, and each one's staff and pages. */
const PAGE_SIZE = 50;
const Params = Type.Object({ institutionId: Type.String({ maxLength: 64 }) });

export const institutionPages: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.get(
    '/institutions',
    { schema: { ...pageRoute, querystring: Type.Object({ ...DoneQuery, page: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000 })) }), response: { 200: Html } } },
    async (request, reply) => {
      const p = requirePermission(request, 'operate');
      return sendHtml(reply, await listPage(ctx, p, { page: request.query.page ?? 1, flash: flashFrom(request) }));
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
      if (!form.name) errors.push({ field: 'name', message: 'Enter the institution’s name.' });
      if (form.name.length > 200) errors.push({ field: 'name', message: 'The name must be at most 200 characters.' });
      if (entries.length > 100) errors.push({ field: 'domains', message: 'At most 100 callback domains.' });
      if (errors.length === 0) {
        try {
          const created = await createInstitution(ctx.pool, { name: form.name, callbackDomains: entries }, auditContext(request));
          return redirect(reply, `/portal/institutions/${created.institutionId}?done=institution-created`);
        } catch (err) {
          errors.push(...formErrors(err, 'domains').map((d) => ({ field: d.field.startsWith('callbackDomains') ? 'domains' : d.field, message: d.message })));
        }
      }
      return sendHtml(reply, await listPage(ctx, p, { page: 1, errors, form }), 400);
    },
  );

  app.get('/institutions/:institutionId', { schema: { ...pageRoute, params: Params, querystring: Type.Object(DoneQuery), response: { 200: Html } } }, async (request, reply) => {
    const p = requirePermission(request, 'operate');
    const inst = await getInstitution(ctx.pool, request.params.institutionId);
    if (!inst) throw notFound('institution');
    const staff = await listStaff(ctx.pool, inst.institutionId);
    const on = (path: string) => scopedHref(path, inst.institutionId);
    const main = html`<nav class="breadcrumbs" aria-label="Breadcrumb"><ol><li><a href="/portal/institutions">Institutions</a></li><li aria-current="page">${inst.name}</li></ol></nav>
<div class="page-head"><h1>${inst.name}</h1><p>${statusBadge(inst.status)}</p></div>
<dl class="facts">
<dt>Institution id</dt><dd><code>${inst.institutionId}</code></dd>
<dt>Created</dt><dd>${when(inst.createdAt)}</dd>
<dt>Callback domains</dt><dd>${inst.callbackDomains.length > 0 ? inst.callbackDomains.join(', ') : 'None'}</dd>
</dl>
<div class="actions panel">
${inst.status === 'active'
  ? postButton({ action: `/portal/institutions/${inst.institutionId}/status`, label: 'Suspend institution', csrf: p.sessionCsrf, variant: 'danger', fields: { status: 'suspended' } })
  : postButton({ action: `/portal/institutions/${inst.institutionId}/status`, label: 'Reactivate institution', csrf: p.sessionCsrf, variant: 'primary', fields: { status: 'active' } })}
<p class="hint">A suspended institution's API keys are refused (403) until it is reactivated; its portal stays readable.</p>
</div>
<h2>Work on this institution</h2>
<ul>
<li><a href="${on('/portal')}">Overview</a></li>
<li><a href="${on('/portal/assignments')}">Assignments</a></li>
<li><a href="${on('/portal/marking')}">Marking</a></li>
<li><a href="${on('/portal/api-keys')}">API keys</a></li>
<li><a href="${on('/portal/callback-domains')}">Callback domains</a></li>
<li><a href="${on('/portal/webhooks')}">Webhooks</a></li>
<li><a href="${on('/portal/audit')}">Audit log</a></li>
</ul>
${dataTable({
  caption: html`Staff of ${inst.name}`,
  stack: true,
  columns: [{ label: 'Email' }, { label: 'Name' }, { label: 'Role' }, { label: 'Last sign-in' }],
  rows: staff.map((s) => [s.email, s.name ?? '–', s.role, s.lastSignInAt ? whenShort(s.lastSignInAt) : 'Not yet']),
  empty: 'No staff yet: invite the first admin.',
})}
<p><a href="${on('/portal/staff')}" class="button">Manage staff</a></p>`;
    return sendHtml(reply, portalLayout({ title: inst.name, principal: p, current: 'institutions', main, flash: flashFrom(request) }));
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

async function listPage(ctx: AppContext, p: StaffPrincipal, opts: { page: number; flash?: Flash | null; errors?: ErrorDetail[]; form?: { name: string; domains: string } }): Promise<string> {
  const { data, total } = await listInstitutions(ctx.pool, { limit: PAGE_SIZE, offset: (opts.page - 1) * PAGE_SIZE });
  const main = html`<h1>Institutions</h1>
<p class="lede">Every institution on the platform (${total}). Open one to suspend it, see its staff, or work on its pages.</p>
${errorSummary(opts.errors)}
${dataTable({
  caption: 'Institutions, oldest first',
  stack: true,
  columns: [{ label: 'Name' }, { label: 'Status' }, { label: 'Callback domains' }, { label: 'Created' }],
  rows: data.map((i) => [html`<a href="/portal/institutions/${i.institutionId}">${i.name}</a>`, statusBadge(i.status), i.callbackDomains.join(', ') || '–', whenShort(i.createdAt)]),
  empty: 'No institutions yet.',
})}
${pager({
  label: 'Institution pages',
  newerHref: opts.page > 1 ? `/portal/institutions?page=${opts.page - 1}` : null,
  newerText: 'Previous',
  olderHref: opts.page * PAGE_SIZE < total ? `/portal/institutions?page=${opts.page + 1}` : null,
  olderText: 'Next',
})}
<form method="post" action="/portal/institutions" class="panel" novalidate>
<h2>Create an institution</h2>
${csrfField(p.sessionCsrf)}
${textField({ name: 'name', label: 'Name', value: opts.form?.name ?? '', error: errorFor(opts.errors, 'name'), maxlength: 200 })}
${textArea({ name: 'domains', label: 'Callback domains', value: opts.form?.domains ?? '', hint: 'Optional: one per line, like lms.partner.example or *.partner.example.', error: errorFor(opts.errors, 'domains'), rows: 3 })}
<button type="submit" class="button primary">Create institution</button>
</form>`;
  return portalLayout({ title: 'Institutions', principal: p, current: 'institutions', main, flash: opts.flash ?? null });
}
