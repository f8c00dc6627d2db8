import yauzl from 'yauzl';
import { zipSync } from 'fflate';
import { AppError } from '../../../platform/errors.js';

/** Limits on a package (docs/import-export.md "Limits"). */
export const ZIP_LIMITS = {
  /** Entries in the central directory (files and folders). */
  maxEntries: 5_000,
  /** Bytes once every entry is inflated, counted while inflating. */
  maxExpandedBytes: 100 * 1024 * 1024,
} as const;

export interface ZipLimits {
  maxEntries: number;
  maxExpandedBytes: number;
}

const refused = (message: string, field = 'body') => new AppError('invalid_request', message, [{ field, message }]);

/** A zip path that cannot escape the package: relative, no `..`, no backslash, no drive letter. */
export function safeZipPath(name: string): boolean {
  if (name.includes('\\') || name.includes('\0')) return false;
  if (name.startsWith('/') || /^[A-Za-z]:/.test(name)) return false;
  return !name.split('/').includes('..');
}

/**
 * Reads every file of a zip held in memory. Refused with 400 (naming the
 * problem): not a zip, an encrypted or unsupported entry, an unsafe path,
 * more than `maxEntries` entries, more than `maxExpandedBytes` once
 * inflated. The size is counted on the bytes the inflater produces, not on
 * the sizes the archive declares (yauzl also stops an entry that inflates
 * past its declared size), so a zip bomb stops at the limit.
 */
export async function readZip(bytes: Uint8Array, limits: ZipLimits = ZIP_LIMITS): Promise<Map<string, Uint8Array>> {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const zip = await new Promise<yauzl.ZipFile>((resolve, reject) => {
    // decodeStrings false: names are checked here, so an unsafe one is refused with its own message.
    yauzl.fromBuffer(buffer, { lazyEntries: true, decodeStrings: false, validateEntrySizes: true }, (err, z) =>
      err ? reject(refused(`The body is not a readable zip archive (${err.message}).`)) : resolve(z),
    );
  });
  if (zip.entryCount > limits.maxEntries) {
    zip.close();
    throw refused(`The package holds ${zip.entryCount} entries; at most ${limits.maxEntries} are allowed.`);
  }
  const files = new Map<string, Uint8Array>();
  let expanded = 0;
  try {
    await new Promise<void>((resolve, reject) => {
      const fail = (err: Error) => reject(err);
      zip.on('error', (err: Error) => fail(err instanceof AppError ? err : refused(`The zip archive is broken (${err.message}).`)));
      zip.on('end', () => resolve());
      zip.on('entry', (entry: yauzl.Entry) => {
        const raw = entry.fileName as unknown as Buffer;
        // Bit 11: the name is UTF-8; otherwise CP437, read as Latin-1 (its ASCII part is what matters here).
        const name = raw.toString((entry.generalPurposeBitFlag & 0x800) !== 0 ? 'utf8' : 'latin1');
        if (!safeZipPath(name)) return fail(refused(`The package holds an unsafe path: "${name}" (absolute, "..", or a backslash).`, name));
        if (entry.isEncrypted()) return fail(refused(`${name} is encrypted; encrypted packages are not supported.`, name));
        if (name.endsWith('/')) return zip.readEntry();
        if (entry.compressionMethod !== 0 && entry.compressionMethod !== 8) {
          return fail(refused(`${name} uses compression method ${entry.compressionMethod}; only stored and deflate are supported.`, name));
        }
        if (files.has(name)) return fail(refused(`The package holds "${name}" twice.`, name));
        zip.openReadStream(entry, (err, stream) => {
          if (err) return fail(refused(`${name} cannot be read from the zip (${err.message}).`, name));
          const chunks: Buffer[] = [];
          stream.on('data', (chunk: Buffer) => {
            expanded += chunk.length;
            if (expanded > limits.maxExpandedBytes) {
              stream.destroy();
              fail(refused(`The package expands to more than ${limits.maxExpandedBytes / 1024 / 1024} MB; at most that is allowed.`, name));
              return;
            }
            chunks.push(chunk);
          });
          stream.on('error', (e: Error) => fail(refused(`${name} is broken in the zip (${e.message}).`, name)));
          stream.on('end', () => {
            if (expanded > limits.maxExpandedBytes) return;
            files.set(name, Buffer.concat(chunks));
            zip.readEntry();
          });
        });
      });
      zip.readEntry();
    });
  } finally {
    zip.close();
  }
  return files;
}

/** Writes a zip (deflated; the files in the given order). */
export function writeZip(files: ReadonlyArray<{ path: string; data: Uint8Array | string }>): Uint8Array {
  const enc = new TextEncoder();
  const tree: Record<string, Uint8Array> = {};
  for (const f of files) tree[f.path] = typeof f.data === 'string' ? enc.encode(f.data) : f.data;
  // A fixed time: the same test exports to the same bytes.
  return zipSync(tree, { level: 6, mtime: new Date('2020-01-01T00:00:00Z') });
}
