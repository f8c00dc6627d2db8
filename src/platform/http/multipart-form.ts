import type { Readable } from 'node:stream';
import { AppError } from '../errors.js';
import { formatBytes } from './error-handler.js';

/**
 * A multipart/form-data body (RFC 7578) read as it streams in: each chunk is
 * searched for the boundary once, so the cost per chunk is bounded by its
 * size and the event loop is free between chunks, whatever the body holds.
 * The fetch API's `Response.formData()` needed the whole body first, then
 * parsed it in one go (200,000 tiny parts held the loop 0.9 s) and copied the
 * file twice more. Limits: the total bytes, the number of parts, the size of
 * each text field and of a part's headers; past one, the read stops with a
 * 413 or 400 and the rest of the body is not read.
 */
export interface MultipartLimits {
  /** The whole body, framing included (the route's body limit). */
  maxBytes: number;
  /** Parts, text fields and files together. */
  maxParts: number;
  /** Each text field's value. */
  maxFieldBytes: number;
}

export interface FormFile {
  /** The form field's name. */
  field: string;
  /** The file's name as the browser sent it (may be empty). */
  name: string;
  bytes: Buffer;
}

export interface MultipartForm {
  fields: Record<string, string>;
  files: FormFile[];
}

const MAX_HEADER_BYTES = 8 * 1024;
const CRLF = Buffer.from('\r\n');
const HEADERS_END = Buffer.from('\r\n\r\n');

const unreadable = (why: string) =>
  new AppError('invalid_request', 'The form could not be read: choose the file again and resubmit.', [{ field: 'body', message: why }]);

/** The boundary of a `multipart/form-data; boundary=…` type, or null. */
export function boundaryOf(contentType: string | undefined): string | null {
  const m = /^multipart\/form-data\s*;.*?\bboundary=(?:"([^"]{1,70})"|([^\s;"]{1,70}))/i.exec(contentType ?? '');
  return m ? (m[1] ?? m[2])! : null;
}

type State = 'body' | 'after-delimiter' | 'headers' | 'done';

interface Part {
  field: string;
  fileName: string | null;
  chunks: Buffer[];
  bytes: number;
}

function partOf(head: string): Part {
  const disposition = /^content-disposition:\s*form-data\s*(;.*)$/im.exec(head)?.[1];
  if (disposition === undefined) throw unreadable('a part has no Content-Disposition: form-data');
  const field = /;\s*name="([^"]*)"/i.exec(disposition)?.[1];
  if (field === undefined) throw unreadable('a part has no name');
  const fileName = /;\s*filename="([^"]*)"/i.exec(disposition)?.[1] ?? null;
  return { field, fileName, chunks: [], bytes: 0 };
}

export async function readMultipart(stream: Readable, contentType: string | undefined, limits: MultipartLimits): Promise<MultipartForm> {
  const boundary = boundaryOf(contentType);
  if (!boundary) throw unreadable('the Content-Type names no multipart boundary');
  const delimiter = Buffer.from(`\r\n--${boundary}`);
  const form: MultipartForm = { fields: {}, files: [] };
  let parts = 0;
  let total = 0;
  // The body's first delimiter has no CRLF before it: one is supplied, so every delimiter looks alike.
  let pending: Buffer = CRLF;
  let state: State = 'body';
  // The preamble before the first delimiter is read into nothing.
  let part: Part | null = null;

  const keep = (p: Part | null, bytes: Buffer) => {
    if (!p || bytes.length === 0) return;
    p.bytes += bytes.length;
    if (p.fileName === null && p.bytes > limits.maxFieldBytes) throw unreadable(`the field "${p.field.slice(0, 40)}" is longer than ${formatBytes(limits.maxFieldBytes)}`);
    p.chunks.push(bytes);
  };
  const finish = (p: Part | null) => {
    if (!p) return;
    const bytes = Buffer.concat(p.chunks, p.bytes);
    if (p.fileName !== null) form.files.push({ field: p.field, name: p.fileName, bytes });
    else form.fields[p.field] = bytes.toString('utf8');
  };

  for await (const chunk of stream) {
    total += (chunk as Buffer).length;
    if (total > limits.maxBytes) throw new AppError('payload_too_large', `The form is larger than the limit of ${formatBytes(limits.maxBytes)}.`);
    if (state === 'done') continue; // the epilogue: read, not kept
    pending = pending.length > 0 ? Buffer.concat([pending, chunk as Buffer]) : (chunk as Buffer);
    // Each turn of this loop consumes part of `pending` or waits for more: the search starts in the new bytes.
    for (;;) {
      if (state === 'body') {
        const at = pending.indexOf(delimiter);
        if (at === -1) {
          // Everything but a possible start of the delimiter belongs to the part.
          const safe = Math.max(0, pending.length - delimiter.length + 1);
          keep(part, pending.subarray(0, safe));
          pending = pending.subarray(safe);
          break;
        }
        keep(part, pending.subarray(0, at));
        finish(part);
        part = null;
        pending = pending.subarray(at + delimiter.length);
        state = 'after-delimiter';
      }
      if (state === 'after-delimiter') {
        if (pending.length < 2) break;
        if (pending[0] === 0x2d && pending[1] === 0x2d) {
          state = 'done';
          break;
        }
        if (pending[0] !== 0x0d || pending[1] !== 0x0a) throw unreadable('a boundary is not followed by a line break');
        pending = pending.subarray(2);
        state = 'headers';
      }
      if (state === 'headers') {
        const end = pending.indexOf(HEADERS_END);
        if (end === -1) {
          if (pending.length > MAX_HEADER_BYTES) throw unreadable(`a part's headers are longer than ${formatBytes(MAX_HEADER_BYTES)}`);
          break;
        }
        if (++parts > limits.maxParts) throw unreadable(`the form has more than ${limits.maxParts} parts`);
        // A part with no header lines at all starts with the blank line itself.
        part = partOf(pending.subarray(0, end).toString('utf8'));
        pending = pending.subarray(end + HEADERS_END.length);
        state = 'body';
        continue;
      }
      break;
    }
  }
  if (state !== 'done') throw unreadable('the form ends before its closing boundary');
  return form;
}
