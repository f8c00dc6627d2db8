/**
 * Who acts, resolved once per request (or per job) and passed to the
 * services that act for someone. Glossary:
 * - *partner*: an institution's API key, in the key's mode (`ak_test_` keys
 *   reach test-mode rows only, live keys live ones);
 * - *staff*: a person signed in to the portal, with one role; `institutionId`
 *   is null for a platform operator (the staff module adds the session's
 *   details and maps roles to permissions);
 * - *operator*: the operator API's token, over every institution;
 * - *automation*: a worker or job acting for no tenant in particular, with
 *   the reason it does (for the reader and the logs, not for access).
 * Platform code: no module's types, so every module can import it.
 */
export interface PartnerPrincipal {
  kind: 'partner';
  institutionId: string;
  keyId: string;
  livemode: boolean;
}

export interface StaffActor<Role extends string = string> {
  kind: 'staff';
  /** `stf_…` */
  staffId: string;
  role: Role;
  /** Null for platform operators. */
  institutionId: string | null;
}

export interface OperatorPrincipal {
  kind: 'operator';
}

export interface AutomationPrincipal {
  kind: 'automation';
  reason: string;
}

export type Principal = PartnerPrincipal | StaffActor | OperatorPrincipal | AutomationPrincipal;

/**
 * The tenant condition a service or repository function takes, never an
 * optional field: one institution's rows, or every institution's. Every
 * institution is said out loud, by the operator or by automation; a partner
 * principal is already a tenant (its institution).
 */
export type Tenant = { institutionId: string } | OperatorPrincipal | AutomationPrincipal;

/** The tenant a principal reaches: its institution; a platform operator in the portal (no institution) reaches every one, as the operator. */
export function tenantOf(p: Principal): Tenant {
  if (p.kind === 'operator' || p.kind === 'automation') return p;
  return p.institutionId === null ? { kind: 'operator' } : { institutionId: p.institutionId };
}

/**
 * The condition as a query parameter, read here and nowhere else: the
 * institution id, or null for every institution, for SQL written as
 * `($n::text IS NULL OR institution_id = $n)`.
 */
export function tenantInstitution(t: Tenant): string | null {
  return 'institutionId' in t ? t.institutionId : null;
}

/** Whether a row of `institutionId` is within the tenant (another tenant's row is then reported as not found). */
export function tenantReaches(t: Tenant, institutionId: string): boolean {
  const only = tenantInstitution(t);
  return only === null || only === institutionId;
}
