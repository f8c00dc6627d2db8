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
 * The walk itself is iterative, so no input can overflow it.
 */
export const MAX_DEPTH = 64;

const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

function problemOf(text: string): string | null {
  const m = UNSTORABLE.exec(text);
  if (!m) return null;
  return m[0] === '\u0000' ? 'must not contain the NUL character (U+0000)' : 'must be valid Unicode (it holds an unpaired surrogate)';
}

/** The first unstorable value in `root`, as a `details` entry whose field is a dotted path (`metadata.note`). */
export function findUnstorable(root: unknown, rootName: string): { field: string; message: string } | null {
  const stack: Array<{ value: unknown; path: string[] }> = [{ value: root, path: [] }];
  const fieldOf = (path: string[]) => (path.length > 0 ? path.join('.') : rootName);
  while (stack.length > 0) {
    const { value, path } = stack.pop()!;
    if (typeof value === 'string') {
      const problem = problemOf(value);
      if (problem) return { field: fieldOf(path), message: problem };
      continue;
    }
    if (value === null || typeof value !== 'object') continue;
    if (path.length >= MAX_DEPTH) return { field: fieldOf(path), message: `must not nest deeper than ${MAX_DEPTH} levels` };
    for (const [key, child] of Object.entries(value)) {
      const problem = problemOf(key);
      if (problem) return { field: fieldOf(path), message: `has a key that ${problem}` };
      stack.push({ value: child, path: [...path, key] });
    }
  }
  return null;
}

/**
 * preValidation hook: checks path parameters, query and a parsed (object)
 * body. A body that is still a string or buffer belongs to a parser or
 * media-type check downstream and is left alone here. Callback style: it
 * runs on every request and never awaits, so it need not cost a promise.
 */
export function rejectUnstorableInput(request: FastifyRequest, _reply: FastifyReply, done: (err?: Error) => void): void {
  const parts: Array<[unknown, string]> = [
    [request.params, 'params'],
    [request.query, 'query'],
  ];
  if (request.body !== null && typeof request.body === 'object' && !Buffer.isBuffer(request.body)) parts.push([request.body, 'body']);
  for (const [value, name] of parts) {
    const found = findUnstorable(value, name);
    if (found) return done(invalid(found.field, found.message));
  }
  done();
}
