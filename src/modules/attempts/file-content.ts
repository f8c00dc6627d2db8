/**
 * What an uploaded file is, told by its bytes (never by the name or the
 * browser's claim): the signatures of PDF, PNG, JPEG, GIF and WebP; plain
 * text (valid UTF-8 throughout, no NUL); zip, and inside a zip the office
 * formats (OOXML docx/xlsx/pptx by their `[Content_Types].xml` and main part
 * folder, OpenDocument by the `mimetype` entry that opens the archive).
 * Fed chunk by chunk as the upload streams, so nothing is held but a few
 * kilobytes.
 */
export const DOCX = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';
export const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
export const PPTX = 'application/vnd.openxmlformats-officedocument.presentationml.presentation';
const ODF = ['application/vnd.oasis.opendocument.text', 'application/vnd.oasis.opendocument.spreadsheet', 'application/vnd.oasis.opendocument.presentation'];

/** The types this module can recognise (a claim of one of them must match the content). */
export const DETECTABLE = new Set(['application/pdf', 'image/png', 'image/jpeg', 'image/gif', 'image/webp', 'text/plain', 'application/zip', DOCX, XLSX, PPTX, ...ODF]);

const HEAD_BYTES = 4096;
const ZIP_LOCAL = Buffer.from([0x50, 0x4b, 0x03, 0x04]);
/** A central directory file header: its name is 46 bytes in, its length at 28. */
const ZIP_CENTRAL = Buffer.from([0x50, 0x4b, 0x01, 0x02]);
/** A local file header is 30 bytes before its name; names we look for are short. */
const ZIP_CARRY = 30 + 1024;

export class ContentSniffer {
  private head = Buffer.alloc(0);
  private total = 0;
  private utf8 = new TextDecoder('utf-8', { fatal: true });
  private text = true;
  private zip: { carry: Buffer; names: Set<string> } | null = null;

  push(chunk: Buffer): void {
    if (this.head.length < HEAD_BYTES) this.head = Buffer.concat([this.head, chunk.subarray(0, HEAD_BYTES - this.head.length)]);
    this.total += chunk.length;
    if (this.text) {
      if (chunk.includes(0)) this.text = false;
      else {
        try {
          this.utf8.decode(chunk, { stream: true });
        } catch {
          this.text = false;
        }
      }
    }
    if (this.zip === null && this.head.length >= 4 && this.head.subarray(0, 4).equals(ZIP_LOCAL)) {
      this.zip = { carry: Buffer.alloc(0), names: new Set() };
      // Everything so far: the few bytes of earlier chunks (still in the head) and this one.
      this.scanZip(Buffer.concat([this.head.subarray(0, this.total - chunk.length), chunk]));
    } else if (this.zip) this.scanZip(chunk);
  }

  /** Collects the entry names of the zip's local file headers, across chunk boundaries. */
  private scanZip(chunk: Buffer): void {
    const zip = this.zip!;
    if (zip.names.size >= 5000) return;
    const buf = zip.carry.length > 0 ? Buffer.concat([zip.carry, chunk]) : chunk;
    let at = buf.indexOf(ZIP_LOCAL);
    while (at >= 0) {
      const nameLength = at + 30 <= buf.length ? buf.readUInt16LE(at + 26) : -1;
      if (nameLength < 0 || at + 30 + nameLength > buf.length) {
        // An unfinished header: read it again with the next chunk.
        zip.carry = buf.length - at <= ZIP_CARRY ? Buffer.from(buf.subarray(at)) : Buffer.alloc(0);
        return;
      }
      zip.names.add(buf.subarray(at + 30, at + 30 + nameLength).toString('latin1'));
      at = buf.indexOf(ZIP_LOCAL, at + 30 + nameLength);
    }
    // A signature may be cut by the chunk boundary: keep its first bytes.
    zip.carry = Buffer.from(buf.subarray(Math.max(0, buf.length - 3)));
  }

  /**
   * The last bytes of a file whose start was pushed but whose middle is not read (a direct upload, checked
   * with two ranged reads of the stored object: the API never carries the file). `size` is the whole
   * file's. Text: the end must be valid UTF-8 too (from its first whole character); the middle is not
   * seen. Zip: the central directory at the end lists every entry, so the office formats are told by
   * their part names as well as from a streamed file.
   */
  pushTail(tail: Buffer, size: number): void {
    this.total = size;
    if (this.text) {
      let from = 0;
      while (from < 3 && from < tail.length && (tail[from]! & 0xc0) === 0x80) from++;
      // The start was decoded as a stream and may end mid-character: that is not an error here.
      this.utf8 = new TextDecoder('utf-8', { fatal: true });
      if (tail.includes(0)) this.text = false;
      else {
        try {
          this.utf8.decode(tail.subarray(from), { stream: true });
        } catch {
          this.text = false;
        }
      }
    }
    if (this.zip) {
      let at = tail.indexOf(ZIP_CENTRAL);
      while (at >= 0 && at + 46 <= tail.length && this.zip.names.size < 5000) {
        const nameLength = tail.readUInt16LE(at + 28);
        if (at + 46 + nameLength > tail.length) break;
        this.zip.names.add(tail.subarray(at + 46, at + 46 + nameLength).toString('latin1'));
        at = tail.indexOf(ZIP_CENTRAL, at + 46 + nameLength);
      }
    }
  }

