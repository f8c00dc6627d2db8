/**
 * Who a launch is for, read from the LTI roles claim per the LIS v2 role
 * vocabulary (LTI 1.3 core, appendix A):
 * - context roles: `http://purl.imsglobal.org/vocab/lis/v2/membership#Instructor`,
 *   their sub-roles `…/membership/Instructor#TeachingAssistant`, and the short
 *   form `Instructor` that LTI 1.3 allows for context roles only;
 * - institution roles `…/lis/v2/institution/person#…` and system roles
 *   `…/lis/v2/system/person#…`;
 * - the LTI 1.1 URNs (`urn:lti:role:ims/lis/Instructor`,
 *   `urn:lti:instrole:ims/lis/…`, `urn:lti:sysrole:ims/lis/…`) some
 *   platforms still send beside them.
 *
 * - `staff`: an instructor of the course (any Instructor sub-role: teaching
 *   assistant, grader, …), a content developer, the course's administrator
 *   or manager, or an institution or system administrator. Sees the link's
 *   page and may place tests (deep linking); never gets an assignment.
 * - `learner`: a Learner of the course (any sub-role), and anyone the
 *   platform launches without a role Assay knows (a course link is for its
 *   students); gets their assignment.
 * - `observer`: a Mentor of the course (Canvas observers, parents, advisors,
 *   reviewers) or a Manager's observer sub-role, without a learner or staff
 *   role: sees a page saying they cannot take the test; nothing is created.
 * Staff wins over learner, learner over observer (a student who also
 * observes someone takes their own test).
 */
export type LaunchAudience = 'staff' | 'learner' | 'observer';

const LIS = 'http://purl.imsglobal.org/vocab/lis/v2/';
const CONTEXT_STAFF = new Set(['Instructor', 'ContentDeveloper', 'Administrator', 'Manager']);
const OBSERVER_SUB_ROLES = new Set(['Observer', 'ExternalObserver']);
const ADMIN_ROLES = new Set(['Administrator', 'SysAdmin', 'AccountAdmin']);

type Role = { kind: 'context' | 'institution' | 'system'; name: string; sub: string | null };

/** One role string in the vocabulary's terms, or null when it is none of its forms. */
export function parseRole(raw: string): Role | null {
  const r = raw.trim();
  if (r.startsWith(`${LIS}membership/`)) {
    const [name, sub] = r.slice(`${LIS}membership/`.length).split('#');
    return name && sub ? { kind: 'context', name, sub } : null;
  }
  if (r.startsWith(`${LIS}membership#`)) return { kind: 'context', name: r.slice(`${LIS}membership#`.length), sub: null };
  if (r.startsWith(`${LIS}institution/person#`)) return { kind: 'institution', name: r.slice(`${LIS}institution/person#`.length), sub: null };
  if (r.startsWith(`${LIS}system/person#`)) return { kind: 'system', name: r.slice(`${LIS}system/person#`.length), sub: null };
  // LTI 1.1 URNs: urn:lti:role:ims/lis/Instructor/TeachingAssistant, urn:lti:instrole:ims/lis/Administrator, urn:lti:sysrole:ims/lis/SysAdmin.
  const urn = /^urn:lti:(role|instrole|sysrole):ims\/lis\/([A-Za-z]+)(?:\/([A-Za-z]+))?$/.exec(r);
  if (urn) return { kind: urn[1] === 'role' ? 'context' : urn[1] === 'instrole' ? 'institution' : 'system', name: urn[2]!, sub: urn[3] ?? null };
  // A simple name is a context role (LTI 1.3 allows short names for context roles only).
  if (/^[A-Za-z]+$/.test(r)) return { kind: 'context', name: r, sub: null };
  return null;
}

export function launchAudience(rolesClaim: unknown): LaunchAudience {
  const roles = (Array.isArray(rolesClaim) ? rolesClaim : []).filter((r): r is string => typeof r === 'string').map(parseRole).filter((r): r is Role => r !== null);
  const isObserverSub = (r: Role) => r.kind === 'context' && r.name === 'Manager' && r.sub !== null && OBSERVER_SUB_ROLES.has(r.sub);
  const staff = roles.some(
    (r) => (r.kind === 'context' && CONTEXT_STAFF.has(r.name) && !isObserverSub(r)) || (r.kind !== 'context' && ADMIN_ROLES.has(r.name)),
  );
  if (staff) return 'staff';
  if (roles.some((r) => r.kind === 'context' && r.name === 'Learner')) return 'learner';
  if (roles.some((r) => (r.kind === 'context' && r.name === 'Mentor') || isObserverSub(r))) return 'observer';
  return 'learner';
}
