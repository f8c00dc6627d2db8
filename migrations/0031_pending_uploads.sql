-- Direct uploads (S3 storage): the browser PUTs a proctoring segment or
-- snapshot straight to the bucket with a presigned request, then asks the
-- API to record it (src/modules/proctoring/direct-uploads.ts). Each
-- presigned request is recorded here first, in the transaction that signs
-- it, so an object the browser put but never recorded (a closed tab, a lost
-- network) is found by the worker's sweep after expires_at: recorded if it
-- passes the checks, deleted otherwise. The row goes when the upload is
-- recorded or swept.
CREATE TABLE pending_uploads (
  storage_key    text PRIMARY KEY,
  institution_id text NOT NULL REFERENCES institutions (id) ON DELETE CASCADE,
  assignment_id  text NOT NULL REFERENCES attempts (assignment_id) ON DELETE CASCADE,
  kind           text NOT NULL CHECK (kind IN ('segment', 'snapshot')),
  declared_bytes integer NOT NULL CHECK (declared_bytes > 0),
  content_type   text NOT NULL,
  -- What the through-API upload sends as headers: seq, startedAt and durationMs; or takenAt, flagId and clientId.
  meta           jsonb NOT NULL,
  created_at     timestamptz NOT NULL,
  expires_at     timestamptz NOT NULL
);

CREATE INDEX pending_uploads_expiry ON pending_uploads (expires_at);
CREATE INDEX pending_uploads_assignment ON pending_uploads (assignment_id);
