-- Direct uploads of answer files (S3 storage): the browser PUTs a
-- file_upload question's file straight to the bucket with a presigned
-- request and asks the API to record it, as for proctoring pieces
-- (src/modules/attempts/direct-answer-files.ts). Its intent is a row of
-- pending_uploads with this kind; meta holds the question, the file's id,
-- name, claimed type, answer version and the SHA-256 the browser signed.
-- Existing rows are segments and snapshots and stay valid.
ALTER TABLE pending_uploads DROP CONSTRAINT pending_uploads_kind_check;
ALTER TABLE pending_uploads ADD CONSTRAINT pending_uploads_kind_check CHECK (kind IN ('segment', 'snapshot', 'answer_file'));
