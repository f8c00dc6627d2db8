import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../../platform/context.js';
import { joinTransaction, withTransaction } from '../../../platform/db.js';
import { AppError, notFound, type ErrorDetail } from '../../../platform/errors.js';
import type { MessageKey, Translator } from '../../../platform/i18n/catalogue.js';
import { PAGE_HEADERS, html, type SafeHtml } from '../../../platform/web/html.js';
import { getInstitution, listInstitutions } from '../../institutions/institutions.js';
import { recordAudit, type AuditContext, type AuditEntryInput } from '../../staff/audit.js';
import { actingInstitution, requirePermission, requireStaff, type Permission, type StaffPrincipal } from '../../staff/principal.js';
import { dataTable, type Flash } from './components.js';
import { portalLayout, scopedHref, type NavKey } from './layout.js';
import { portalTranslator } from './portal-text.js';

/** Route-schema pieces and the per-request plumbing every portal page shares. */

export const FORM = ['application/x-www-form-urlencoded'];
export const Html = Type.String({ description: 'An HTML page' });
export const Redirect = Type.Null();
const Id = Type.String({ maxLength: 64, pattern: '^[A-Za-z0-9_-]+$' });
export const InstitutionQuery = { institution: Type.Optional(Id) };
export const CsrfBody = { csrf: Type.Optional(Type.String({ maxLength: 200 })), institution: Type.Optional(Id) };
export const pageRoute = { hide: true } as const;

export function sendHtml(reply: FastifyReply, body: string, status = 200) {
  return reply.code(status).headers(PAGE_HEADERS).send(body);
}

export function redirect(reply: FastifyReply, location: string) {
  return reply.code(303).header('location', location).header('cache-control', 'no-store').send(null);
}

/**
 * Flash messages travel as a fixed key in the redirect's query (`done=…`),
 * never as text: a crafted link can only show one of these sentences.
 */
/** Every flash is good news: a change went through. */
const FLASHES: Record<string, MessageKey> = {
  'key-revoked': 'portal.flash.keyRevoked',
  'domain-added': 'portal.flash.domainAdded',
  'domain-removed': 'portal.flash.domainRemoved',
  'endpoint-disabled': 'portal.flash.endpointDisabled',
  'endpoint-enabled': 'portal.flash.endpointEnabled',
  'test-sent': 'portal.flash.testSent',
  redelivered: 'portal.flash.redelivered',
  'draft-saved': 'portal.flash.draftSaved',
  'marking-finished': 'portal.flash.markingFinished',
  'institution-created': 'portal.flash.institutionCreated',
  'institution-suspended': 'portal.flash.institutionSuspended',
  'institution-reactivated': 'portal.flash.institutionReactivated',
  'draft-created': 'portal.flash.draftCreated',
  'test-deleted': 'portal.flash.testDeleted',
  'test-saved': 'portal.flash.testSaved',
  'test-created': 'portal.flash.testCreated',
  published: 'portal.flash.published',
  unpublished: 'portal.flash.unpublished',
  'staff-invited': 'portal.flash.staffInvited',
  'staff-updated': 'portal.flash.staffUpdated',
  'ai-accepted': 'portal.flash.aiAccepted',
  'ai-accepted-partly': 'portal.flash.aiAcceptedPartly',
  'extra-time-saved': 'portal.flash.extraTimeSaved',
  'due-date-saved': 'portal.flash.dueDateSaved',
  'assignment-cancelled': 'portal.flash.assignmentCancelled',
  'flag-reviewed': 'portal.flash.flagReviewed',
  'staff-removed': 'portal.flash.staffRemoved',
  'lti-registered': 'portal.flash.ltiRegistered',
  'lti-deployments-saved': 'portal.flash.ltiDeploymentsSaved',
  'lti-removed': 'portal.flash.ltiRemoved',
};

export function flashFrom(request: FastifyRequest, t: Translator = portalTranslator()): Flash | null {
  const key = (request.query as { done?: unknown } | undefined)?.done;
  const message = typeof key === 'string' && Object.hasOwn(FLASHES, key) ? FLASHES[key] : undefined;
  return message ? { kind: 'success', text: t.t(message) } : null;
}

export const DoneQuery = { done: Type.Optional(Type.String({ maxLength: 40 })) };

type PortalApp = Parameters<FastifyPluginAsyncTypebox>[0];

/**
 * The GET of a page that shows one institution (its overview, keys, domains,
 * webhooks, staff): the staff member's own institution, or for an operator
 * the one chosen in `?institution=`, else the institution chooser.
 */
