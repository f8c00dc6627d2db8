-- The metrics' "attempts under way" gauge counts unsubmitted attempts on
-- every scrape; this keeps that count to the attempts actually open instead
-- of a scan of every attempt ever taken.
CREATE INDEX attempts_active ON attempts (assignment_id) WHERE submitted_at IS NULL;
