-- Metadata and event data exactly as written. jsonb keeps its own key order
-- (by length, then bytes), so a partner's metadata read back from it comes
-- out reordered. The text columns keep the compact JSON as the partner sent
-- it (assignments) and the exact event data (events), which the read API, the
-- events API and the webhook bodies echo; the jsonb columns stay for queries.
-- Rows written before this migration have NULL and fall back to the jsonb.
ALTER TABLE assignments ADD COLUMN metadata_json text;
ALTER TABLE events ADD COLUMN data_json text;
