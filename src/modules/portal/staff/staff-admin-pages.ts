import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../../../platform/context.js';
import { notFound, type ErrorDetail } from '../../../platform/errors.js';
import { html } from '../../../platform/web/html.js';
import { portalTranslator, richText } from '../ui/portal-text.js';
import type { AuditContext } from '../../staff/audit.js';
import { INSTITUTION_ROLES, permissionsOf } from '../../staff/principal.js';
import { changeStaffRole, inviteStaff, listStaff, normaliseEmail, removeStaff } from '../../staff/staff-service.js';
import { csrfField, dataTable, errorFor, errorSummary, hiddenFields, postButton, selectField, textField, whenShort, type Flash } from '../ui/components.js';
import {
  CsrfBody,
  FORM,
  Html,
  InstitutionQuery,
  Redirect,
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
 * Staff (admins, and operators for a chosen institution): invite by email,
 * change a role, remove, through the staff service, which writes each
 * change's audit entry in its own transaction.
 */
const StaffParams = Type.Object({ staffId: Type.String({ maxLength: 64 }) });

function auditOf(scope: Scope, request: FastifyRequest): AuditContext {
  return { actor: { kind: 'staff', staffId: scope.p.staffId, email: scope.p.email }, ip: request.ip };
}

export const staffAdminPages: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  const title = portalTranslator().t('portal.nav.staff');
  institutionPage(app, ctx, { path: '/staff', nav: 'staff', title, permission: 'manage_staff' }, (scope, flash) => staffPage(ctx, scope, { flash }));

  app.post(
    '/staff',
    {
      schema: {
        ...pageRoute,
        consumes: FORM,
        body: Type.Object({ ...CsrfBody, email: Type.Optional(Type.String({ maxLength: 1000 })), name: Type.Optional(Type.String({ maxLength: 1000 })), role: Type.Optional(Type.String({ maxLength: 20 })) }),
        response: { 303: Redirect, 400: Html },
      },
    },
    async (request, reply) => {
      const scope = await institutionScope(ctx, request, 'manage_staff');
      if (!scope) throw notFound('institution');
      const form = { email: (request.body.email ?? '').trim(), name: (request.body.name ?? '').trim(), role: request.body.role ?? 'viewer' };
      const { t } = scope;
      const errors: ErrorDetail[] = [];
      if (!form.email) errors.push({ field: 'email', message: t.t('portal.staff.error.emailMissing') });
      else if (!normaliseEmail(form.email)) errors.push({ field: 'email', message: t.t('portal.staff.error.emailInvalid') });
      if (form.name.length > 200) errors.push({ field: 'name', message: t.t('portal.staff.error.nameTooLong') });
      if (errors.length === 0) {
        try {
          await inviteStaff(ctx, { institutionId: scope.institutionId, email: form.email, name: form.name || null, role: form.role }, auditOf(scope, request));
          return redirect(reply, scope.link('/portal/staff', { done: 'staff-invited' }));
        } catch (err) {
          errors.push(...formErrors(err, 'email').map((d) => ({ field: d.field, message: d.field === 'email' ? t.t('portal.staff.error.email', { reason: d.message }) : d.message })));
        }
      }
      return sendHtml(reply, await staffPage(ctx, scope, { errors, form }), 400);
    },
  );

  app.post(
    '/staff/:staffId/role',
    { schema: { ...pageRoute, consumes: FORM, params: StaffParams, body: Type.Object({ ...CsrfBody, role: Type.String({ maxLength: 20 }) }), response: { 303: Redirect, 409: Html } } },
    async (request, reply) => {
      const scope = await institutionScope(ctx, request, 'manage_staff');
      if (!scope) throw notFound('staff member');
      try {
        await changeStaffRole(ctx, { institutionId: scope.institutionId, staffId: request.params.staffId, role: request.body.role }, auditOf(scope, request));
      } catch (err) {
        const [problem] = formErrors(err, 'role');
        return sendHtml(reply, await staffPage(ctx, scope, { flash: { kind: 'error', text: problem!.message } }), 409);
      }
      return redirect(reply, scope.link('/portal/staff', { done: 'staff-updated' }));
    },
  );

  app.get('/staff/:staffId/remove', { schema: { ...pageRoute, params: StaffParams, querystring: Type.Object(InstitutionQuery), response: { 200: Html } } }, async (request, reply) => {
    const scope = await institutionScope(ctx, request, 'manage_staff');
    if (!scope) throw notFound('staff member');
    const member = (await listStaff(ctx.pool, scope.institutionId)).find((s) => s.staffId === request.params.staffId);
    if (!member) throw notFound('staff member');
    const { t } = scope;
    const main = html`<h1>${t.t('portal.staff.remove.heading', { who: member.name ?? member.email })}</h1>
<p>${richText(t, 'portal.staff.remove.text', { email: member.email, role: member.role, institution: scope.institutionName })}</p>
<div class="actions">
${postButton({ action: `/portal/staff/${member.staffId}/remove`, label: t.t('portal.staff.remove.button'), csrf: scope.p.sessionCsrf, variant: 'danger', fields: operatorField(scope) })}
<a href="${scope.link('/portal/staff')}" class="button">${t.t('portal.staff.remove.cancel')}</a>
</div>`;
    return sendHtml(reply, layoutFor(scope, { title: t.t('portal.staff.remove.title', { email: member.email }), current: 'staff', main }));
  });

  app.post(
    '/staff/:staffId/remove',
    { schema: { ...pageRoute, consumes: FORM, params: StaffParams, body: Type.Object(CsrfBody), response: { 303: Redirect, 409: Html } } },
    async (request, reply) => {
      const scope = await institutionScope(ctx, request, 'manage_staff');
      if (!scope) throw notFound('staff member');
      try {
        await removeStaff(ctx, { institutionId: scope.institutionId, staffId: request.params.staffId }, auditOf(scope, request));
      } catch (err) {
        const [problem] = formErrors(err, 'staff');
        return sendHtml(reply, await staffPage(ctx, scope, { flash: { kind: 'error', text: problem!.message } }), 409);
      }
      return redirect(reply, scope.link('/portal/staff', { done: 'staff-removed' }));
    },
  );
};

