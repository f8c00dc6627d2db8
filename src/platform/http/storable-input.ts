import { Readable } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { invalid } from '../errors.js';

/**
 * Request values the service could not store or process faithfully, refused
 * up front with 400 instead of failing later as a 500:
 * - NUL (U+0000): PostgreSQL text and jsonb cannot hold it;
 * - unpaired UTF-16 surrogates: not Unicode text; jsonb refuses them, and a
 *   text column would silently store U+FFFD instead;
 * - JSON nested deeper than MAX_DEPTH: JSON.stringify and the other recursive
 *   walks (canonical JSON for idempotency) would run out of stack.
 * The walk itself is iterative, so no input can overflow it. Binary values
 * (a file's bytes in a parsed form, a raw upload) are not text and are passed
 * over whole, at no cost per byte: walked as an object, a 4 MB Uint8Array
 * was four million keys, and a 49 MB one ran the heap out (the review's C1).
 */
export const MAX_DEPTH = 64;

const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

function problemOf(text: string): string | null {
  const m = UNSTORABLE.exec(text);
  if (!m) return null;
  return m[0] === '\u0000' ? 'must not contain the NUL character (U+0000)' : 'must be valid Unicode (it holds an unpaired surrogate)';
}

/** Bytes of any kind, or a stream of them: a file, never text to check. */
export function isBinary(value: object): boolean {
  return ArrayBuffer.isView(value) || value instanceof ArrayBuffer || value instanceof Blob || value instanceof Readable;
}

/**
 * True when every value of `o` is a string and neither it nor its key needs
 * refusing: a request's path parameters and query nearly always, checked
 * with nothing allocated. Anything else (a nested value, a number, a
 * problem) is left to the walk below, which also says where the problem is;
 * so is an array, whose indexes a `for…in` would make into strings.
 */
function isFlatAndStorable(o: object): boolean {
  for (const key in o) {
    const value = (o as Record<string, unknown>)[key];
    if (typeof value !== 'string' || UNSTORABLE.test(key) || UNSTORABLE.test(value)) return false;
  }
  return true;
}

/** Where a value sits: its key and its parent's place, so a path is spelled out only for the value that is refused. */
interface Place {
  key: string;
  depth: number;
  up: Place | null;
}

function pathOf(place: Place | null, rootName: string): string {
  const keys: string[] = [];
  for (let p = place; p; p = p.up) keys.push(p.key);
  return keys.length > 0 ? keys.reverse().join('.') : rootName;
}

/** The first unstorable value in `root`, as a `details` entry whose field is a dotted path (`metadata.note`). */
export function findUnstorable(root: unknown, rootName: string): { field: string; message: string } | null {
  if (typeof root === 'string') {
    const problem = problemOf(root);
    return problem ? { field: rootName, message: problem } : null;
  }
  if (root !== null && typeof root === 'object' && !Array.isArray(root) && isFlatAndStorable(root)) return null;
  // Runs on every request, so it costs per object and per string, nothing per number: only objects go on the
  // stack (with their place), strings are checked where they are met, other values and binary are passed over,
  // and an array is read by index (Object.keys of a long array would make a string per element).
  const objects: object[] = [];
  const places: Array<Place | null> = [];
  const visit = (value: unknown, key: string, up: Place | null, depth: number): { field: string; message: string } | null => {
    if (typeof value === 'string') {
      const problem = problemOf(value);
      return problem ? { field: pathOf({ key, depth, up }, rootName), message: problem } : null;
    }
    if (value !== null && typeof value === 'object' && !isBinary(value)) {
      objects.push(value);
      places.push({ key, depth, up });
    }
    return null;
  };
  if (root !== null && typeof root === 'object' && !isBinary(root)) {
    objects.push(root);
    places.push(null);
  }
  while (objects.length > 0) {
    const value = objects.pop()!;
    const place = places.pop()!;
    const depth = place ? place.depth : 0;
    if (depth >= MAX_DEPTH) return { field: pathOf(place, rootName), message: `must not nest deeper than ${MAX_DEPTH} levels` };
    if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) {
        const found = visit(value[i], String(i), place, depth + 1);
        if (found) return found;
      }
      continue;
    }
    for (const key of Object.keys(value)) {
      const problem = problemOf(key);
      if (problem) return { field: pathOf(place, rootName), message: `has a key that ${problem}` };
      const found = visit((value as Record<string, unknown>)[key], key, place, depth + 1);
      if (found) return found;
    }
  }
  return null;
}

/**
 * preValidation hook: checks path parameters, query and a parsed (object)
 * body. A body that is still a string, bytes or the raw request stream
 * (a file upload's route takes the stream itself) belongs to a parser or
 * media-type check downstream and is left alone here, as is every binary
 * value inside a parsed body (a multipart form's file). Callback style: it
 * runs on every request and never awaits, so it need not cost a promise.
 */
export function rejectUnstorableInput(request: FastifyRequest, _reply: FastifyReply, done: (err?: Error) => void): void {
  const parts: Array<[unknown, string]> = [
    [request.params, 'params'],
    [request.query, 'query'],
  ];
  if (request.body !== null && typeof request.body === 'object' && !isBinary(request.body)) parts.push([request.body, 'body']);
  for (const [value, name] of parts) {
    const found = findUnstorable(value, name);
    if (found) return done(invalid(found.field, found.message));
  }
  done();
}
