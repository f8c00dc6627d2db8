import type { Queryable } from '../../platform/db.js';
import type { AssignmentListFilter } from '../assignments/list-assignments.js';
import { recordAudit, type AuditContext } from '../staff/audit.js';

/**
 * What both CSV exports send besides their rows: the download's file name
 * (the test's title when the export is filtered to one test) and the audit
 * entry that says who exported which institution's candidates.
 */
export type ExportKind = 'results' | 'responses';

/**
 * The title of the filter's test, newest version first, when the test is
 * the institution's to export (its own, published to it or assigned by it); null
 * otherwise, so a guessed test id never names another institution's test.
 */
export async function exportTestTitle(db: Queryable, filter: AssignmentListFilter): Promise<string | null> {
  if (!filter.testId) return null;
  const { rows } = await db.query<{ title: string }>(
    `SELECT tv.title FROM test_versions tv
      WHERE tv.test_id = $1 AND NOT tv.trial
        AND (EXISTS (SELECT 1 FROM tests t WHERE t.id = tv.test_id AND t.owner_institution_id = $2)
             OR EXISTS (SELECT 1 FROM publications p WHERE p.test_id = tv.test_id AND p.institution_id = $2)
             OR EXISTS (SELECT 1 FROM assignments a WHERE a.test_id = tv.test_id AND a.institution_id = $2))
      ORDER BY tv.version DESC LIMIT 1`,
    [filter.testId, filter.institutionId],
  );
  return rows[0]?.title ?? null;
}

/** The file's name in full: `<test title> - results - <day>.csv`, or without a test `results-<institution>-<day>.csv`. */
export function exportFileName(kind: ExportKind, institutionId: string, testTitle: string | null, now: Date): string {
  const day = now.toISOString().slice(0, 10);
  // What a file system or a header refuses: double quotes become single ones, separators and wildcards dashes, controls spaces.
  const cleaned = (testTitle ?? '')
    .replace(/"/g, "'")
    .replace(/[*/:<>?\\|]/g, '-')
    .replace(/[\u0000-\u001f\u007f\s]+/g, ' ')
    .trim();
  // Cut by characters, not UTF-16 units: half a surrogate pair cannot be percent-encoded.
  const title = Array.from(cleaned).slice(0, 120).join('').trim();
  return title ? `${title} - ${kind} - ${day}.csv` : `${kind}-${institutionId}-${day}.csv`;
}

/** The filters of an export as its audit entry keeps them: what was asked, never a candidate's data. */
function filterDetails(filter: AssignmentListFilter): Record<string, unknown> {
  const day = (d: Date | undefined) => (d ? d.toISOString().slice(0, 10) : undefined);
  const details: Record<string, unknown> = {
    status: filter.status,
    testId: filter.testId,
    externalUserId: filter.externalUserId,
    createdFrom: day(filter.createdFrom),
    // The filter holds the exclusive end; the entry says the last day asked for.
    createdTo: filter.createdTo ? day(new Date(filter.createdTo.getTime() - 1)) : undefined,
    livemode: filter.livemode === undefined ? 'all' : filter.livemode,
  };
  return Object.fromEntries(Object.entries(details).filter(([, v]) => v !== undefined));
}

/**
 * The export's audit entry (`results.exported`, the institution as its
 * object, the kind and filters as details). An export changes nothing, so
 * the entry stands alone, written on the primary before the first byte is
 * sent: a download that is cut off is still on record.
 */
export async function auditExport(db: Queryable, audit: AuditContext, kind: ExportKind, filter: AssignmentListFilter): Promise<void> {
  await recordAudit(db, {
    actor: audit.actor,
    ip: audit.ip,
    action: 'results.exported',
    objectType: 'institution',
    objectId: filter.institutionId,
    institutionId: filter.institutionId,
    details: { export: `${kind}.csv`, ...filterDetails(filter) },
  });
}
