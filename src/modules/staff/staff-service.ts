import type { AppContext } from '../../platform/context.js';
import { withTransaction, type Queryable, type Tx } from '../../platform/db.js';
import { AppError, notFound } from '../../platform/errors.js';
import { newId } from '../../platform/ids.js';
import { recordAudit, type AuditContext } from './audit.js';
import { INSTITUTION_ROLES, type StaffRole } from './principal.js';
import { endStaffSessions } from './portal-sessions.js';
import { enqueueSignInMail } from './sign-in-mail.js';
import * as repo from './staff-repo.js';

/**
 * Staff accounts: invitation (the account and its first sign-in mail, in one
 * transaction), listing, role changes and removal, each with its audit
 * entry. An institution always keeps at least one admin, so it can never
 * lock itself out of its own portal.
 */
export type StaffView = repo.StaffRow;

const EMAIL = /^[^\s@<>()[\],;:"\\]+@[^\s@<>()[\],;:"\\]+\.[^\s@<>()[\],;:"\\]+$/;

/** Addresses are compared case-insensitively: stored trimmed and lower-cased. Null when not an address. */
export function normaliseEmail(raw: string): string | null {
  const email = raw.trim().toLowerCase();
  return email.length <= 254 && EMAIL.test(email) ? email : null;
}

const NOT_AN_EMAIL = 'must be an email address like name@example.com';

function checkedEmail(raw: string): string {
  const email = normaliseEmail(raw);
  if (!email) throw new AppError('invalid_request', `email: ${NOT_AN_EMAIL}`, [{ field: 'email', message: NOT_AN_EMAIL }]);
  return email;
}

function actorLabel(audit: AuditContext): string {
  switch (audit.actor.kind) {
    case 'staff':
      return audit.actor.email;
    case 'cli':
    case 'operator_token':
      return 'the Assay operator';
    default:
      return 'your institution';
  }
}

async function createAccount(
  tx: Tx,
  ctx: AppContext,
  input: { institutionId: string | null; email: string; name: string | null; role: StaffRole },
  audit: AuditContext,
): Promise<StaffView> {
  const created = await repo.insertStaff(tx, { staffId: newId('stf'), ...input, now: ctx.clock.now() });
  if (!created) {
    const where = input.institutionId ? 'this institution' : 'the operators';
    throw new AppError('invalid_request', `email: already belongs to a staff account of ${where}`, [
      { field: 'email', message: `already belongs to a staff account of ${where}` },
    ]);
  }
  await enqueueSignInMail(tx, { kind: 'invite', staffId: created.staffId, invitedBy: actorLabel(audit) });
  await recordAudit(tx, {
    actor: audit.actor,
    ip: audit.ip,
    action: input.role === 'operator' ? 'operator.created' : 'staff.invited',
    objectType: 'staff',
    objectId: created.staffId,
    institutionId: input.institutionId,
    details: { email: created.email, role: created.role },
  });
  return created;
}

/** Creates an institution's staff account and queues its invitation mail (a sign-in link). 404: no such institution. */
export async function inviteStaff(
  ctx: AppContext,
  input: { institutionId: string; email: string; name?: string | null; role: string },
  audit: AuditContext,
): Promise<StaffView> {
  const email = checkedEmail(input.email);
  const role = input.role as Exclude<StaffRole, 'operator'>;
  if (!INSTITUTION_ROLES.includes(role)) {
    throw new AppError('invalid_request', 'role: must be admin, author, reviewer or viewer', [{ field: 'role', message: 'must be admin, author, reviewer or viewer' }]);
  }
  return withTransaction(ctx.pool, async (tx) => {
    const found = await tx.query('SELECT 1 FROM institutions WHERE id = $1 FOR SHARE', [input.institutionId]);
    if (found.rowCount === 0) throw notFound('institution');
    return createAccount(tx, ctx, { institutionId: input.institutionId, email, name: input.name?.trim() || null, role }, audit);
  });
}

/** A platform operator account (command line only). */
export async function createOperator(ctx: AppContext, input: { email: string; name?: string | null }, audit: AuditContext): Promise<StaffView> {
  const email = checkedEmail(input.email);
  return withTransaction(ctx.pool, (tx) => createAccount(tx, ctx, { institutionId: null, email, name: input.name?.trim() || null, role: 'operator' }, audit));
}

/**
 * A demo or bootstrap account, created once and found again later, with no
 * invitation mail and no audit entry (seeding is not someone's change).
 */
export async function ensureStaffAccount(
  db: Queryable,
  input: { institutionId: string | null; email: string; name: string | null; role: StaffRole },
  now: Date,
): Promise<StaffView> {
  const email = checkedEmail(input.email);
  const found = (await repo.findStaffByEmail(db, email)).find((s) => s.institutionId === input.institutionId);
  if (found) return found;
  const created = await repo.insertStaff(db, { staffId: newId('stf'), ...input, email, now });
  return created ?? (await repo.findStaffByEmail(db, email)).find((s) => s.institutionId === input.institutionId)!;
}

/** The institution's staff (null: the operators), oldest first. */
export async function listStaff(db: Queryable, institutionId: string | null): Promise<StaffView[]> {
  return repo.listStaffRows(db, institutionId);
}

/** The institution's admins: who is told when Assay acts on the institution's behalf (e.g. disables a webhook endpoint). */
export async function listAdmins(db: Queryable, institutionId: string): Promise<StaffView[]> {
  return repo.listAdminRows(db, institutionId);
}

/** The account if it is still a live admin of the institution, else null (removed, or no longer an admin). */
export async function findAdmin(db: Queryable, institutionId: string, staffId: string): Promise<StaffView | null> {
  const row = await repo.findStaff(db, institutionId, staffId);
  return row?.role === 'admin' ? row : null;
}

/** An institution's staff for the operator API: 404 when the institution does not exist. */
export async function listInstitutionStaff(db: Queryable, institutionId: string): Promise<StaffView[]> {
  const found = await db.query('SELECT 1 FROM institutions WHERE id = $1', [institutionId]);
  if (found.rowCount === 0) throw notFound('institution');
  return repo.listStaffRows(db, institutionId);
}

/** Locks the institution's row: role changes and removals of one institution run one at a time (the last-admin rule). */
async function lockedStaff(tx: Tx, institutionId: string, staffId: string): Promise<repo.StaffRow> {
  await tx.query('SELECT 1 FROM institutions WHERE id = $1 FOR UPDATE', [institutionId]);
  const row = await repo.findStaff(tx, institutionId, staffId, { forUpdate: true });
  if (!row) throw notFound('staff member');
  return row;
}

function lastAdminRefusal(): AppError {
  return new AppError('invalid_state', 'An institution must keep at least one admin: make someone else an admin first.');
}

export async function changeStaffRole(
  ctx: AppContext,
  input: { institutionId: string; staffId: string; role: string },
  audit: AuditContext,
): Promise<StaffView> {
  const role = input.role as Exclude<StaffRole, 'operator'>;
  if (!INSTITUTION_ROLES.includes(role)) {
    throw new AppError('invalid_request', 'role: must be admin, author, reviewer or viewer', [{ field: 'role', message: 'must be admin, author, reviewer or viewer' }]);
  }
  return withTransaction(ctx.pool, async (tx) => {
    const row = await lockedStaff(tx, input.institutionId, input.staffId);
    if (row.role === role) return row;
    if (row.role === 'admin' && (await repo.countAdmins(tx, input.institutionId)) <= 1) throw lastAdminRefusal();
    await repo.updateStaffRole(tx, row.staffId, role);
    await recordAudit(tx, {
      actor: audit.actor,
      ip: audit.ip,
      action: 'staff.role_changed',
      objectType: 'staff',
      objectId: row.staffId,
      institutionId: input.institutionId,
      details: { email: row.email, from: row.role, to: role },
    });
    return (await repo.findStaff(tx, input.institutionId, row.staffId))!;
  });
}

/** Removes an account: it cannot sign in any more and its sessions end now. */
export async function removeStaff(ctx: AppContext, input: { institutionId: string; staffId: string }, audit: AuditContext): Promise<void> {
  await withTransaction(ctx.pool, async (tx) => {
    const row = await lockedStaff(tx, input.institutionId, input.staffId);
    if (row.role === 'admin' && (await repo.countAdmins(tx, input.institutionId)) <= 1) throw lastAdminRefusal();
    await repo.markStaffRemoved(tx, row.staffId, ctx.clock.now());
    await endStaffSessions(tx, row.staffId);
    await recordAudit(tx, {
      actor: audit.actor,
      ip: audit.ip,
      action: 'staff.removed',
      objectType: 'staff',
      objectId: row.staffId,
      institutionId: input.institutionId,
      details: { email: row.email, role: row.role },
    });
  });
}