  get bytes(): number {
    return this.total;
  }

  /** The detected type once the whole file has been pushed; null for an empty file. */
  finish(): string | null {
    if (this.total === 0) return null;
    const h = this.head;
    const starts = (sig: number[] | string, at = 0) => {
      const b = typeof sig === 'string' ? Buffer.from(sig, 'latin1') : Buffer.from(sig);
      return h.length >= at + b.length && h.subarray(at, at + b.length).equals(b);
    };
    if (starts('%PDF-')) return 'application/pdf';
    if (starts([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'image/png';
    if (starts([0xff, 0xd8, 0xff])) return 'image/jpeg';
    if (starts('GIF87a') || starts('GIF89a')) return 'image/gif';
    if (starts('RIFF') && starts('WEBP', 8)) return 'image/webp';
    if (this.zip) {
      // OpenDocument: the first entry is `mimetype`, stored uncompressed, its content the type.
      if (h.readUInt16LE(26) === 8 && starts('mimetype', 30) && h.readUInt16LE(8) === 0) {
        const size = h.readUInt32LE(18);
        const extra = h.readUInt16LE(28);
        const type = h.subarray(38 + extra, 38 + extra + size).toString('latin1');
        if (ODF.includes(type)) return type;
      }
      const names = [...this.zip.names];
      if (names.includes('[Content_Types].xml')) {
        if (names.some((n) => n.startsWith('word/'))) return DOCX;
        if (names.some((n) => n.startsWith('xl/'))) return XLSX;
        if (names.some((n) => n.startsWith('ppt/'))) return PPTX;
      }
      return 'application/zip';
    }
    if (this.text) {
      try {
        this.utf8.decode();
        return 'text/plain';
      } catch {
        this.text = false;
      }
    }
    return 'application/octet-stream';
  }
}

/** A MIME type without parameters, lower case. */
export function bareType(type: string): string {
  return type.split(';')[0]!.trim().toLowerCase();
}

/** Whether `type` is in an accept list of MIME types and `type/*` wildcards (and `*\/*`). */
export function accepted(accept: readonly string[], type: string): boolean {
  const t = bareType(type);
  return accept.some((a) => {
    const x = bareType(a);
    return x === t || x === '*/*' || (x.endsWith('/*') && t.startsWith(x.slice(0, -1)));
  });
}

/**
 * The type the file is taken to be, or why not. A claim the content
 * contradicts is refused (a PNG claimed as a PDF); a claim of a type this
 * module cannot recognise (application/octet-stream, an empty claim, or
 * a text type) leaves the detected type standing. Text content keeps a
 * `text/…` claim (a CSV file is plain text claimed as text/csv).
 */
export function judgeContent(detected: string | null, claimed: string): { ok: true; type: string } | { ok: false; message: string } {
  if (detected === null) return { ok: false, message: 'The file is empty.' };
  const claim = bareType(claimed);
  if (detected === 'text/plain') {
    if (claim.startsWith('text/') && /^text\/[a-z0-9.+-]+$/.test(claim)) return { ok: true, type: claim };
    if (claim === '' || claim === 'application/octet-stream') return { ok: true, type: detected };
    if (DETECTABLE.has(claim)) return { ok: false, message: `The file's content is plain text, not ${claim}.` };
    return { ok: true, type: detected };
  }
  if (claim === '' || claim === 'application/octet-stream' || claim === detected) return { ok: true, type: detected };
  if (claim === 'application/zip' && (detected === DOCX || detected === XLSX || detected === PPTX || ODF.includes(detected))) return { ok: true, type: detected };
  // A zip claimed as an office format it does not contain, or an office file claimed as a bare zip.
  if (DETECTABLE.has(claim) || claim.startsWith('image/') || claim.startsWith('text/')) {
    return { ok: false, message: `The file's content is ${describe(detected)}, not ${claim}.` };
  }
  return { ok: true, type: detected };
}

function describe(type: string): string {
  return type === 'application/octet-stream' ? 'not a recognised type' : type;
}
