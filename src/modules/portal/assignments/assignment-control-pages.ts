import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { notFound, type ErrorDetail } from '../../../platform/errors.js';
import type { StaffActor } from '../../../platform/principal.js';
import { html } from '../../../platform/web/html.js';
import type { Accommodations } from '../../assignments/accommodations.js';
import { cancelAssignment } from '../../assignment-controls/cancel-assignment.js';
import type { AssignmentsContext } from '../../assignments/context.js';
import { withControlAudit } from '../../assignment-controls/control-audit.js';
import { reissueStartLink } from '../../assignment-controls/reissue-start-link.js';
import { updateAssignment } from '../../assignment-controls/update-assignment.js';
import { postButton, when } from '../ui/components.js';
import { richText } from '../ui/portal-text.js';
import { CsrfBody, FORM, Html, InstitutionQuery, Redirect, auditContext, formErrors, institutionScope, layoutFor, pageRoute, redirect, sendHtml, operatorField, type Scope } from '../ui/page.js';
import { assignmentDetail } from './assignment-detail-view.js';
import { controlsSection, type ControlForm } from './assignment-controls-view.js';
import { loadAssignmentRecord } from './load-assignment-record.js';

/**
 * Admins' assignment controls: extra time, a new due date, cancelling (after
 * a confirmation page) and a new start link (shown once). Each calls the
 * partner API's service for the institution, with an audit entry in the
 * same transaction (withControlAudit).
 */
const Params = Type.Object({ assignmentId: Type.String({ maxLength: 64 }) });
const Field = Type.Optional(Type.String({ maxLength: 40 }));

