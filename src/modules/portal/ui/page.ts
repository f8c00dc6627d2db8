import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../../platform/context.js';
import { joinTransaction, withTransaction } from '../../../platform/db.js';
import { AppError, notFound, type ErrorDetail } from '../../../platform/errors.js';
import { PAGE_HEADERS, html, type SafeHtml } from '../../../platform/web/html.js';
import { getInstitution, listInstitutions } from '../../institutions/institutions.js';
import { recordAudit, type AuditContext, type AuditEntryInput } from '../../staff/audit.js';
import { actingInstitution, requirePermission, requireStaff, type Permission, type StaffPrincipal } from '../../staff/principal.js';
import { dataTable, type Flash } from './components.js';
import { portalLayout, scopedHref, type NavKey } from './layout.js';

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
const FLASHES: Record<string, Flash> = {
  'key-revoked': { kind: 'success', text: 'The API key was revoked. Requests with it are refused from now on.' },
  'domain-added': { kind: 'success', text: 'The callback domain was added.' },
  'domain-removed': { kind: 'success', text: 'The callback domain was removed.' },
  'endpoint-disabled': { kind: 'success', text: 'The endpoint was disabled. Its pending deliveries were stopped.' },
  'endpoint-enabled': { kind: 'success', text: 'The endpoint was enabled.' },
  'test-sent': { kind: 'success', text: 'A test event was sent. Its delivery appears in the log below within seconds.' },
  redelivered: { kind: 'success', text: 'The event is being delivered again.' },
  'draft-saved': { kind: 'success', text: 'Your draft was saved. Only you can see it until you finish marking.' },
  'marking-finished': { kind: 'success', text: 'Marking finished. The final score was released to the partner (grading.done).' },
  'institution-created': { kind: 'success', text: 'The institution was created.' },
  'institution-suspended': { kind: 'success', text: 'The institution was suspended. Its API keys are refused until it is reactivated.' },
  'institution-reactivated': { kind: 'success', text: 'The institution was reactivated.' },
  'draft-created': { kind: 'success', text: 'The test was created as a draft. It is saved as you type; partners can assign it once you publish a version.' },
  'test-deleted': { kind: 'success', text: 'The test was deleted. Assignments already made keep working to the end.' },
  'test-saved': { kind: 'success', text: 'The test was saved as a new version. Existing assignments keep the version they started with.' },
  'test-created': { kind: 'success', text: 'The test was created.' },
  published: { kind: 'success', text: 'The test was published to the institution.' },
  unpublished: { kind: 'success', text: 'The test was unpublished from the institution. Existing assignments continue.' },
  'staff-invited': { kind: 'success', text: 'The invitation was sent.' },
  'staff-updated': { kind: 'success', text: 'The role was changed.' },
  'ai-accepted': { kind: 'success', text: 'The AI suggestions were recorded as your marks and marking finished. The final score was released to the partner (grading.done).' },
  'ai-accepted-partly': { kind: 'success', text: 'The AI suggestions were recorded as your marks. The other items still need your points.' },
  'extra-time-saved': { kind: 'success', text: 'The extra time was saved. A test in progress gets it at once.' },
  'due-date-saved': { kind: 'success', text: 'The due date was changed. The start link now expires with it.' },
  'assignment-cancelled': { kind: 'success', text: 'The assignment was cancelled. Its start link no longer works.' },
  'flag-reviewed': { kind: 'success', text: 'Your review was recorded. When every critical flag is decided, the partner is told (integrity.reviewed).' },
  'staff-removed': { kind: 'success', text: 'The staff member was removed and signed out.' },
  'lti-registered': { kind: 'success', text: 'The learning platform was registered. Enter the URLs below in its tool configuration.' },
  'lti-deployments-saved': { kind: 'success', text: 'The deployment ids were saved. Launches from a deployment no longer listed are refused from now on.' },
  'lti-removed': { kind: 'success', text: 'The learning platform was removed. Its launches are refused from now on; assignments it made stay.' },
};

export function flashFrom(request: FastifyRequest): Flash | null {
  const key = (request.query as { done?: unknown } | undefined)?.done;
  return typeof key === 'string' ? (FLASHES[key] ?? null) : null;
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
    return sendHtml(reply, await render(scope, flashFrom(request), request));
  });
}

/** Who acts on which institution, for a page that works on one institution. */
export interface Scope {
  p: StaffPrincipal;
  institutionId: string;
  institutionName: string;
  /** A portal path with the operator's institution carried along. */
  link(path: string, query?: Record<string, string | undefined>): string;
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
  return { p, institutionId, institutionName: name, link: (path, query = {}) => scopedHref(path, carried, query) };
}

/** For operators on an institution's page: which institution? */
export async function chooseInstitution(ctx: AppContext, p: StaffPrincipal, current: NavKey, title: string, path: string): Promise<string> {
  const { data } = await listInstitutions(ctx.pool, { limit: 100, offset: 0 });
  const main = html`<h1>${title}</h1>
<p class="lede">This page shows one institution at a time. Choose the institution to work on.</p>
${dataTable({
  caption: 'Institutions',
  columns: [{ label: 'Institution' }, { label: 'Status' }],
  rows: data.map((i) => [html`<a href="${scopedHref(path, i.institutionId)}">${i.name}</a>`, i.status]),
  empty: 'There are no institutions yet. Create one on the Institutions page.',
})}`;
  return portalLayout({ title, principal: p, current, main });
}

/** Operators name the institution in every form; staff of an institution never need to. */
export function operatorField(scope: Scope): Record<string, string | undefined> {
  return scope.p.role === 'operator' ? { institution: scope.institutionId } : {};
}

export function layoutFor(scope: Scope, p: { title: string; current: NavKey | null; main: SafeHtml; flash?: Flash | null }): string {
  return portalLayout({ ...p, principal: scope.p, institutionId: scope.p.role === 'operator' ? scope.institutionId : null, institutionName: scope.institutionName });
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