/**
 * Every institution role with what it may do, read from the roles' own
 * permissions (staff/principal.ts), so a new role or permission shows here
 * without a text to keep in step.
 */
function roleList(t: Scope['t']) {
  return html`<section class="panel" aria-labelledby="roles-heading"><h2 id="roles-heading">${t.t('portal.staff.roles.heading')}</h2>
<dl class="facts role-list">${INSTITUTION_ROLES.map(
    (r) => html`<dt id="role-${r}"><strong>${t.t('portal.staff.roleName', { role: r })}</strong></dt><dd aria-labelledby="role-${r}"><ul>${permissionsOf(r).map((p) => html`<li>${t.t('portal.staff.permission', { permission: p })}</li>`)}</ul></dd>`,
  )}</dl></section>`;
}

async function staffPage(ctx: AppContext, scope: Scope, opts: { flash?: Flash | null; errors?: ErrorDetail[]; form?: { email: string; name: string; role: string } }): Promise<string> {
  const staff = await listStaff(ctx.pool, scope.institutionId);
  const { t } = scope;
  const csrf = scope.p.sessionCsrf;
  const roles = INSTITUTION_ROLES.map((r) => ({ value: r, label: t.t('portal.staff.roleName', { role: r }) }));
  const main = html`<h1>${t.t('portal.nav.staff')}</h1>
<p class="lede">${t.t('portal.staff.lede', { institution: scope.institutionName })}</p>
${roleList(t)}
${errorSummary(opts.errors, t)}
${dataTable({
  caption: t.t('portal.staff.caption', { institution: scope.institutionName, count: String(staff.length) }),
  stack: true,
  columns: [
    { label: t.t('portal.staff.name') },
    { label: t.t('portal.staff.email') },
    { label: t.t('portal.staff.role') },
    { label: t.t('portal.staff.lastSignIn') },
    { label: t.t('portal.staff.actions') },
  ],
  rows: staff.map((s) => {
    const self = s.staffId === scope.p.staffId;
    return [
      html`${s.name ?? html`<span class="empty">${t.t('portal.staff.noName')}</span>`}${self ? html` <span class="hint">${t.t('portal.staff.you')}</span>` : ''}`,
      s.email,
      html`<form method="post" action="/portal/staff/${s.staffId}/role" class="inline-form actions">
${csrfField(csrf)}${hiddenFields(operatorField(scope))}
<label class="sr-only" for="role-${s.staffId}">${t.t('portal.staff.roleOf', { email: s.email })}</label>
<select id="role-${s.staffId}" name="role">${roles.map((r) => html`<option value="${r.value}"${r.value === s.role ? html` selected` : ''}>${r.label}</option>`)}</select>
<button type="submit" class="button small">${t.t('portal.staff.change')}<span class="sr-only"> ${t.t('portal.staff.changeWhose', { email: s.email })}</span></button>
</form>`,
      s.lastSignInAt ? whenShort(s.lastSignInAt, t) : t.t('portal.staff.notYet'),
      html`<a href="${scope.link(`/portal/staff/${s.staffId}/remove`)}">${t.t('portal.staff.removeLink')}<span class="sr-only"> ${s.email}</span></a>`,
    ];
  }),
  empty: t.t('portal.staff.none'),
})}
<form method="post" action="/portal/staff" class="panel" novalidate>
<h2>${t.t('portal.staff.invite.heading')}</h2>
<p class="hint">${richText(t, 'portal.staff.invite.hint')}</p>
${csrfField(csrf)}${hiddenFields(operatorField(scope))}
${textField({ name: 'email', label: t.t('portal.staff.email'), type: 'email', value: opts.form?.email ?? '', error: errorFor(opts.errors, 'email'), autocomplete: 'off', maxlength: 254, t })}
${textField({ name: 'name', label: t.t('portal.staff.name'), value: opts.form?.name ?? '', hint: t.t('portal.marking.item.optional'), error: errorFor(opts.errors, 'name'), maxlength: 200, t })}
${selectField({ name: 'role', label: t.t('portal.staff.role'), value: opts.form?.role ?? 'reviewer', options: roles })}
<button type="submit" class="button primary">${t.t('portal.staff.invite.submit')}</button>
</form>`;
  return layoutFor(scope, { title: t.t('portal.nav.staff'), current: 'staff', main, flash: opts.flash ?? null });
}
