import type { Queryable } from '../../platform/db.js';
import type { StaffRole } from './principal.js';

/** SQL of staff accounts. Institution staff queries take the institution; operators are `institution_id IS NULL`. */
export interface StaffRow {
  staffId: string;
  institutionId: string | null;
  institutionName: string | null;
  email: string;
  name: string | null;
  role: StaffRole;
  createdAt: Date;
  lastSignInAt: Date | null;
}

const COLUMNS = `s.id, s.institution_id, i.name AS institution_name, s.email, s.name, s.role, s.created_at, s.last_sign_in_at`;
const FROM = `staff s LEFT JOIN institutions i ON i.id = s.institution_id`;

/** A row of COLUMNS as pg returns it. */
type StaffRecord = {
  id: string;
  institution_id: string | null;
  institution_name: string | null;
  email: string;
  name: string | null;
  role: StaffRole;
  created_at: Date;
  last_sign_in_at: Date | null;
};

function toRow(r: StaffRecord): StaffRow {
  return {
    staffId: r.id,
    institutionId: r.institution_id,
    institutionName: r.institution_name,
    email: r.email,
    name: r.name,
    role: r.role,
    createdAt: r.created_at,
    lastSignInAt: r.last_sign_in_at,
  };
}

/** Inserts an account; null when the address already has a live account there (the unique indexes decide). */
export async function insertStaff(
  db: Queryable,
  s: { staffId: string; institutionId: string | null; email: string; name: string | null; role: StaffRole; now: Date },
): Promise<StaffRow | null> {
  const { rows } = await db.query(
    `INSERT INTO staff (id, institution_id, email, name, role, created_at) VALUES ($1, $2, $3, $4, $5, $6)
     ON CONFLICT DO NOTHING RETURNING id`,
    [s.staffId, s.institutionId, s.email, s.name, s.role, s.now],
  );
  if (rows.length === 0) return null;
  return findStaff(db, s.institutionId, s.staffId);
}

/** A live account of this institution (null: operators); another institution's is not found. */
export async function findStaff(db: Queryable, institutionId: string | null, staffId: string, opts: { forUpdate?: boolean } = {}): Promise<StaffRow | null> {
  const { rows } = await db.query<StaffRecord>(
    `SELECT ${COLUMNS} FROM ${FROM}
      WHERE s.id = $1 AND s.institution_id IS NOT DISTINCT FROM $2 AND s.removed_at IS NULL${opts.forUpdate ? ' FOR UPDATE OF s' : ''}`,
    [staffId, institutionId],
  );
  return rows[0] ? toRow(rows[0]) : null;
}

/** Live accounts with this (lower-cased) address: one per institution at most, and maybe an operator account. */
export async function findStaffByEmail(db: Queryable, email: string): Promise<StaffRow[]> {
  const { rows } = await db.query<StaffRecord>(
    `SELECT ${COLUMNS} FROM ${FROM} WHERE s.email = $1 AND s.removed_at IS NULL ORDER BY s.institution_id IS NOT NULL, i.name, s.id`,
    [email],
  );
  return rows.map(toRow);
}

export async function findStaffById(db: Queryable, staffId: string): Promise<StaffRow | null> {
  const { rows } = await db.query<StaffRecord>(`SELECT ${COLUMNS} FROM ${FROM} WHERE s.id = $1 AND s.removed_at IS NULL`, [staffId]);
  return rows[0] ? toRow(rows[0]) : null;
}

export async function listStaffRows(db: Queryable, institutionId: string | null): Promise<StaffRow[]> {
  const { rows } = await db.query<StaffRecord>(
    `SELECT ${COLUMNS} FROM ${FROM} WHERE s.institution_id IS NOT DISTINCT FROM $1 AND s.removed_at IS NULL ORDER BY s.created_at, s.id LIMIT 1000`,
    [institutionId],
  );
  return rows.map(toRow);
}

/** The institution's live admins, oldest first. */
export async function listAdminRows(db: Queryable, institutionId: string): Promise<StaffRow[]> {
  const { rows } = await db.query<StaffRecord>(
    `SELECT ${COLUMNS} FROM ${FROM} WHERE s.institution_id = $1 AND s.role = 'admin' AND s.removed_at IS NULL ORDER BY s.created_at, s.id`,
    [institutionId],
  );
  return rows.map(toRow);
}

export async function countAdmins(db: Queryable, institutionId: string): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM staff WHERE institution_id = $1 AND role = 'admin' AND removed_at IS NULL`,
    [institutionId],
  );
  return rows[0]!.n;
}

export async function updateStaffRole(db: Queryable, staffId: string, role: StaffRole): Promise<void> {
  await db.query('UPDATE staff SET role = $2 WHERE id = $1', [staffId, role]);
}

export async function markStaffRemoved(db: Queryable, staffId: string, now: Date): Promise<void> {
  await db.query('UPDATE staff SET removed_at = $2 WHERE id = $1', [staffId, now]);
}

export async function touchLastSignIn(db: Queryable, staffId: string, now: Date): Promise<void> {
  await db.query('UPDATE staff SET last_sign_in_at = $2 WHERE id = $1', [staffId, now]);
}
