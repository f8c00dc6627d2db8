import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { AppError } from '../errors.js';

/**
 * The JSON body parser: the body is decoded as UTF-8 strictly, so bytes that
 * are not UTF-8 are refused with 400 instead of being replaced by U+FFFD and
 * stored. The decoded text then goes to Fastify's own JSON parser, which
 * keeps refusing `__proto__` and `constructor.prototype` keys.
 *
 * A literal `null` body is refused too: every body of this API is an object,
 * and the validator cannot tell `null` from an absent body (Fastify passes
 * both as null), so an optional body would otherwise take `null` as absent.
 */
declare module 'fastify' {
  interface FastifyRequest {
    /** The JSON body's text as received, for members that must be echoed exactly (raw-json.ts). */
    jsonText: string | null;
  }
}

/** For the whole app (fastify-plugin): the parser and `request.jsonText` reach every route. */
export const jsonBody = fp(installJsonBodyParser, { name: 'json-body' });

async function installJsonBodyParser(app: FastifyInstance): Promise<void> {
  // One decoder for every request: without `stream`, each decode starts afresh (and a failed one leaves nothing behind).
  const utf8 = new TextDecoder('utf-8', { fatal: true });
  app.decorateRequest('jsonText', null);
  const parseText = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    let text: string;
    try {
      text = utf8.decode(body as Buffer);
    } catch {
      return done(new AppError('invalid_request', 'The body is not valid UTF-8.', [{ field: 'body', message: 'is not valid UTF-8' }]), undefined);
    }
    request.jsonText = text;
    parseText(request, text, (err, value) => {
      if (!err && value === null) {
        return done(new AppError('invalid_request', 'body: must be object', [{ field: 'body', message: 'must be object' }]), undefined);
      }
      done(err, value);
    });
  });
}
