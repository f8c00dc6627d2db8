import { Type } from '@sinclair/typebox';
import { Nullable, NullableTimestamp, StringEnum, Timestamp } from '../../platform/http/schemas.js';
import { FLAG_KINDS, REVIEW_OUTCOMES, SEVERITIES, SIGNAL_KINDS } from './rules.js';
import { REVIEW_STATUSES } from '../assignments/proctoring-summary.js';
import { PROCTORED_MODES, PROCTORING_MODES } from '../catalog/test-settings.js';

/** Schemas of the proctoring routes: the student side (hidden), the operator and partner reads, the review. */

export const AssignmentParams = Type.Object({ assignmentId: Type.String({ maxLength: 64 }) });
export const SegmentParams = Type.Object({ assignmentId: Type.String({ maxLength: 64 }), seq: Type.Integer({ minimum: 0, maximum: 99_999 }) });

const Iso = Type.String({ format: 'date-time', maxLength: 40 });

export const SegmentHeaders = Type.Object({
  'x-csrf-token': Type.Optional(Type.String({ maxLength: 200 })),
  'x-segment-started-at': Iso,
  'x-segment-duration-ms': Type.Integer({ minimum: 0, maximum: 3_600_000 }),
});

export const SnapshotHeaders = Type.Object({
  'x-csrf-token': Type.Optional(Type.String({ maxLength: 200 })),
  'x-snapshot-taken-at': Iso,
  'x-flag-id': Type.Optional(Type.String({ pattern: '^flg_[0-9A-Za-z]{1,40}$' })),
  'x-snapshot-id': Type.Optional(Type.String({ pattern: '^[A-Za-z0-9_-]{8,64}$' })),
});

/** A direct upload (S3 storage): what the page will PUT, as the through-API upload's headers say it. */
export const DirectUploadBody = Type.Union([
  Type.Object(
    {
      kind: Type.Literal('segment'),
      bytes: Type.Integer({ minimum: 1, maximum: 1024 * 1024 * 1024 }),
      seq: Type.Integer({ minimum: 0, maximum: 99_999 }),
      startedAt: Iso,
      durationMs: Type.Integer({ minimum: 0, maximum: 3_600_000 }),
    },
    { additionalProperties: false },
  ),
  Type.Object(
    {
      kind: Type.Literal('snapshot'),
      bytes: Type.Integer({ minimum: 1, maximum: 1024 * 1024 * 1024 }),
      takenAt: Iso,
      flagId: Type.Optional(Type.String({ pattern: '^flg_[0-9A-Za-z]{1,40}$' })),
      snapshotId: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9_-]{8,64}$' })),
    },
    { additionalProperties: false },
  ),
]);

export const DirectUploadSigned = Type.Object({
  direct: Type.Boolean(),
  key: Type.Optional(Type.String()),
  upload: Type.Optional(Type.Object({ method: Type.Literal('PUT'), url: Type.String(), headers: Type.Record(Type.String(), Type.String()) })),
  expiresAt: Type.Optional(Type.String()),
  seq: Type.Optional(Type.Integer()),
  snapshotId: Type.Optional(Type.String()),
  stored: Type.Optional(Type.Boolean()),
});

export const DirectUploadRecordBody = Type.Object({ key: Type.String({ minLength: 1, maxLength: 512 }) }, { additionalProperties: false });

export const DirectUploadRecorded = Type.Object({
  kind: Type.String(),
  seq: Type.Optional(Type.Integer()),
  snapshotId: Type.Optional(Type.String()),
  stored: Type.Boolean(),
});

export const CsrfHeader = Type.Object({ 'x-csrf-token': Type.Optional(Type.String({ maxLength: 200 })) });

export const SegmentStored = Type.Object({ seq: Type.Integer(), stored: Type.Boolean() });
export const SnapshotStored = Type.Object({ snapshotId: Type.String() });

export const HeartbeatBody = Type.Object(
  {
    signals: Type.Array(
      Type.Object(
        {
          id: Type.String({ pattern: '^[A-Za-z0-9_-]{8,64}$' }),
          kind: StringEnum(SIGNAL_KINDS),
          startedAt: Iso,
          durationSeconds: Type.Number({ minimum: 0, maximum: 86_400 }),
          ongoing: Type.Boolean(),
        },
        { additionalProperties: false },
      ),
      { maxItems: 50 },
    ),
    cameraActive: Type.Boolean(),
    fullscreen: Nullable(Type.Boolean()),
  },
  { additionalProperties: false },
);

