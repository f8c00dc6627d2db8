import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { AppError } from '../../../platform/errors.js';
import type { Pool } from '../../../platform/db.js';
import type { AuditContext } from '../../staff/audit.js';
import { allQuestions } from '../sections.js';
import type { TestInput } from '../schemas.js';
import { createTest, getTest } from '../tests-service.js';
import type { AssetSink } from './asset-sink.js';
import { importCsv } from './csv-import.js';
import { assetIdsOf, exportQti3, type ExportAsset } from './qti-export.js';
import { findAsset, openAsset } from '../content-assets/assets-service.js';
import type { AppContext } from '../../../platform/context.js';
import { importQtiPackage } from './qti-package.js';
import { skippedDetails, type ImportReport } from './report.js';
import { checkImportedTest } from './test-input.js';
import type { ZipLimits } from './zip.js';

/** The largest import body (a compressed package or a CSV); docs/import-export.md "Limits". */
export const IMPORT_MAX_BYTES = 50 * 1024 * 1024;

export type ImportFormat = 'qti' | 'csv';

export interface ImportRequest {
  bytes: Uint8Array;
  format: ImportFormat;
  dryRun: boolean;
  /** The test's title (a CSV has none; a package's own title otherwise). */
  title?: string;
  assets?: AssetSink;
  audit?: AuditContext;
  limits?: ZipLimits;
}

export type ImportResult =
  | { dryRun: false; testId: string; version: number; report: ImportReport }
  | { dryRun: true; testId: null; version: null; report: ImportReport; test: TestInput };

/** The format of a body by its Content-Type; null for anything else. */
export function formatOf(contentType: string | undefined): ImportFormat | null {
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (type === 'application/zip' || type === 'application/x-zip-compressed') return 'qti';
  if (type === 'text/csv') return 'csv';
  return null;
}

/**
 * Reads a package or CSV into a checked test and its report, creating
 * nothing but the assets of the items read (none in a dry run). Nothing
 * importable: 422 import_failed with the skipped items in `details`. A
 * broken body: 400 naming the file.
 */
export async function readImport(req: ImportRequest): Promise<{ input: TestInput; report: ImportReport }> {
  let input: TestInput | null;
  let report: ImportReport;
  if (req.format === 'csv') {
    let text: string;
    try {
      text = new TextDecoder('utf-8', { fatal: true }).decode(req.bytes);
    } catch {
      throw new AppError('invalid_request', 'The CSV is not UTF-8 text: save it as CSV UTF-8.', [{ field: 'body', message: 'is not UTF-8' }]);
    }
    ({ input, report } = importCsv(text, req.title?.trim() || 'Imported questions'));
  } else {
    ({ input, report } = await importQtiPackage(req.bytes, { ...(req.assets ? { assets: req.assets } : {}), ...(req.limits ? { limits: req.limits } : {}), dryRun: req.dryRun }));
    if (input && req.title?.trim()) input.title = req.title.trim();
  }
  if (!input) {
    throw new AppError('import_failed', `Nothing could be imported: ${report.skipped.length} item${report.skipped.length === 1 ? '' : 's'} skipped (see details).`, skippedDetails(report));
  }
  // The whole-test check and the insert each start in a turn of their own (the loop serves other requests between).
  await yieldToLoop();
  checkImportedTest(input);
  return { input, report };
}

/** Reads a package or CSV (readImport) and creates the test (version 1), or with `dryRun` only reports. */
export async function importTest(pool: Pool, req: ImportRequest): Promise<ImportResult> {
  const { input, report } = await readImport(req);
  if (req.dryRun) return { dryRun: true, testId: null, version: null, report, test: input };
  await yieldToLoop();
  const created = await createTest(pool, input, req.audit);
  // Items whose identifier was not a usable id got one on creation, in the same order.
  const ids = allQuestions(created).map((q) => q.id);
  report.items.forEach((item, i) => (item.questionId = ids[i] ?? item.questionId));
  return { dryRun: false, testId: created.testId, version: created.version, report };
}

/** The current version of a test as a QTI 3.0 package, with the images its questions show. */
export async function exportTest(ctx: AppContext, testId: string): Promise<Uint8Array> {
  const test = await getTest(ctx.pool, testId);
  const assets = new Map<string, ExportAsset>();
  for (const assetId of assetIdsOf(test)) {
    const row = await findAsset(ctx.pool, assetId);
    if (!row) continue; // written as its alt text
    const object = await openAsset(ctx, row);
    const chunks: Buffer[] = [];
    for await (const chunk of object.body) chunks.push(Buffer.from(chunk as Uint8Array));
    assets.set(assetId, { contentType: row.contentType, bytes: Buffer.concat(chunks) });
  }
  return exportQti3(test, assets);
}
