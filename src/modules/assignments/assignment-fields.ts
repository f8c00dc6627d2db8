import type { Queryable } from '../../platform/db.js';
import type { Accommodations } from './accommodations.js';

/** The writes of the assignment controls (PATCH, a new start link); the caller holds the row lock and runs the state machine. */
export async function writeAssignmentFields(
  db: Queryable,
  institutionId: string,
  assignmentId: string,
  fields: { dueAt?: Date | null; accommodations?: Accommodations | null },
): Promise<void> {
  await db.query(
    `UPDATE assignments SET due_at = CASE WHEN $3 THEN $4::timestamptz ELSE due_at END,
                            accommodations = CASE WHEN $5 THEN $6::jsonb ELSE accommodations END
      WHERE id = $1 AND institution_id = $2`,
    [
      assignmentId,
      institutionId,
      fields.dueAt !== undefined,
      fields.dueAt ?? null,
      fields.accommodations !== undefined,
      fields.accommodations ? JSON.stringify(fields.accommodations) : null,
    ],
  );
}

/** Revokes every start link issued so far; returns the new link version. */
export async function bumpLinkVersion(db: Queryable, institutionId: string, assignmentId: string): Promise<number> {
  const { rows } = await db.query<{ link_version: number }>(
    'UPDATE assignments SET link_version = link_version + 1 WHERE id = $1 AND institution_id = $2 RETURNING link_version',
    [assignmentId, institutionId],
  );
  return rows[0]!.link_version;
}