export function institutionPage(
  app: PortalApp,
  ctx: AppContext,
  page: { path: string; nav: NavKey; title: string; permission: Permission },
  render: (scope: Scope, flash: Flash | null, request: FastifyRequest) => Promise<string>,
): void {
  app.get(page.path, { schema: { ...pageRoute, querystring: Type.Object({ ...InstitutionQuery, ...DoneQuery }), response: { 200: Html } } }, async (request, reply) => {
    const scope = await institutionScope(ctx, request, page.permission);
    const portalPath = page.path === '/' ? '/portal' : `/portal${page.path}`;
    if (!scope) return sendHtml(reply, await chooseInstitution(ctx, request.staff!, page.nav, page.title, portalPath));
    return sendHtml(reply, await render(scope, flashFrom(request, scope.t), request));
  });
}

/** Who acts on which institution, for a page that works on one institution. */
export interface Scope {
  p: StaffPrincipal;
  institutionId: string;
  institutionName: string;
  /** A portal path with the operator's institution carried along. */
  link(path: string, query?: Record<string, string | undefined>): string;
  /** The language of the page (the portal's English until staff can choose theirs). */
  t: Translator;
}

function requestedInstitution(request: FastifyRequest): string | null {
  const q = (request.query as { institution?: unknown } | undefined)?.institution;
  if (typeof q === 'string' && q) return q;
  const b = (request.body as { institution?: unknown } | undefined)?.institution;
  return typeof b === 'string' && b ? b : null;
}

/**
 * The signed-in staff member with `permission` and the institution they act
 * on; null for an operator who has not chosen one yet (the caller shows
 * chooseInstitution). An unknown institution is a 404.
 */
export async function institutionScope(ctx: AppContext, request: FastifyRequest, permission: Permission): Promise<Scope | null> {
  const p = requirePermission(request, permission);
  const institutionId = actingInstitution(p, requestedInstitution(request));
  if (!institutionId) return null;
  let name = p.institutionName ?? '';
  if (p.role === 'operator') {
    const found = await getInstitution(ctx.pool, institutionId);
    if (!found) throw notFound('institution');
    name = found.name;
  }
  const carried = p.role === 'operator' ? institutionId : null;
  return { p, institutionId, institutionName: name, link: (path, query = {}) => scopedHref(path, carried, query), t: portalTranslator() };
}

/** For operators on an institution's page: which institution? */
export async function chooseInstitution(
  ctx: AppContext,
  p: StaffPrincipal,
  current: NavKey,
  title: string,
  path: string,
  t: Translator = portalTranslator(),
): Promise<string> {
  const { data } = await listInstitutions(ctx.pool, { limit: 100, offset: 0 });
  const main = html`<h1>${title}</h1>
<p class="lede">${t.t('portal.chooseInstitution.lede')}</p>
${dataTable({
  caption: t.t('portal.chooseInstitution.caption'),
  columns: [{ label: t.t('portal.chooseInstitution.institution') }, { label: t.t('portal.chooseInstitution.status') }],
  rows: data.map((i) => [html`<a href="${scopedHref(path, i.institutionId)}">${i.name}</a>`, i.status]),
  empty: t.t('portal.chooseInstitution.empty'),
})}`;
  return portalLayout({ title, principal: p, current, main, t });
}

/** Operators name the institution in every form; staff of an institution never need to. */
export function operatorField(scope: Scope): Record<string, string | undefined> {
  return scope.p.role === 'operator' ? { institution: scope.institutionId } : {};
}

export function layoutFor(
  scope: Scope,
  p: { title: string; current: NavKey | null; main: SafeHtml; flash?: Flash | null; clientMessages?: readonly MessageKey[] },
): string {
  return portalLayout({
    ...p,
    principal: scope.p,
    institutionId: scope.p.role === 'operator' ? scope.institutionId : null,
    institutionName: scope.institutionName,
    t: scope.t,
  });
}

/** Who is acting, for services that write their own audit entry (AuditContext). */
export function auditContext(request: FastifyRequest): AuditContext {
  const p = requireStaff(request);
  return { actor: { kind: 'staff', staffId: p.staffId, email: p.email }, ip: request.ip };
}

/**
 * For services that take no AuditContext: runs the change and writes its audit entry in the
 * same transaction: the service's own transaction joins this one, so the
 * change and its entry commit together or not at all.
 */
export async function audited<C extends AppContext, T>(
  ctx: C,
  request: FastifyRequest,
  change: (ctx: C) => Promise<T>,
  entry: (result: T) => Omit<AuditEntryInput, 'actor' | 'ip'>,
): Promise<T> {
  const { actor, ip } = auditContext(request);
  return withTransaction(ctx.pool, async (tx) => {
    const result = await change({ ...ctx, pool: joinTransaction(tx) });
    await recordAudit(tx, { ...entry(result), actor, ip });
    return result;
  });
}

/** The details of a refused form (a 4xx AppError), or a rethrow of anything else. */
export function formErrors(err: unknown, fallbackField: string): ErrorDetail[] {
  if (err instanceof AppError && err.status >= 400 && err.status < 500 && err.status !== 404 && err.status !== 403) {
    return err.details && err.details.length > 0 ? err.details : [{ field: fallbackField, message: err.message }];
  }
  throw err;
}