export const HeartbeatResponse = Type.Object({
  flags: Type.Array(
    Type.Object({
      signalId: Type.String(),
      flagId: Type.String(),
      severity: StringEnum(SEVERITIES),
      needsEvidence: Type.Boolean({ description: 'Upload a snapshot with X-Flag-Id: the flag is critical and has no evidence yet' }),
    }),
  ),
});

const Review = (withReviewer: boolean) =>
  Nullable(
    Type.Object({
      outcome: StringEnum(REVIEW_OUTCOMES),
      note: Type.String(),
      reviewedAt: Timestamp,
      ...(withReviewer ? { reviewer: Nullable(Type.String()) } : {}),
    }),
    { description: 'Null until a reviewer decides (critical flags only)' },
  );

const Flag = (withReviewer: boolean) =>
  Type.Object(
    {
      id: Type.String({ description: 'flg_…; also violation.id in violation.detected' }),
      kind: StringEnum(FLAG_KINDS),
      severity: StringEnum(SEVERITIES),
      startedAt: Timestamp,
      durationSeconds: Type.Number(),
      ongoing: Type.Boolean({ description: 'The condition was still going on at the last report' }),
      evidence: Type.Object({
        snapshot: Type.Boolean(),
        snapshotId: Nullable(Type.String()),
        url: Nullable(Type.String({ format: 'uri', description: 'Signed, valid until urlsExpireAt' })),
      }),
      review: Review(withReviewer),
    },
    { title: withReviewer ? 'ProctoringFlagForOperators' : 'ProctoringFlag' },
  );

const report = (withReviewer: boolean) =>
  Type.Object(
    {
      assignmentId: Type.String(),
      mode: StringEnum(PROCTORING_MODES),
      rules: Nullable(
        Type.Object({
          noFaceSeconds: Type.Number(),
          multipleFacesSeconds: Type.Number(),
          leftTestSeconds: Type.Number(),
          leftTestCount: Type.Integer(),
          heartbeatTimeoutSeconds: Type.Number(),
        }),
        { description: 'The thresholds applied; null for proctoring none' },
      ),
      summary: Type.Object({
        critical: Type.Integer(),
        warning: Type.Integer(),
        info: Type.Integer(),
        confirmed: Type.Integer(),
        dismissed: Type.Integer(),
        reviewStatus: StringEnum(REVIEW_STATUSES),
      }),
      lastHeartbeatAt: NullableTimestamp,
      purgedAt: Nullable(Timestamp, { description: 'Set when retention deleted the recording, snapshots and flags (the counts remain)' }),
      urlsExpireAt: Timestamp,
      flags: Type.Array(Flag(withReviewer), { description: 'The timeline, by start time' }),
      recording: Type.Object({
        segmentCount: Type.Integer(),
        totalDurationMs: Type.Integer(),
        totalBytes: Type.Integer(),
        segments: Type.Array(
          Type.Object({
            seq: Type.Integer(),
            startedAt: Timestamp,
            receivedAt: Nullable(Timestamp, { description: 'The server’s clock when the upload arrived (startedAt is the page’s); null for segments stored before it was kept' }),
            durationMs: Type.Integer(),
            sizeBytes: Type.Integer(),
            contentType: Type.String(),
            url: Type.String({ format: 'uri', description: 'A playable WebM file; signed, valid until urlsExpireAt' }),
          }),
          { description: 'In seq order; each a complete WebM file' },
        ),
      }),
      snapshots: Type.Array(
        Type.Object({
          snapshotId: Type.String(),
          takenAt: Timestamp,
          receivedAt: Nullable(Timestamp, { description: 'The server’s clock when the upload arrived (takenAt is the page’s); null for snapshots stored before it was kept' }),
          flagId: Nullable(Type.String(), { description: 'The flag it is evidence for, if any' }),
          sizeBytes: Type.Integer(),
          url: Type.String({ format: 'uri' }),
        }),
      ),
    },
    { title: withReviewer ? 'ProctoringReportForOperators' : 'ProctoringReport' },
  );

export const PartnerProctoringReport = report(false);
export const OperatorProctoringReport = report(true);

export const ReviewBody = Type.Object(
  {
    reviews: Type.Array(
      Type.Object(
        {
          flagId: Type.String({ maxLength: 64 }),
          outcome: StringEnum(REVIEW_OUTCOMES),
          note: Type.String({ minLength: 1, maxLength: 2000 }),
        },
        { additionalProperties: false },
      ),
      { minItems: 1, maxItems: 200 },
    ),
    reviewer: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'Who reviewed, for the record (default "operator")' })),
  },
  { additionalProperties: false },
);