export const assignmentControlPages: FastifyPluginAsyncTypebox<{ ctx: AssignmentsContext }> = async (app, { ctx }) => {
  const controlled = <T>(request: FastifyRequest, scope: Scope, assignmentId: string, action: Parameters<typeof withControlAudit>[2]['action'], change: (c: AssignmentsContext) => Promise<T>, details?: Record<string, unknown>) =>
    withControlAudit<T>(ctx, auditContext(request), { action, assignmentId, details: () => ({ ...(details ?? {}) }) }, change);
  /** The signed-in staff member acting in the page's institution (for an operator, the one chosen): both modes. */
  const actor = (scope: Scope): StaffActor => ({ kind: 'staff', staffId: scope.p.staffId, role: scope.p.role, institutionId: scope.institutionId });

  /** A refused control: the assignment page again, the form's values and the errors beside its fields. */
  async function refused(reply: FastifyReply, scope: Scope, assignmentId: string, form: ControlForm) {
    const record = await loadAssignmentRecord(ctx, scope.institutionId, assignmentId);
    const main = assignmentDetail(scope, record, controlsSection(scope, record.assignment, form));
    const title = scope.t.t('portal.assignment.title', { student: record.assignment.externalUserId });
    return sendHtml(reply, layoutFor(scope, { title, current: 'assignments', main }), 400);
  }

  app.post(
    '/assignments/:assignmentId/extra-time',
    { schema: { ...pageRoute, consumes: FORM, params: Params, body: Type.Object({ ...CsrfBody, unit: Field, amount: Field }), response: { 303: Redirect, 400: Html } } },
    async (request, reply) => {
      const scope = await institutionScope(ctx, request, 'manage_integration');
      if (!scope) throw notFound('assignment');
      const { assignmentId } = request.params;
      const { unit = 'percent', amount: raw = '' } = request.body;
      const amount = /^\d{1,4}$/.test(raw.trim()) ? Number(raw.trim()) : NaN;
      const max = unit === 'minutes' ? 1440 : 400;
      const values = { unit, amount: raw };
      if (!Number.isInteger(amount) || amount > max || (unit !== 'minutes' && unit !== 'percent')) {
        return refused(reply, scope, assignmentId, { values, errors: [{ field: 'amount', message: scope.t.t('portal.controls.error.amount', { max: String(max) }) }] });
      }
      const current = (await loadAssignmentRecord(ctx, scope.institutionId, assignmentId)).assignment.accommodations;
      // Extra time replaces the other kind; proctoring relaxations stay as they are.
      const accommodations: Accommodations = { ...(current?.proctoring ? { proctoring: current.proctoring } : {}), ...(amount > 0 ? (unit === 'minutes' ? { extraTimeMinutes: amount } : { extraTimePercent: amount }) : {}) };
      try {
        await controlled(request, scope, assignmentId, 'assignment.updated', (c) => updateAssignment(c, { scope: actor(scope), assignmentId, body: { accommodations }, idempotencyKey: undefined, serialize: JSON.stringify }), { changes: { accommodations } });
      } catch (err) {
        return refused(reply, scope, assignmentId, { values, errors: formErrors(err, 'amount').map((d) => ({ ...d, field: 'amount' })) });
      }
      return redirect(reply, scope.link(`/portal/assignments/${assignmentId}`, { done: 'extra-time-saved' }));
    },
  );

  app.post(
    '/assignments/:assignmentId/due-date',
    { schema: { ...pageRoute, consumes: FORM, params: Params, body: Type.Object({ ...CsrfBody, dueAt: Field }), response: { 303: Redirect, 400: Html } } },
    async (request, reply) => {
      const scope = await institutionScope(ctx, request, 'manage_integration');
      if (!scope) throw notFound('assignment');
      const { assignmentId } = request.params;
      const raw = (request.body.dueAt ?? '').trim();
      // datetime-local sends "2026-11-30T17:00" (no zone): the portal shows and takes UTC.
      const m = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2})(:\d{2})?$/.exec(raw);
      const dueAt = m ? new Date(`${m[1]}T${m[2]}${m[3] ?? ':00'}Z`) : null;
      if (!dueAt || Number.isNaN(dueAt.getTime())) {
        return refused(reply, scope, assignmentId, { values: { dueAt: raw }, errors: [{ field: 'dueAt', message: scope.t.t('portal.controls.error.dueAtFormat') }] });
      }
      try {
        await controlled(request, scope, assignmentId, 'assignment.updated', (c) => updateAssignment(c, { scope: actor(scope), assignmentId, body: { dueAt: dueAt.toISOString() }, idempotencyKey: undefined, serialize: JSON.stringify }), { changes: { dueAt: dueAt.toISOString() } });
      } catch (err) {
        return refused(reply, scope, assignmentId, { values: { dueAt: raw }, errors: formErrors(err, 'dueAt').map((d) => ({ ...d, field: 'dueAt', message: /^must /.test(d.message) ? scope.t.t('portal.controls.error.dueAt', { reason: d.message }) : d.message })) });
      }
      return redirect(reply, scope.link(`/portal/assignments/${assignmentId}`, { done: 'due-date-saved' }));
    },
  );

  app.get(
    '/assignments/:assignmentId/cancel',
    { schema: { ...pageRoute, params: Params, querystring: Type.Object(InstitutionQuery), response: { 200: Html } } },
    async (request, reply) => {
      const scope = await institutionScope(ctx, request, 'manage_integration');
      if (!scope) throw notFound('assignment');
      const { assignment: a, test } = await loadAssignmentRecord(ctx, scope.institutionId, request.params.assignmentId);
      const { t } = scope;
      const main = html`<h1>${t.t('portal.cancel.heading', { test: test.title, student: a.externalUserId })}</h1>
${a.status === 'started'
  ? html`<p>${richText(t, 'portal.cancel.started', { takingNow: html`<strong>${t.t('portal.cancel.takingNow')}</strong>`, when: when(a.startedAt, t) })}</p>`
  : html`<p>${t.t('portal.cancel.notStarted')}</p>`}
<p>${richText(t, 'portal.cancel.partnerIsSent', { event: html`<code>assignment.cancelled</code>` })}</p>
<div class="actions">
${postButton({ action: `/portal/assignments/${a.assignmentId}/cancel`, label: t.t('portal.cancel.button'), csrf: scope.p.sessionCsrf, variant: 'danger', fields: operatorField(scope) })}
<a href="${scope.link(`/portal/assignments/${a.assignmentId}`)}" class="button">${t.t('portal.cancel.keep')}</a>
</div>`;
      return sendHtml(reply, layoutFor(scope, { title: t.t('portal.cancel.title', { student: a.externalUserId }), current: 'assignments', main }));
    },
  );

  app.post(
    '/assignments/:assignmentId/cancel',
    { schema: { ...pageRoute, consumes: FORM, params: Params, body: Type.Object(CsrfBody), response: { 303: Redirect, 400: Html } } },
    async (request, reply) => {
      const scope = await institutionScope(ctx, request, 'manage_integration');
      if (!scope) throw notFound('assignment');
      const { assignmentId } = request.params;
      try {
        await controlled(request, scope, assignmentId, 'assignment.cancelled', (c) => cancelAssignment(c, actor(scope), assignmentId));
      } catch (err) {
        return refused(reply, scope, assignmentId, { values: {}, errors: formErrors(err, 'controls-title') });
      }
      return redirect(reply, scope.link(`/portal/assignments/${assignmentId}`, { done: 'assignment-cancelled' }));
    },
  );

  app.post(
    '/assignments/:assignmentId/start-link',
    { schema: { ...pageRoute, consumes: FORM, params: Params, body: Type.Object(CsrfBody), response: { 200: Html, 400: Html } } },
    async (request, reply) => {
      const scope = await institutionScope(ctx, request, 'manage_integration');
      if (!scope) throw notFound('assignment');
      const { assignmentId } = request.params;
      let a;
      try {
        a = await controlled(request, scope, assignmentId, 'assignment.start_link_reissued', (c) => reissueStartLink(c, actor(scope), assignmentId));
      } catch (err) {
        return refused(reply, scope, assignmentId, { values: {}, errors: formErrors(err, 'controls-title') as ErrorDetail[] });
      }
      // Shown once, like a new API key: the page is not stored (no-store) and the link is never in the URL.
      const { t } = scope;
      const main = html`<nav class="breadcrumbs" aria-label="${t.t('portal.breadcrumb')}"><ol><li><a href="${scope.link('/portal/assignments')}">${t.t('portal.nav.assignments')}</a></li><li><a href="${scope.link(
        `/portal/assignments/${assignmentId}`,
      )}">${a.externalUserId}</a></li><li aria-current="page">${t.t('portal.startLink.crumb')}</li></ol></nav>
<h1>${t.t('portal.startLink.title', { student: a.externalUserId })}</h1>
<section class="secret" aria-labelledby="new-link-title">
<h2 id="new-link-title">${t.t('portal.startLink.heading')}</h2>
<p>${richText(t, 'portal.startLink.text', { until: when(a.startUrlExpiresAt, t), shownOnce: html`<strong>${t.t('portal.startLink.shownOnce')}</strong>` })}</p>
<div class="secret-value">
<code id="new-link" tabindex="0" aria-label="${t.t('portal.startLink.heading')}">${a.startUrl ?? ''}</code>
<button type="button" class="button" data-copy="new-link" data-copy-status="copy-status" hidden>${t.t('portal.startLink.copy')}</button>
</div>
<p class="copy-status" id="copy-status" role="status"></p>
</section>
<p><a href="${scope.link(`/portal/assignments/${assignmentId}`)}">${t.t('portal.startLink.back')}</a></p>`;
      return sendHtml(reply, layoutFor(scope, { title: t.t('portal.startLink.title', { student: a.externalUserId }), current: 'assignments', main }));
    },
  );
};
