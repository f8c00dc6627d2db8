-- Seeds :n events (about 250 bytes of data each, a submitted event's) over
-- the last 25 days, a delivery with one attempt for every tenth event (not
-- every institution has an endpoint), and :n / 10 audit entries. Run by bench/partition-conversion.ts on a scratch
-- database migrated up to (not including) the partitioning migrations.
INSERT INTO institutions (id, name, created_at) VALUES ('ins_bench', 'Bench', now()) ON CONFLICT DO NOTHING;
INSERT INTO webhook_endpoints (id, institution_id, url, status, secret_enc, created_at, updated_at)
VALUES ('whe_bench', 'ins_bench', 'https://partner.example/hook', 'enabled', 'x', now(), now()) ON CONFLICT DO NOTHING;
INSERT INTO events (id, institution_id, type, data, data_json, created_at)
SELECT 'evt_' || lpad(g::text, 22, '0'), 'ins_bench', 'assignment.submitted', d::jsonb, d, now() - (g % 2160000) * interval '1 second'
  FROM generate_series(1, :n) g,
       LATERAL (SELECT format('{"assignmentId":"asg_%s","status":"submitted","score":{"points":%s,"maxPoints":20},"metadata":{"cohort":"%s","course":"course-%s"},"sequence":%s,"submittedAt":"2026-11-20T10:00:00Z"}',
                              lpad(g::text, 22, '0'), g % 20, md5(g::text), g % 97, g % 7) AS d) x;
INSERT INTO webhook_deliveries (institution_id, event_id, endpoint_id, status, attempts, created_at, updated_at)
SELECT institution_id, id, 'whe_bench', 'succeeded', 1, created_at, created_at FROM events WHERE right(id, 1) = '0';
INSERT INTO webhook_attempts (delivery_id, institution_id, attempted_at, status_code, duration_ms, response_excerpt)
SELECT id, institution_id, created_at + interval '1 second', 200, 35, 'ok' FROM webhook_deliveries;
INSERT INTO audit_log (at, institution_id, actor_kind, action, object_type, object_id, details)
SELECT now() - (g % 2160000) * interval '1 second', 'ins_bench', 'operator_token', 'webhook_endpoint.update', 'webhook_endpoint', 'whe_bench', '{"field":"url"}'
  FROM generate_series(1, :n / 10) g;
ANALYZE;
