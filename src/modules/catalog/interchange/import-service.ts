import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { AppError } from '../../../platform/errors.js';
import type { Pool } from '../../../platform/db.js';
import { workerPool } from '../../../platform/worker-pool/shared-pool.js';
import { defineWorkerTask, WorkerTaskError } from '../../../platform/worker-pool/worker-pool.js';
import type { AuditContext } from '../../staff/audit.js';
import type { TestInput } from '../schemas.js';
import { createTestReturningIds, getTest } from '../tests-service.js';
import type { AssetSink } from './asset-sink.js';
import { assetIdsOf, exportQti3, type ExportableTest, type ExportAsset } from './qti-export.js';
import { findAsset, openAsset } from '../content-assets/assets-service.js';
import type { AppContext } from '../../../platform/context.js';
import type { ParsedImport, ParseImportArgs, PendingImage } from './parse-import-task.js';
import { markdownTexts } from '../content/content-checks.js';
import { textChecks, type TextCheck } from '../content/text-checks.js';
import type { ImportReport } from './report.js';
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

const PARSE_IMPORT = defineWorkerTask<ParseImportArgs, ParsedImport>(new URL('./parse-import-task.js', import.meta.url), 'parseImport');

/**
 * Reads a package or CSV into a checked test and its report, creating
 * nothing but the assets of the items read (none in a dry run). Nothing
 * importable: 422 import_failed with the skipped items in `details`. A
 * broken body or one over a limit: 400 naming the file.
 *
 * Everything whose cost the file decides (unzip, parse, mapping, the
 * whole-test check) runs on the worker pool (parse-import-task.ts), so the
 * event loop only hands the bytes over; a full pool is a 503 with
 * Retry-After. The images are stored here, afterwards, and only when the
 * rest succeeded: a refused import leaves no asset behind.
 */
export async function readImport(req: ImportRequest): Promise<{ input: TestInput; report: ImportReport }> {
  const args: ParseImportArgs = { format: req.format, title: req.title ?? null, dryRun: req.dryRun, storesImages: req.assets !== undefined, limits: req.limits ?? null };
  let parsed: ParsedImport;
  try {
    parsed = await workerPool().run(PARSE_IMPORT, req.bytes, args);
  } catch (err) {
    if (!(err instanceof WorkerTaskError) || err.reason === 'crashed') throw err;
    const why = err.reason === 'timeout' ? 'took too long to read' : 'needs more memory to read than an import may use';
    throw new AppError('invalid_request', `The import ${why} and was stopped: split it into smaller files.`, [{ field: 'body', message: why }]);
  }
  const { input, report, images } = parsed;
  keepTextChecks(input, parsed.textChecks, images.length > 0);
  if (images.length > 0 && req.assets && !req.dryRun) await storeImages(input, images, req.assets);
  return { input, report };
}

/**
 * Keeps the checks the pool made of the test's texts, as checkTextsOffLoop
 * would after sending them there, so creating the test checks none of them
 * again. Texts that name an image change when the image is stored (its
 * placeholder becomes its asset id) and are checked again then.
 */
function keepTextChecks(input: TestInput, checks: TextCheck[], withImages: boolean): void {
  const sources = markdownTexts(input);
  if (sources.length !== checks.length) return;
  sources.forEach((source, i) => {
    if (!(withImages && source.includes('asset:'))) textChecks.keep(source, checks[i]!);
  });
}

/** Stores the images and puts each one's asset id where its placeholder stands in the test. */
async function storeImages(input: TestInput, images: PendingImage[], sink: AssetSink): Promise<void> {
  const ids = new Map<string, string>();
  for (const image of images) ids.set(image.placeholder, (await sink.store({ path: image.path, contentType: image.contentType, bytes: image.bytes })).assetId);
  const swap = (value: unknown): unknown => {
    if (typeof value === 'string') return value.includes('asset:ast_') ? value.replace(/asset:(ast_[A-Za-z0-9]+)/g, (m, id: string) => (ids.has(id) ? `asset:${ids.get(id)}` : m)) : value;
    if (Array.isArray(value)) return value.map(swap);
    if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, swap(v)]));
    return value;
  };
  Object.assign(input, swap(input));
}

/** Reads a package or CSV (readImport) and creates the test (version 1), or with `dryRun` only reports. */
export async function importTest(pool: Pool, req: ImportRequest): Promise<ImportResult> {
  const { input, report } = await readImport(req);
  if (req.dryRun) return { dryRun: true, testId: null, version: null, report, test: input };
  await yieldToLoop();
  const created = await createTestReturningIds(pool, input, req.audit);
  // Items whose identifier was not a usable id got one on creation, in the same order.
  const ids = created.questionIds;
  report.items.forEach((item, i) => (item.questionId = ids[i] ?? item.questionId));
  return { dryRun: false, testId: created.testId, version: created.version, report };
}

/** The current version of a test as a QTI 3.0 package, with the images its questions show. */
export async function exportTest(ctx: AppContext, testId: string): Promise<Uint8Array> {
  return qtiPackageOf(ctx, await getTest(ctx.pool, testId));
}

/** A test (a version, or a checked draft) as a QTI 3.0 package, with the images its questions show. */
export async function qtiPackageOf(ctx: AppContext, test: ExportableTest): Promise<Uint8Array> {
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
