import { joinTransaction, withTransaction, type Pool, type Queryable } from '../../platform/db.js';

/**
 * The audit log: one entry per change made in the portal or through the
 * operator API, written in the same transaction as the change (a change
 * that rolls back leaves no entry; an entry never describes a change that
 * did not happen). Entries hold no secret: never a key, token or password.
 */
export type AuditActor =
  | { kind: 'staff'; staffId: string; email: string }
  | { kind: 'operator_token' }
  | { kind: 'partner_key'; keyId: string }
  /** Someone at the server's shell with `assay …` (they hold the database itself). */
  | { kind: 'cli' };

/** Who acts and from where: what services that change something take to write their entry. */
export interface AuditContext {
  actor: AuditActor;
  ip: string | null;
}

export interface AuditEntryInput {
  actor: AuditActor;
  action: string;
  objectType: string;
  objectId: string | null;
  institutionId: string | null;
  ip: string | null;
  details?: Record<string, unknown>;
}

export interface AuditEntry {
  id: number;
  at: Date;
  actorKind: AuditActor['kind'];
  actorId: string | null;
  actorEmail: string | null;
  action: string;
  objectType: string;
  objectId: string | null;
  institutionId: string | null;
  ip: string | null;
  details: Record<string, unknown>;
}

function actorColumns(actor: AuditActor): [string | null, string | null] {
  switch (actor.kind) {
    case 'staff':
      return [actor.staffId, actor.email];
    case 'partner_key':
      return [actor.keyId, null];
    default:
      return [null, null];
  }
}

/** Writes one entry. Call it with the transaction of the change it records. */
export async function recordAudit(db: Queryable, entry: AuditEntryInput): Promise<void> {
  const [actorId, actorEmail] = actorColumns(entry.actor);
  // The database clock, like the rest of the row's transaction: entries of one change sort together.
  await db.query(
    `INSERT INTO audit_log (at, institution_id, actor_kind, actor_id, actor_email, action, object_type, object_id, ip, details)
     VALUES (clock_timestamp(), $1, $2, $3, $4, $5, $6, $7, $8, $9)`,
    [entry.institutionId, entry.actor.kind, actorId, actorEmail, entry.action, entry.objectType, entry.objectId, entry.ip, JSON.stringify(entry.details ?? {})],
  );
}

/** recordAudit for a service that got an optional AuditContext, inside its own transaction: nothing without one (seeding, tests). */
export async function auditIn(tx: Queryable, audit: AuditContext | undefined, entry: Omit<AuditEntryInput, 'actor' | 'ip'>): Promise<void> {
  if (audit) await recordAudit(tx, { ...entry, actor: audit.actor, ip: audit.ip });
}

/**
 * Runs a service's change and writes its audit entry in one transaction.
 * On a pool, the change runs against a pool joined to a new transaction
 * (its own transactions become savepoints), so both commit or neither does;
 * on a transaction's client, both run in the caller's transaction. Without
 * an AuditContext (seeding, tests) the change runs as it always did.
 */
export async function withAuditEntry<T, D extends Queryable>(
  db: D,
  audit: AuditContext | undefined,
  change: (db: D) => Promise<T>,
  /** Null: nothing changed (e.g. the object was not found), so nothing to record. */
  entry: (result: T) => Omit<AuditEntryInput, 'actor' | 'ip'> | null,
): Promise<T> {
  if (!audit) return change(db);
  const run = async (tx: Queryable, joined: D) => {
    const result = await change(joined);
    const e = entry(result);
    if (e) await recordAudit(tx, { ...e, actor: audit.actor, ip: audit.ip });
    return result;
  };
  if ('release' in db) return run(db, db);
  return withTransaction(db as unknown as Pool, (tx) => run(tx, joinTransaction(tx) as unknown as D));
}

const COLUMNS = `id, at, institution_id, actor_kind, actor_id, actor_email, action, object_type, object_id, ip, details`;

/** A row of COLUMNS as pg returns it. */
type AuditRecord = {
  id: number;
  at: Date;
  institution_id: string | null;
  actor_kind: AuditActor['kind'];
  actor_id: string | null;
  actor_email: string | null;
  action: string;
  object_type: string;
  object_id: string | null;
  ip: string | null;
  details: Record<string, unknown>;
};

function toEntry(r: AuditRecord): AuditEntry {
  return {
    id: r.id,
    at: r.at,
    actorKind: r.actor_kind,
    actorId: r.actor_id,
    actorEmail: r.actor_email,
    action: r.action,
    objectType: r.object_type,
    objectId: r.object_id,
    institutionId: r.institution_id,
    ip: r.ip,
    details: r.details,
  };
}

/**
 * Newest first, `limit` entries, before the entry id `before` (keyset
 * paging: the id of the last entry of the previous page). `institutionId`
 * null lists every institution's entries and the platform's own (operators).
 */
export async function listAudit(
  db: Queryable,
  q: { institutionId: string | null; limit: number; before?: number | null },
): Promise<{ data: AuditEntry[]; nextBefore: number | null }> {
  const limit = Math.min(Math.max(1, q.limit), 200);
  const before = q.before ?? null;
  // Keyset paging on (at, id): the cursor row is looked up in the same tenant, so another tenant's id pages nothing.
  const { rows } =
    q.institutionId === null
      ? await db.query<AuditRecord>(
          `SELECT ${COLUMNS} FROM audit_log
            WHERE ($1::bigint IS NULL OR (at, id) < (SELECT at, id FROM audit_log WHERE id = $1))
            ORDER BY at DESC, id DESC LIMIT $2`,
          [before, limit + 1],
        )
      : await db.query<AuditRecord>(
          `SELECT ${COLUMNS} FROM audit_log
            WHERE institution_id = $1
              AND ($2::bigint IS NULL OR (at, id) < (SELECT at, id FROM audit_log WHERE id = $2 AND institution_id = $1))
            ORDER BY at DESC, id DESC LIMIT $3`,
          [q.institutionId, before, limit + 1],
        );
  const data = rows.slice(0, limit).map(toEntry);
  return { data, nextBefore: rows.length > limit ? data[data.length - 1]!.id : null };
}

/** The operator API's actor: the shared operator token (not a person), from the request's address. */
export function operatorTokenAudit(ip: string): AuditContext {
  return { actor: { kind: 'operator_token' }, ip };
}
