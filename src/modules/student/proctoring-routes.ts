import type { FastifyError, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncTypebox, TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../platform/context.js';
import { AppError } from '../../platform/errors.js';
import { createRateLimiter } from '../../platform/http/rate-limit.js';
import { errors } from '../../platform/http/schemas.js';
import { sessionOf } from './student-auth.js';
import { notRunning, recordHeartbeat } from '../proctoring/record-heartbeat.js';
import { createHeartbeatCoalescer } from '../proctoring/heartbeat-coalescer.js';
import { presignDirectUpload, recordDirectUpload } from '../proctoring/direct-uploads.js';
import { AssignmentParams, CsrfHeader, DirectUploadBody, DirectUploadRecordBody, DirectUploadRecorded, DirectUploadSigned, HeartbeatBody, HeartbeatResponse, SegmentHeaders, SegmentParams, SegmentStored, SnapshotHeaders, SnapshotStored } from '../proctoring/schemas.js';
import { SEGMENT_MAX_BYTES, storeSegment } from '../proctoring/store-segment.js';
import { SNAPSHOT_MAX_BYTES, storeSnapshot } from '../proctoring/store-snapshot.js';

const hide = { hide: true } as const;

/**
 * Per-session rate limits, in this process's memory (like the partner
 * limiter). Sized for an honest page with headroom for a catch-up after the
 * network comes back: one segment per 10 s and a snapshot a minute in normal
 * use, a queue of 30 segments (5 minutes offline) flushed at once, then one
 * a second. A page beyond that is broken or hostile; it is told when to retry.
 */
const LIMITS = {
  segments: { perSecond: 1, burst: 30 },
  snapshots: { perSecond: 0.2, burst: 10 },
  heartbeats: { perSecond: 2, burst: 20 },
} as const;

/** The raw body; an absent one is empty (and refused as not a file of the right type). */
const bytes = (body: unknown): Buffer => (Buffer.isBuffer(body) ? body : Buffer.alloc(0));

function mb(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${bytes / (1024 * 1024)} MiB` : `${bytes / 1024} KiB`;
}

/**
 * The proctored page's routes, registered inside the student session scope
 * (session cookie and X-CSRF-Token checked before every handler). All three are
 * the page's background traffic (`studentBackground`): they spend their own
 * share of ASSAY_STUDENT_RATE_LIMIT, never the one Begin, saves and Submit use. Answers
 * JSON and the error envelope. Contract: /work/notes/proctoring-contract.md.
 */
export const proctoringStudentRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  const limiters = Object.fromEntries(Object.entries(LIMITS).map(([k, v]) => [k, createRateLimiter(v)])) as Record<keyof typeof LIMITS, ReturnType<typeof createRateLimiter>>;
  function limit(kind: keyof typeof LIMITS, request: FastifyRequest): void {
    // Keyed by the session (its CSRF token is unique to it and stays in memory only).
    const taken = limiters[kind](sessionOf(request).csrfToken);
    if (!taken.allowed) {
      throw new AppError('rate_limited', `Too many ${kind} from this session. Retry after the time in Retry-After.`, undefined, taken.headers);
    }
  }

  // Idle beats are written together every few seconds (heartbeat-coalescer.ts); the last ones when the app closes.
  const coalescer = createHeartbeatCoalescer(ctx, { flushMs: ctx.config.heartbeatFlushMs, notRunning, log: app.log });
  app.addHook('onClose', () => coalescer.stop());

  app.post(
    '/a/:assignmentId/proctoring/heartbeat',
    {
      config: { studentBackground: true },
      schema: { ...hide, params: AssignmentParams, headers: CsrfHeader, body: HeartbeatBody, response: { 200: HeartbeatResponse, ...errors(400, 401, 403, 404, 409, 413, 415, 429) } },
    },
    async (request, reply) => {
      reply.header('cache-control', 'no-store');
      limit('heartbeats', request);
      return recordHeartbeat(ctx, sessionOf(request), request.params.assignmentId, request.body, coalescer);
    },
  );

  // Direct uploads (S3 storage): a presigned PUT for one object, then its record. Only JSON passes through here.
  app.post(
    '/a/:assignmentId/proctoring/uploads',
    {
      config: { studentBackground: true },
      schema: { ...hide, params: AssignmentParams, headers: CsrfHeader, body: DirectUploadBody, response: { 200: DirectUploadSigned, ...errors(400, 401, 403, 404, 409, 413, 429) } },
    },
    async (request, reply) => {
      reply.header('cache-control', 'no-store');
      const b = request.body;
      limit(b.kind === 'segment' ? 'segments' : 'snapshots', request);
      return presignDirectUpload(
        ctx,
        sessionOf(request),
        request.params.assignmentId,
        b.kind === 'segment'
          ? { kind: 'segment', bytes: b.bytes, seq: b.seq, startedAt: new Date(b.startedAt), durationMs: b.durationMs }
          : { kind: 'snapshot', bytes: b.bytes, takenAt: new Date(b.takenAt), flagId: b.flagId ?? null, clientId: b.snapshotId ?? null },
      );
    },
  );

  app.post(
    '/a/:assignmentId/proctoring/uploads/record',
    {
      config: { studentBackground: true },
      schema: { ...hide, params: AssignmentParams, headers: CsrfHeader, body: DirectUploadRecordBody, response: { 200: DirectUploadRecorded, 201: DirectUploadRecorded, ...errors(400, 401, 403, 404, 409, 413, 415, 429) } },
    },
    async (request, reply) => {
      reply.header('cache-control', 'no-store');
      const recorded = await recordDirectUpload(ctx, sessionOf(request), request.params.assignmentId, request.body.key);
      return reply.code(recorded.stored ? 201 : 200).send(recorded);
    },
  );

  // Raw uploads in their own scope: any body is read as bytes (the handler checks the type), and an
  // oversized one is refused naming this route's limit rather than the JSON limit.
  await app.register(async (scope) => {
    const uploads = scope.withTypeProvider<TypeBoxTypeProvider>();
    uploads.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
    uploads.setErrorHandler((err: FastifyError, request) => {
      if (err.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
        const limitBytes = request.routeOptions.bodyLimit ?? 0;
        throw new AppError('payload_too_large', `The upload is larger than the limit of ${mb(limitBytes)} for this route.`);
      }
      throw err;
    });

    uploads.post(
      '/a/:assignmentId/proctoring/segments/:seq',
      {
        bodyLimit: SEGMENT_MAX_BYTES,
        config: { studentBackground: true, uploadTime: true },
        schema: { ...hide, params: SegmentParams, headers: SegmentHeaders, response: { 200: SegmentStored, 201: SegmentStored, ...errors(400, 401, 403, 404, 409, 413, 415, 429) } },
      },
      async (request, reply) => {
        reply.header('cache-control', 'no-store');
        if (!/^video\/webm\s*(;|$)/i.test(request.headers['content-type'] ?? '')) {
          throw new AppError('unsupported_media_type', 'Send the segment as Content-Type: video/webm.');
        }
        limit('segments', request);
        const result = await storeSegment(ctx, sessionOf(request), request.params.assignmentId, {
          seq: request.params.seq,
          body: bytes(request.body),
          startedAt: new Date(request.headers['x-segment-started-at']),
          durationMs: request.headers['x-segment-duration-ms'],
        });
        return reply.code(result.stored ? 201 : 200).send(result);
      },
    );

    uploads.post(
      '/a/:assignmentId/proctoring/snapshots',
      {
        bodyLimit: SNAPSHOT_MAX_BYTES,
        config: { studentBackground: true, uploadTime: true },
        schema: { ...hide, params: AssignmentParams, headers: SnapshotHeaders, response: { 200: SnapshotStored, 201: SnapshotStored, ...errors(400, 401, 403, 404, 409, 413, 415, 429) } },
      },
      async (request, reply) => {
        reply.header('cache-control', 'no-store');
        if (!/^image\/jpeg\s*(;|$)/i.test(request.headers['content-type'] ?? '')) {
          throw new AppError('unsupported_media_type', 'Send the snapshot as Content-Type: image/jpeg.');
        }
        limit('snapshots', request);
        const result = await storeSnapshot(ctx, sessionOf(request), request.params.assignmentId, {
          body: bytes(request.body),
          takenAt: new Date(request.headers['x-snapshot-taken-at']),
          flagId: request.headers['x-flag-id'] ?? null,
          clientId: request.headers['x-snapshot-id'] ?? null,
        });
        return reply.code(result.created ? 201 : 200).send({ snapshotId: result.snapshotId });
      },
    );
  });
};
