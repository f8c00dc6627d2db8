import type { ErrorDetail } from '../../../platform/errors.js';

/** What an import did with each item (docs/import-export.md "The report"). */
export interface SkippedItem {
  file: string;
  identifier: string;
  interaction: string;
  reason: string;
}
export interface ImportedItem {
  file: string;
  identifier: string;
  title: string;
  questionId: string | null;
  type: string;
}
export interface ImportReport {
  imported: number;
  skipped: SkippedItem[];
  /** Each imported item: what it became. */
  items: ImportedItem[];
  /** Harmless things left out (feedback, stylesheets, catalogs…), each once with where. */
  notes: string[];
}

export const emptyReport = (): ImportReport => ({ imported: 0, skipped: [], items: [], notes: [] });

/**
 * The skipped items as error details (422 import_failed), in the envelope's
 * shape: field `file#identifier`, message `interaction: reason`.
 */
export function skippedDetails(report: ImportReport): ErrorDetail[] {
  return capDetails(report.skipped.map((s) => ({ field: s.identifier ? `${s.file}#${s.identifier}` : s.file, message: `${s.interaction}: ${s.reason}` })), 'skipped items');
}

/** Error details listed in full before the rest are counted (an error body stays small whatever the input). */
export const MAX_DETAILS = 50;

/** The first MAX_DETAILS details, then one saying how many more there are. */
export function capDetails(details: ErrorDetail[], what = 'problems'): ErrorDetail[] {
  if (details.length <= MAX_DETAILS) return details;
  return [...details.slice(0, MAX_DETAILS), { field: 'body', message: `and ${details.length - MAX_DETAILS} more ${what}` }];
}
