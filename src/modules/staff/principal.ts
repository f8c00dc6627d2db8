import type { FastifyRequest } from 'fastify';
import { AppError } from '../../platform/errors.js';
import type { StaffActor } from '../../platform/principal.js';

/**
 * Who is acting in the portal: a signed-in staff member with one role.
 * Glossary: an *operator* runs the platform (no institution, sees every
 * institution); *admin*, *author*, *reviewer* and *viewer* belong to one
 * institution (an *author* writes the institution's own tests).
 * Roles map to permissions in `can` and nowhere else.
 */
export const STAFF_ROLES = ['operator', 'admin', 'author', 'reviewer', 'viewer'] as const;
export type StaffRole = (typeof STAFF_ROLES)[number];
/** The roles an institution's staff can hold (operator is platform-wide). */
export const INSTITUTION_ROLES: readonly Exclude<StaffRole, 'operator'>[] = STAFF_ROLES.filter((r) => r !== 'operator');

/** The staff variant of the platform's Principal, with what the portal shows and its session's CSRF token. */
export interface StaffPrincipal extends StaffActor<StaffRole> {
  email: string;
  name: string | null;
  institutionName: string | null;
  /** The CSRF token of the portal session, for forms (hidden field `csrf`) and the `X-CSRF-Token` header. */
  sessionCsrf: string;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by portalSession (portal/portal-session.ts) in the portal scope; null when signed out. */
    staff: StaffPrincipal | null;
  }
}

/**
 * Thrown by requireStaff when nobody is signed in: the portal's error handler
 * (installed by portalSession) answers 303 to the sign-in page with
 * `next` set to the page that was asked for.
 */
export class SignInRequired extends Error {
  constructor(readonly next: string) {
    super('Sign in to continue.');
  }
}

/** Only same-origin paths under /portal: never `//host`, a scheme, or a backslash trick. */
export function safeNextPath(raw: string | null | undefined): string | null {
  if (!raw || raw.length > 2000) return null;
  if (!raw.startsWith('/portal') || raw.startsWith('//') || /[\\\s]/.test(raw)) return null;
  if (raw.length > 7 && !['/', '?', '#'].includes(raw[7]!)) return null;
  return raw;
}

/**
 * The signed-in staff member, or a throw: signed out → SignInRequired (a
 * redirect to /portal/sign-in?next=…); signed in without one of `roles` →
 * 403 forbidden (a page).
 */
export function requireStaff(request: FastifyRequest, roles?: StaffRole[]): StaffPrincipal {
  const p = request.staff;
  if (!p) throw new SignInRequired(request.method === 'GET' ? (safeNextPath(request.url) ?? '/portal') : '/portal');
  if (roles && !roles.includes(p.role)) throw new AppError('forbidden', 'Your role does not allow this.');
  return p;
}

/**
 * Which institution a staff member acts on: always their own (a request for
 * another one is ignored, so a crafted query string cannot cross tenants);
 * an operator acts on the one they ask for, or none.
 */
export function actingInstitution(p: StaffPrincipal, requested?: string | null): string | null {
  if (p.role !== 'operator') return p.institutionId;
  return requested ?? null;
}

/**
 * `author_tests`: create, edit, publish and delete tests — an institution's
 * own for its authors and admins, every test for operators (who also hold
 * `operate`, the cross-institution catalogue and its publications).
 */
export type Permission = 'read' | 'mark' | 'review_proctoring' | 'manage_integration' | 'manage_staff' | 'author_tests' | 'operate';

const PERMISSIONS: Record<StaffRole, readonly Permission[]> = {
  operator: ['read', 'mark', 'review_proctoring', 'manage_integration', 'manage_staff', 'author_tests', 'operate'],
  admin: ['read', 'mark', 'review_proctoring', 'manage_integration', 'manage_staff', 'author_tests'],
  author: ['read', 'author_tests'],
  reviewer: ['read', 'mark', 'review_proctoring'],
  viewer: ['read'],
};

/** What a role may do, in the order the Staff page lists it. */
export function permissionsOf(role: StaffRole): readonly Permission[] {
  return PERMISSIONS[role];
}

/** The one place roles map to permissions. */
export function can(p: StaffPrincipal, permission: Permission): boolean {
  return PERMISSIONS[p.role].includes(permission);
}

/** requireStaff, then a permission: 403 without it. */
export function requirePermission(request: FastifyRequest, permission: Permission): StaffPrincipal {
  const p = requireStaff(request);
  if (!can(p, permission)) throw new AppError('forbidden', 'Your role does not allow this.');
  return p;
}
