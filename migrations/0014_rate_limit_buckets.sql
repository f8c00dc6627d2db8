-- Per-key token buckets shared by every API process (ASSAY_RATE_LIMIT_STORE=
-- postgres, src/platform/http/rate-limit-store.ts). UNLOGGED: not written to
-- the WAL and emptied by a crash, which only gives every key a full bucket.
-- Updates touch no indexed column, so with free room on the page they are HOT.
CREATE UNLOGGED TABLE rate_limit_buckets (
  key        text PRIMARY KEY,
  tokens     double precision NOT NULL,
  allowed    boolean NOT NULL,
  updated_at timestamptz NOT NULL
) WITH (fillfactor = 50);
