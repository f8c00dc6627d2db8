import type { LightMyRequestResponse } from 'fastify';
import { PORTAL_COOKIE, createPortalSession } from '../../src/modules/staff/portal-sessions.js';
import type { StaffRole } from '../../src/modules/staff/principal.js';
import { createOperator, inviteStaff } from '../../src/modules/staff/staff-service.js';
import type { Harness } from './harness.js';

/**
 * Signed-in portal users for tests: an account created through the staff
 * service and a session opened directly (the emailed link is the browser
 * tests' business), with the session's cookie and CSRF token.
 */
export interface PortalUser {
  staffId: string;
  email: string;
  role: StaffRole;
  institutionId: string | null;
  cookie: string;
  csrf: string;
}

let seq = 0;

export async function signedIn(h: Harness, role: StaffRole, institutionId: string | null = null, name?: string): Promise<PortalUser> {
  const email = `${role}-${++seq}-${Date.now()}@staff.example`;
  const audit = { actor: { kind: 'cli' as const }, ip: null };
  const staff =
    role === 'operator'
      ? await createOperator(h.ctx, { email, name: name ?? null }, audit)
      : await inviteStaff(h.ctx, { institutionId: institutionId!, email, name: name ?? null, role }, audit);
  const { sessionId, csrf } = await createPortalSession(h.pool, { staffId: staff.staffId, method: 'link', now: h.clock.now() });
  return { staffId: staff.staffId, email, role, institutionId, cookie: `${PORTAL_COOKIE}=${sessionId}`, csrf };
}

export function portalGet(h: Harness, user: PortalUser | null, url: string, headers: Record<string, string> = {}): Promise<LightMyRequestResponse> {
  return h.app.inject({ method: 'GET', url, headers: { ...(user ? { cookie: user.cookie } : {}), ...headers } });
}

/** A form post as the page would send it: the session's CSRF token unless `fields.csrf` says otherwise. */
export function portalPost(
  h: Harness,
  user: PortalUser | null,
  url: string,
  fields: Record<string, string | string[]> = {},
  headers: Record<string, string> = {},
): Promise<LightMyRequestResponse> {
  const body = new URLSearchParams();
  if (user && !('csrf' in fields)) body.append('csrf', user.csrf);
  for (const [k, v] of Object.entries(fields)) for (const one of Array.isArray(v) ? v : [v]) body.append(k, one);
  return h.app.inject({
    method: 'POST',
    url,
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...(user ? { cookie: user.cookie } : {}), ...headers },
    payload: body.toString(),
  });
}

/** The audit entries of an institution (null: platform entries too), oldest first. */
export async function auditActions(h: Harness, institutionId: string | null): Promise<Array<{ action: string; actor_id: string | null; object_id: string | null; details: Record<string, unknown> }>> {
  const { rows } = await h.pool.query(
    'SELECT action, actor_id, object_id, details FROM audit_log WHERE ($1::text IS NULL OR institution_id = $1) ORDER BY id',
    [institutionId],
  );
  return rows;
}
