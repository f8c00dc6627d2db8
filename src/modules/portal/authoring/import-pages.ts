import { readFile } from 'node:fs/promises';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../../platform/context.js';
import { AppError } from '../../../platform/errors.js';
import { readMultipart } from '../../../platform/http/multipart-form.js';
import { PAGE_HEADERS } from '../../../platform/web/html.js';
import { requirePermission } from '../../staff/principal.js';
import { createDraftTest, type AuthoringScope } from '../../catalog/drafts.js';
import { contentAssetSink } from '../../catalog/interchange/asset-sink.js';
import { IMPORT_MAX_BYTES, readImport } from '../../catalog/interchange/import-service.js';
import { Html, auditContext, pageRoute } from '../ui/page.js';
import { portalTranslator } from '../ui/portal-text.js';
import { importPage, type ImportOutcome } from './import-views.js';
import { dropStash, STASH_MINUTES, stashUpload, takeStash } from './import-stash.js';

/**
 * The portal's Import (docs/import-export.md "The portal"): authors and
 * admins import into a draft test owned by their institution, operators
 * into the catalogue; the images become assets of the same owner. The form
 * posts multipart/form-data (a file input), read in this scope only, within
 * the API's 50 MB import limit. Sign-in, the role and the form token (in the
 * form's action URL) are checked before the body is read (portal-session.ts,
 * `config.upload`); the form is then read as it streams in (multipart-form.ts).
 */
const MULTIPART = 'multipart/form-data';
// The file plus its form fields and the multipart framing.
const FORM_LIMIT = IMPORT_MAX_BYTES + 64 * 1024;
const TEMPLATE = new URL('../../../../docs/examples/questions-template.csv', import.meta.url);

interface ImportForm {
  title: string;
  dryRun: boolean;
  file: { name: string; bytes: Buffer } | null;
  /** The token of a file kept after Check only (import-stash.ts), sent by **Import this file** instead of the file. */
  stash: string;
}

/** The form's fields: the file, an optional title and "Check only" (and the token, which the page also sends). */
async function parseForm(request: FastifyRequest, payload: FastifyRequest['raw']): Promise<ImportForm> {
  const form = await readMultipart(payload, request.headers['content-type'], { maxBytes: FORM_LIMIT, maxParts: 8, maxFieldBytes: 4096 });
  const text = (name: string) => form.fields[name] ?? '';
  const file = form.files.find((f) => f.field === 'file' && f.bytes.length > 0);
  return { title: text('title').trim().slice(0, 200), dryRun: text('dryRun') === '1', file: file ? { name: file.name.slice(0, 200), bytes: file.bytes } : null, stash: text('stash').slice(0, 64) };
}

const send = (reply: FastifyReply, body: string, status = 200) => reply.code(status).headers(PAGE_HEADERS).send(body);
const maxMb = IMPORT_MAX_BYTES / 1024 / 1024;

export const importPages: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  const t = portalTranslator();
  // Read from the stream, not buffered first: bounded work per chunk, and a body over the limit stops the read.
  app.addContentTypeParser(MULTIPART, (request: FastifyRequest, payload: FastifyRequest['raw']) => parseForm(request, payload));

  app.get('/tests/import', { schema: { ...pageRoute, response: { 200: Html } } }, async (request, reply) => {
    const principal = requirePermission(request, 'author_tests');
    return send(reply, importPage({ principal, outcome: { kind: 'form' }, maxMb, t }));
  });

  app.get('/tests/import/template.csv', { schema: { ...pageRoute } }, async (request, reply) => {
    requirePermission(request, 'author_tests');
    const csv = await readFile(TEMPLATE);
    return reply
      .header('content-type', 'text/csv; charset=utf-8')
      .header('content-disposition', 'attachment; filename="assay-questions-template.csv"')
      .header('cache-control', 'no-store')
      .send(csv);
  });

  app.post(
    '/tests/import',
    { bodyLimit: FORM_LIMIT, config: { upload: { permission: 'author_tests' }, uploadTime: true }, schema: { ...pageRoute, consumes: [MULTIPART, 'application/x-www-form-urlencoded'], response: { 200: Html, 201: Html, 400: Html, 413: Html, 422: Html, 503: Html } } },
    async (request, reply) => {
      const principal = requirePermission(request, 'author_tests');
      // A form without a file input's encoding (urlencoded) carries no file: answered as one.
      const form = request.body as Partial<ImportForm> | undefined;
      const page = (outcome: ImportOutcome, status: number) => send(reply, importPage({ principal, outcome, maxMb, t }), status);
      // A new file wins over a kept one; a kept one is found only by who checked it, for 30 minutes.
      const stashed = !form?.file && form?.stash ? await takeStash(ctx, principal, form.stash) : null;
      if (!form?.file && form?.stash && !stashed) {
        return page({ kind: 'error', fileName: null, message: t.t('portal.import.stashGone', { minutes: STASH_MINUTES }), details: [] }, 400);
      }
      const chosen = form?.file ?? stashed;
      if (!form || !chosen) {
        return page({ kind: 'error', fileName: null, message: t.t('portal.import.noFile'), details: [] }, 400);
      }
      const { name, bytes } = chosen;
      const dryRun = form.dryRun === true && !stashed;
      // A zip starts with "PK"; anything else is read as CSV (as the CLI does).
      const format = bytes[0] === 0x50 && bytes[1] === 0x4b ? 'qti' : 'csv';
      const scope: AuthoringScope = principal.role === 'operator' ? 'all' : { institutionId: principal.institutionId! };
      const audit = auditContext(request);
      try {
        const { input, report } = await readImport({
          bytes,
          format,
          dryRun,
          ...(form.title ? { title: form.title } : {}),
          assets: contentAssetSink(ctx, scope === 'all' ? null : scope.institutionId, audit),
        });
        if (dryRun) {
          // Keeping the file is a convenience: a store that fails leaves the check's report, without the button.
          const stash = await stashUpload(ctx, principal, { name, bytes }).catch((cause: unknown) => {
            request.log.warn({ err: cause }, 'checked import file not kept');
            return null;
          });
          return page({ kind: 'checked', fileName: name, report, questions: report.imported, stash, title: form.title ?? '' }, 200);
        }
        const draft = await createDraftTest(ctx.pool, scope, input as unknown as Record<string, unknown>, audit);
        if (stashed) await dropStash(ctx, principal, form.stash!);
        return page({ kind: 'imported', fileName: name, report, testId: draft.testId, title: input.title }, 201);
      } catch (err) {
        if (err instanceof AppError && ['invalid_request', 'import_failed', 'payload_too_large', 'unavailable'].includes(err.code)) {
          // A refused check keeps nothing: the file is to be fixed and chosen again.
          // A full worker pool (503) says when to try again, on the import page, with its Retry-After.
          if (err.headers) reply.headers(err.headers);
          return page({ kind: 'error', fileName: name, message: err.message, details: err.details ?? [] }, err.status);
        }
        throw err;
      }
    },
  );
};
