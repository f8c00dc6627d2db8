import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../../../platform/context.js';
import { notFound, type ErrorDetail } from '../../../platform/errors.js';
import { html } from '../../../platform/web/html.js';
import type { AuditContext } from '../../staff/audit.js';
import { INSTITUTION_ROLES } from '../../staff/principal.js';
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
const TITLE = 'Staff';
const StaffParams = Type.Object({ staffId: Type.String({ maxLength: 64 }) });
const ROLE_HELP: Record<string, string> = {
  admin: 'everything of the institution, including keys, webhooks and staff',
  reviewer: 'marking and proctoring review, and reading',
  viewer: 'reading only',
};

function auditOf(scope: Scope, request: FastifyRequest): AuditContext {
  return { actor: { kind: 'staff', staffId: scope.p.staffId, email: scope.p.email }, ip: request.ip };
}

export const staffAdminPages: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  institutionPage(app, ctx, { path: '/staff', nav: 'staff', title: TITLE, permission: 'manage_staff' }, (scope, flash) => staffPage(ctx, scope, { flash }));

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
      const errors: ErrorDetail[] = [];
      if (!form.email) errors.push({ field: 'email', message: 'Enter the email address of the person to invite.' });
      else if (!normaliseEmail(form.email)) errors.push({ field: 'email', message: 'Enter an email address like name@example.com.' });
      if (form.name.length > 200) errors.push({ field: 'name', message: 'The name must be at most 200 characters.' });
      if (errors.length === 0) {
        try {
          await inviteStaff(ctx, { institutionId: scope.institutionId, email: form.email, name: form.name || null, role: form.role }, auditOf(scope, request));
          return redirect(reply, scope.link('/portal/staff', { done: 'staff-invited' }));
        } catch (err) {
          errors.push(...formErrors(err, 'email').map((d) => ({ field: d.field, message: d.field === 'email' ? `Email address ${d.message}` : d.message })));
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
    const main = html`<h1>Remove ${member.name ?? member.email}?</h1>
<p>${member.email} (${member.role}) will be signed out at once and can no longer sign in to ${scope.institutionName}'s portal. Their marks and audit entries stay. You can invite the address again later.</p>
<div class="actions">
${postButton({ action: `/portal/staff/${member.staffId}/remove`, label: 'Remove staff member', csrf: scope.p.sessionCsrf, variant: 'danger', fields: operatorField(scope) })}
<a href="${scope.link('/portal/staff')}" class="button">Cancel</a>
</div>`;
    return sendHtml(reply, layoutFor(scope, { title: `Remove ${member.email}`, current: 'staff', main }));
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

async function staffPage(ctx: AppContext, scope: Scope, opts: { flash?: Flash | null; errors?: ErrorDetail[]; form?: { email: string; name: string; role: string } }): Promise<string> {
  const staff = await listStaff(ctx.pool, scope.institutionId);
  const csrf = scope.p.sessionCsrf;
  const roles = INSTITUTION_ROLES.map((r) => ({ value: r, label: `${r[0]!.toUpperCase()}${r.slice(1)}` }));
  const main = html`<h1>Staff</h1>
<p class="lede">People who sign in to ${scope.institutionName}'s portal. Roles: <strong>admin</strong> (${ROLE_HELP.admin}), <strong>reviewer</strong> (${ROLE_HELP.reviewer}), <strong>viewer</strong> (${ROLE_HELP.viewer}).</p>
${errorSummary(opts.errors)}
${dataTable({
  caption: html`Staff of ${scope.institutionName} (${staff.length})`,
  stack: true,
  columns: [{ label: 'Name' }, { label: 'Email' }, { label: 'Role' }, { label: 'Last sign-in' }, { label: 'Actions' }],
  rows: staff.map((s) => {
    const self = s.staffId === scope.p.staffId;
    return [
      html`${s.name ?? html`<span class="empty">No name</span>`}${self ? html` <span class="hint">(you)</span>` : ''}`,
      s.email,
      html`<form method="post" action="/portal/staff/${s.staffId}/role" class="inline-form actions">
${csrfField(csrf)}${hiddenFields(operatorField(scope))}
<label class="sr-only" for="role-${s.staffId}">Role of ${s.email}</label>
<select id="role-${s.staffId}" name="role">${roles.map((r) => html`<option value="${r.value}"${r.value === s.role ? html` selected` : ''}>${r.label}</option>`)}</select>
<button type="submit" class="button small">Change<span class="sr-only"> the role of ${s.email}</span></button>
</form>`,
      s.lastSignInAt ? whenShort(s.lastSignInAt) : 'Not yet',
      html`<a href="${scope.link(`/portal/staff/${s.staffId}/remove`)}">Remove<span class="sr-only"> ${s.email}</span></a>`,
    ];
  }),
  empty: 'No staff yet.',
})}
<form method="post" action="/portal/staff" class="panel" novalidate>
<h2>Invite someone</h2>
<p class="hint">They receive an email with a sign-in link, valid for 15 minutes; afterwards they sign in from the portal's sign-in page.</p>
${csrfField(csrf)}${hiddenFields(operatorField(scope))}
${textField({ name: 'email', label: 'Email', type: 'email', value: opts.form?.email ?? '', error: errorFor(opts.errors, 'email'), autocomplete: 'off', maxlength: 254 })}
${textField({ name: 'name', label: 'Name', value: opts.form?.name ?? '', hint: 'Optional.', error: errorFor(opts.errors, 'name'), maxlength: 200 })}
${selectField({ name: 'role', label: 'Role', value: opts.form?.role ?? 'reviewer', options: roles })}
<button type="submit" class="button primary">Send invitation</button>
</form>`;
  return layoutFor(scope, { title: TITLE, current: 'staff', main, flash: opts.flash ?? null });
}
