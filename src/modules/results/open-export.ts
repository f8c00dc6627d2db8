import type { Readable } from 'node:stream';
import type { Pool, Queryable } from '../../platform/db.js';
import type { AssignmentListFilter } from '../assignments/list-assignments.js';
import type { AuditContext } from '../staff/audit.js';
import { contentDisposition } from '../../platform/http/content-disposition.js';
import { auditExport, exportFileName, exportTestTitle, type ExportKind } from './export-download.js';
import { responsesCsv } from './item-export.js';
import { resultsCsv } from './results-csv.js';

/**
 * One export, ready to send, for the operator API and the portal alike:
 * the CSV stream (its first rows already read, so a failure is still an
 * error response), its `Content-Disposition`, and the audit entry, written
 * on `primary` once the rows are known to come.
 */
export async function openExport(
  db: Pool,
  primary: Queryable,
  input: { kind: ExportKind; filter: AssignmentListFilter; audit: AuditContext; now: Date },
): Promise<{ body: Readable; disposition: string }> {
  const title = await exportTestTitle(db, input.filter);
  const body = input.kind === 'results' ? await resultsCsv(db, input.filter) : await responsesCsv(db, input.filter);
  try {
    await auditExport(primary, input.audit, input.kind, input.filter);
  } catch (err) {
    // No entry, no export: the stream is dropped, which closes its cursor.
    body.destroy();
    throw err;
  }
  return { body, disposition: contentDisposition(exportFileName(input.kind, input.filter.institutionId, title, input.now)) };
}

/** The headers of a CSV download. */
export const CSV_HEADERS = { 'content-type': 'text/csv; charset=utf-8', 'cache-control': 'no-store' } as const;
