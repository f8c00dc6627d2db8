import { AppError } from '../../../platform/errors.js';
import { newId } from '../../../platform/ids.js';
import type { TestInput } from '../schemas.js';
import { markdownTexts } from '../content/content-checks.js';
import { checkText, type TextCheck } from '../content/text-checks.js';
import type { AssetSink } from './asset-sink.js';
import { readCsv } from './csv-import.js';
import { importQtiPackage } from './qti-package.js';
import { skippedDetails, type ImportReport } from './report.js';
import { checkImportedTest } from './test-input.js';
import type { ZipLimits } from './zip.js';

/**
 * The part of an import that costs what the file makes it cost — unzip,
 * XML parse, item mapping, CSV parse, the whole-test check — run on a
 * worker-pool thread (platform/worker-pool), never on the event loop.
 * Nothing here touches the database or storage: images come back as bytes,
 * each named in the test by a placeholder asset id, for the main thread to
 * store once the import is known to succeed (import-service.ts).
 */
export interface ParseImportArgs {
  format: 'qti' | 'csv';
  title: string | null;
  dryRun: boolean;
  /** Whether the caller can store images (an import with nowhere to put them skips the items that show one). */
  storesImages: boolean;
  limits: ZipLimits | null;
}

/** An image to store: `placeholder` stands in the test for the asset id it will get. */
export interface PendingImage {
  placeholder: string;
  path: string;
  contentType: string;
  bytes: Uint8Array;
}

export interface ParsedImport {
  input: TestInput;
  report: ImportReport;
  images: PendingImage[];
  /**
   * The content checks of the test's Markdown texts (markdownTexts, in its order), made here so that
   * creating the test finds them kept instead of sending the same texts to the pool again; none in a dry run.
   */
  textChecks: TextCheck[];
}

export async function parseImport(bytes: Uint8Array, args: ParseImportArgs): Promise<ParsedImport> {
  const images: PendingImage[] = [];
  let input: TestInput | null;
  let report: ImportReport;
  if (args.format === 'csv') {
    ({ input, report } = readCsv(bytes, args.title?.trim() || 'Imported questions'));
  } else {
    // Placeholders are ids of the real shape (same length, so the whole-test check sees what will be stored) and random, so no text can forge one.
    const collect: AssetSink = {
      async store(image) {
        const placeholder = newId('ast');
        images.push({ placeholder, ...image });
        return { assetId: placeholder };
      },
    };
    ({ input, report } = await importQtiPackage(bytes, { ...(args.storesImages ? { assets: collect } : {}), ...(args.limits ? { limits: args.limits } : {}), dryRun: args.dryRun }));
    if (input && args.title?.trim()) input.title = args.title.trim();
  }
  if (!input) {
    throw new AppError('import_failed', `Nothing could be imported: ${report.skipped.length} item${report.skipped.length === 1 ? '' : 's'} skipped (see details).`, skippedDetails(report));
  }
  checkImportedTest(input);
  return { input, report, images, textChecks: args.dryRun ? [] : markdownTexts(input).map(checkText) };
}
