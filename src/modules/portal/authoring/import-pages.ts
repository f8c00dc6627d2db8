import { readFile } from 'node:fs/promises';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../../platform/context.js';
import { AppError } from '../../../platform/errors.js';
import { PAGE_HEADERS } from '../../../platform/web/html.js';
import { requirePermission } from '../../staff/principal.js';
import { createDraftTest, type AuthoringScope } from '../../catalog/drafts.js';
import { contentAssetSink } from '../../catalog/interchange/asset-sink.js';
import { IMPORT_MAX_BYTES, readImport } from '../../catalog/interchange/import-service.js';
import { Html, auditContext, pageRoute } from '../ui/page.js';
import { importPage, type ImportOutcome } from './import-views.js';

/**
 * The portal's Import (docs/import-export.md "The portal"): authors and
 * admins import into a draft test owned by their institution, operators
 * into the catalogue; the images become assets of the same owner. The form
 * posts multipart/form-data (a file input), read in this scope only, within
 * the API's 50 MB import limit.
 */
const MULTIPART = 'multipart/form-data';
// The file plus its form fields and the multipart framing.
const FORM_LIMIT = IMPORT_MAX_BYTES + 64 * 1024;
const TEMPLATE = new URL('../../../../docs/examples/questions-template.csv', import.meta.url);

interface ImportForm {
  csrf?: string;
  title: string;
  dryRun: boolean;
  file: { name: string; bytes: Uint8Array } | null;
}

/** The form's fields, read with the platform's own multipart parser (the fetch API's FormData). */
async function parseForm(contentType: string, body: Buffer): Promise<ImportForm> {
  let data: FormData;
  try {
    data = await new Response(body as unknown as ConstructorParameters<typeof Response>[0], { headers: { 'content-type': contentType } }).formData();
  } catch {
    throw new AppError('invalid_request', 'The form could not be read: choose the file again and resubmit.', [{ field: 'file', message: 'is not a readable form' }]);
  }
  const text = (name: string) => {
    const v = data.get(name);
    return typeof v === 'string' ? v : '';
  };
  const file = data.get('file');
  const picked = file !== null && typeof file !== 'string' && file.size > 0 ? { name: file.name.slice(0, 200), bytes: new Uint8Array(await file.arrayBuffer()) } : null;
  return { csrf: text('csrf'), title: text('title').trim().slice(0, 200), dryRun: text('dryRun') === '1', file: picked };
}

const send = (reply: FastifyReply, body: string, status = 200) => reply.code(status).headers(PAGE_HEADERS).send(body);
const maxMb = IMPORT_MAX_BYTES / 1024 / 1024;

export const importPages: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.addContentTypeParser(MULTIPART, { parseAs: 'buffer', bodyLimit: FORM_LIMIT }, async (request: FastifyRequest, body: string | Buffer) => parseForm(String(request.headers['content-type']), body as Buffer));

  app.get('/tests/import', { schema: { ...pageRoute, response: { 200: Html } } }, async (request, reply) => {
    const principal = requirePermission(request, 'author_tests');
    return send(reply, importPage({ principal, outcome: { kind: 'form' }, maxMb }));
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
    { bodyLimit: FORM_LIMIT, schema: { ...pageRoute, consumes: [MULTIPART, 'application/x-www-form-urlencoded'], response: { 200: Html, 201: Html, 400: Html, 413: Html, 422: Html } } },
    async (request, reply) => {
      const principal = requirePermission(request, 'author_tests');
      // A form without a file input's encoding (urlencoded) carries no file: answered as one.
      const form = request.body as Partial<ImportForm> | undefined;
      const page = (outcome: ImportOutcome, status: number) => send(reply, importPage({ principal, outcome, maxMb }), status);
      if (!form?.file) {
        return page({ kind: 'error', fileName: null, message: 'Choose a QTI package (.zip) or a CSV file to import.', details: [] }, 400);
      }
      const { name, bytes } = form.file;
      // A zip starts with "PK"; anything else is read as CSV (as the CLI does).
      const format = bytes[0] === 0x50 && bytes[1] === 0x4b ? 'qti' : 'csv';
      const scope: AuthoringScope = principal.role === 'operator' ? 'all' : { institutionId: principal.institutionId! };
      const audit = auditContext(request);
      try {
        const { input, report } = await readImport({
          bytes,
          format,
          dryRun: form.dryRun === true,
          ...(form.title ? { title: form.title } : {}),
          assets: contentAssetSink(ctx, scope === 'all' ? null : scope.institutionId, audit),
        });
        if (form.dryRun) return page({ kind: 'checked', fileName: name, report, questions: report.imported }, 200);
        const draft = await createDraftTest(ctx.pool, scope, input as unknown as Record<string, unknown>, audit);
        return page({ kind: 'imported', fileName: name, report, testId: draft.testId, title: input.title }, 201);
      } catch (err) {
        if (err instanceof AppError && ['invalid_request', 'import_failed', 'payload_too_large'].includes(err.code)) {
          return page({ kind: 'error', fileName: name, message: err.message, details: err.details ?? [] }, err.status);
        }
        throw err;
      }
    },
  );
};
