import { Type } from '@sinclair/typebox';
import type { FastifyError } from 'fastify';
import type { FastifyPluginAsyncTypebox, TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../../platform/context.js';
import { AppError } from '../../../platform/errors.js';
import { errors } from '../../../platform/http/schemas.js';
import { operatorTokenAudit } from '../../staff/audit.js';
import { contentAssetSink } from './asset-sink.js';
import { exportTest, formatOf, IMPORT_MAX_BYTES, importTest } from './import-service.js';
import { readOrPrimary } from '../../../platform/read-replica.js';

const Skipped = Type.Object({ file: Type.String(), identifier: Type.String(), interaction: Type.String(), reason: Type.String() }, { title: 'ImportSkippedItem' });
const Report = Type.Object(
  {
    imported: Type.Integer({ description: 'Questions imported' }),
    skipped: Type.Array(Skipped, { description: 'Each item not imported, with why' }),
    items: Type.Array(
      Type.Object({ file: Type.String(), identifier: Type.String(), title: Type.String(), questionId: Type.Union([Type.String(), Type.Null()]), type: Type.String() }),
      { description: 'Each imported item: the question it became' },
    ),
    notes: Type.Array(Type.String(), { description: 'Harmless content left out (feedback, stylesheets, catalogs…)' }),
  },
  { title: 'ImportReport' },
);
const Imported = Type.Object({ testId: Type.String(), version: Type.Integer(), report: Report }, { title: 'ImportResult' });
const DryRun = Type.Object(
  {
    dryRun: Type.Literal(true),
    testId: Type.Null(),
    version: Type.Null(),
    report: Report,
    test: Type.Unsafe<Record<string, unknown>>({ type: 'object', additionalProperties: true, description: 'The test body that would be created (POST /tests format)' }),
  },
  { title: 'ImportDryRun' },
);
const ImportQuery = Type.Object(
  {
    dryRun: Type.Optional(Type.Boolean({ default: false, description: 'Answer the report; create nothing' })),
    title: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: "The test's title (default: the package's, or \"Imported questions\" for a CSV)" })),
  },
  { additionalProperties: false },
);
const ExportParams = Type.Object({ testId: Type.String({ maxLength: 64 }) });
const ExportQuery = Type.Object({ format: Type.Literal('qti3', { description: 'qti3: a QTI 3.0 content package' }) }, { additionalProperties: false });

const mb = (n: number) => `${Math.round(n / 1024 / 1024)} MB`;

/** Import (QTI packages, CSV) and export (QTI 3.0) of tests: docs/import-export.md. */
export const interchangeAdminRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.get(
    '/tests/:testId/export',
    {
      schema: {
        tags: ['Tests'],
        operationId: 'exportTest',
        summary: 'Export the current version as a QTI 3.0 content package (application/zip)',
        params: ExportParams,
        querystring: ExportQuery,
        response: {
          200: { description: 'A QTI 3.0 content package', content: { 'application/zip': { schema: Type.Unsafe<Buffer>({ type: 'string', format: 'binary' }) } } },
          ...errors(400, 401, 404),
        },
      },
    },
    async (request, reply) => {
      // An export may be a little behind: the read replica's, within its bound (platform/read-replica.ts).
      const zip = await readOrPrimary(ctx, (pool) => exportTest({ ...ctx, pool }, request.params.testId));
      return reply
        .header('content-type', 'application/zip')
        .header('content-disposition', `attachment; filename="${request.params.testId.replace(/[^A-Za-z0-9_-]/g, '')}-qti3.zip"`)
        .header('cache-control', 'no-store')
        .send(Buffer.from(zip));
    },
  );

  // The body is a package or a CSV, read as bytes in this scope only: the rest of the API keeps JSON and its 64 KB limit.
  await app.register(async (scope) => {
    const raw = scope.withTypeProvider<TypeBoxTypeProvider>();
    // Any type is read as bytes here, so a wrong one is answered by the media-type check naming the types this route takes.
    raw.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: IMPORT_MAX_BYTES }, (_r, body, done) => done(null, body));
    raw.setErrorHandler((err: FastifyError) => {
      if (err.code === 'FST_ERR_CTP_BODY_TOO_LARGE') throw new AppError('payload_too_large', `The import is larger than the limit of ${mb(IMPORT_MAX_BYTES)}.`);
      throw err;
    });
    raw.post(
      '/tests/import',
      {
        bodyLimit: IMPORT_MAX_BYTES,
        config: { uploadTime: true },
        schema: {
          tags: ['Tests'],
          operationId: 'importTest',
          summary: 'Import a test from a QTI 3.0 or 2.1/2.2 content package (application/zip) or a CSV (text/csv)',
          consumes: ['application/zip', 'application/x-zip-compressed', 'text/csv'],
          // The bytes of the package or CSV (read by this scope's parser, checked by the import itself).
          body: Type.Unsafe<Buffer>({ format: 'binary', description: 'A QTI content package (application/zip) or a CSV (text/csv): bytes, not JSON' }),
          querystring: ImportQuery,
          response: { 200: DryRun, 201: Imported, ...errors(400, 401, 413, 415, 422) },
        },
      },
      async (request, reply) => {
        const format = formatOf(request.headers['content-type']);
        if (!format) throw new AppError('unsupported_media_type', 'Send a QTI package as Content-Type: application/zip, or a CSV as Content-Type: text/csv.');
        if (!Buffer.isBuffer(request.body) || request.body.length === 0) throw new AppError('invalid_request', 'The body is empty: send the package or the CSV.', [{ field: 'body', message: 'is empty' }]);
        const result = await importTest(ctx.pool, {
          bytes: request.body,
          format,
          dryRun: request.query.dryRun ?? false,
          ...(request.query.title ? { title: request.query.title } : {}),
          audit: operatorTokenAudit(request.ip),
          // An operator's import: its images become the platform's assets.
          assets: contentAssetSink(ctx, null, operatorTokenAudit(request.ip)),
        });
        if (result.dryRun) return reply.status(200).send(result);
        return reply.status(201).send({ testId: result.testId, version: result.version, report: result.report });
      },
    );
  });
};
