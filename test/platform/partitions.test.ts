import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import { createPool, type Pool } from '../../src/platform/db.js';
import { MIGRATIONS_DIR, migrate } from '../../src/platform/migrate.js';
import { randomBase62 } from '../../src/platform/ids.js';
import { listPartitions, maintainPartitions } from '../../src/platform/partitions.js';
import { listEvents } from '../../src/modules/events/list-events.js';
import { purgeOldEvents } from '../../src/modules/events/purge-events.js';
import { listAudit } from '../../src/modules/staff/audit.js';

/**
 * The history tables' partitioning (migrations 0032–0035) applied to a
 * database that already holds rows, then the monthly maintenance and the
 * retention by dropped partitions. One database for the file, migrated up to
 * 0031, seeded, then migrated to the end: the cases run in order on it.
 */
const FIRST = '0032';
let name: string;
let pool: Pool;
let tmp: string;
const admin = () => new pg.Client({ connectionString: inject('adminDatabaseUrl') });
const DAY = 24 * 3600_000;
const now = new Date();

async function tableOf(table: string, where: string, params: unknown[]): Promise<string[]> {
  const { rows } = await pool.query<{ t: string }>(`SELECT tableoid::regclass::text AS t FROM ${table} WHERE ${where}`, params);
  return rows.map((r) => r.t);
}

async function insertEvent(id: string, at: Date): Promise<void> {
  await pool.query(`INSERT INTO events (id, institution_id, type, data, data_json, created_at) VALUES ($1, 'ins_p', 't', '{}', '{}', $2)`, [id, at]);
}

beforeAll(async () => {
  name = `assay_p_${randomBase62(10).toLowerCase()}`;
  const c = admin();
  await c.connect();
  await c.query(`CREATE DATABASE ${name}`);
  await c.end();
  const u = new URL(inject('adminDatabaseUrl'));
  u.pathname = `/${name}`;
  pool = createPool(u.toString(), 3);
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'assay-partitions-'));
  for (const f of fs.readdirSync(MIGRATIONS_DIR)) if (f < FIRST) fs.copyFileSync(path.join(MIGRATIONS_DIR, f), path.join(tmp, f));
  await migrate(pool, { dir: tmp });
  // Rows written before partitioning: 30 events over the last 20 days, a delivery with an
  // attempt for each, one of them created by a redelivery a day after its event, and 30 audit entries.
  await pool.query(`
    INSERT INTO institutions (id, name, created_at) VALUES ('ins_p', 'P', now());
    INSERT INTO webhook_endpoints (id, institution_id, url, status, secret_enc, created_at, updated_at)
      VALUES ('whe_p', 'ins_p', 'https://p.example/h', 'enabled', 'x', now(), now());
    INSERT INTO events (id, institution_id, type, data, data_json, created_at)
      SELECT 'evt_old' || lpad(g::text, 2, '0'), 'ins_p', 'assignment.submitted', '{}', '{}', now() - g * interval '16 hours' FROM generate_series(1, 30) g;
    INSERT INTO webhook_deliveries (institution_id, event_id, endpoint_id, status, created_at, updated_at)
      SELECT institution_id, id, 'whe_p', 'succeeded', created_at + CASE WHEN id = 'evt_old07' THEN interval '1 day' ELSE interval '0' END, now() FROM events;
    INSERT INTO webhook_attempts (delivery_id, institution_id, attempted_at, status_code, duration_ms)
      SELECT id, institution_id, created_at, 200, 5 FROM webhook_deliveries;
    INSERT INTO audit_log (at, institution_id, actor_kind, action, object_type)
      SELECT now() - g * interval '1 hour', 'ins_p', 'cli', 'x.update', 'x' FROM generate_series(1, 30) g;`);
  await migrate(pool);
});

afterAll(async () => {
  await pool?.end();
  fs.rmSync(tmp, { recursive: true, force: true });
  const c = admin();
  await c.connect();
  await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await c.end();
});

describe('partitioned history', () => {
  it('turns each history table into a partitioned table whose first partition holds every existing row', async () => {
    const { rows } = await pool.query<{ t: string }>(`SELECT partrelid::regclass::text AS t FROM pg_partitioned_table ORDER BY 1`);
    expect(rows.map((r) => r.t)).toEqual(['audit_log', 'events', 'webhook_attempts', 'webhook_deliveries']);
    for (const table of ['events', 'webhook_deliveries', 'webhook_attempts', 'audit_log']) {
      const { rows: counts } = await pool.query<{ t: string; n: number }>(`SELECT tableoid::regclass::text AS t, count(*)::int AS n FROM ${table} GROUP BY 1`);
      expect(counts).toEqual([{ t: `${table}_legacy`, n: 30 }]);
    }
    // The delivery a redelivery created a day late now carries its event's time.
    const { rows: late } = await pool.query(`SELECT d.created_at = e.created_at AS same FROM webhook_deliveries d JOIN events e ON e.id = d.event_id WHERE e.id = 'evt_old07'`);
    expect(late).toEqual([{ same: true }]);
  });

  it('keeps the events listing and its cursor pagination over the converted rows', async () => {
    const seen: string[] = [];
    let startingAfter: string | undefined;
    for (;;) {
      const page = await listEvents(pool, { institutionId: 'ins_p', livemode: true, limit: 7, startingAfter, now });
      const ids = page.data.map((d) => (JSON.parse(d) as { id: string }).id);
      seen.push(...ids);
      if (!page.hasMore) break;
      startingAfter = ids[ids.length - 1];
    }
    expect(seen).toEqual(Array.from({ length: 30 }, (_, i) => `evt_old${String(i + 1).padStart(2, '0')}`));
  });

  it('keeps the audit log pages over the converted rows', async () => {
    const first = await listAudit(pool, { institutionId: 'ins_p', limit: 20 });
    const second = await listAudit(pool, { institutionId: 'ins_p', limit: 20, before: first.nextBefore });
    expect(first.data).toHaveLength(20);
    expect(second.data).toHaveLength(10);
    expect(second.nextBefore).toBeNull();
  });

  it('deletes an event with its deliveries and their attempts, as the foreign keys did', async () => {
    await pool.query(`DELETE FROM events WHERE id = 'evt_old03'`);
    const { rows } = await pool.query(
      `SELECT (SELECT count(*)::int FROM webhook_deliveries WHERE event_id = 'evt_old03') AS d,
              (SELECT count(*)::int FROM webhook_attempts a WHERE NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.id = a.delivery_id)) AS orphans,
              (SELECT count(*)::int FROM webhook_attempts) AS attempts`,
    );
    expect(rows).toEqual([{ d: 0, orphans: 0, attempts: 29 }]);
  });

  it('makes the partitions ahead, and puts a row of a new month in that month', async () => {
    const { rows } = await pool.query<{ b: Date }>(`SELECT legacy_boundary AS b FROM partition_plans WHERE parent = 'events'`);
    const boundary = rows[0]!.b;
    const { created } = await maintainPartitions(pool, boundary);
    const month = (d: Date, plus: number) => new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + plus, 1));
    const tag = (d: Date) => `${d.getUTCFullYear()}_${String(d.getUTCMonth() + 1).padStart(2, '0')}`;
    // The migration made the boundary's month; the maintenance the next three, for all four tables.
    expect(created).toContain(`events_p${tag(month(boundary, 3))}`);
    expect(created).toContain(`audit_log_p${tag(month(boundary, 3))}`);
    await insertEvent('evt_new_month', new Date(month(boundary, 2).getTime() + 3 * DAY));
    expect(await tableOf('events', 'id = $1', ['evt_new_month'])).toEqual([`events_p${tag(month(boundary, 2))}`]);
  });

  it('moves a row that landed in DEFAULT into its month once the maintenance makes the partition', async () => {
    const far = new Date(Date.UTC(now.getUTCFullYear() + 3, 5, 15));
    await insertEvent('evt_far', far);
    expect(await tableOf('events', 'id = $1', ['evt_far'])).toEqual(['events_default']);
    const { movedRows } = await maintainPartitions(pool, now);
    expect(movedRows).toBe(1);
    expect(await tableOf('events', 'id = $1', ['evt_far'])).toEqual([`events_p${far.getUTCFullYear()}_06`]);
    expect((await pool.query('SELECT count(*)::int AS n FROM events_default')).rows[0].n).toBe(0);
  });

  it('drops the partitions wholly past the 30-day retention and keeps the younger ones with their rows', async () => {
    const { rows } = await pool.query<{ b: Date }>(`SELECT legacy_boundary AS b FROM partition_plans WHERE parent = 'events'`);
    const boundary = rows[0]!.b;
    // 30 days after the end of the boundary's month, plus a day: the legacy partition and the boundary's month are past.
    const later = new Date(Date.UTC(boundary.getUTCFullYear(), boundary.getUTCMonth() + 1, 1) + 31 * DAY);
    await insertEvent('evt_young', new Date(later.getTime() - 2 * DAY));
    const dropped = await purgeOldEvents(pool, later);
    expect(dropped).toContain('events_legacy');
    expect(dropped).toContain('webhook_deliveries_legacy');
    expect(dropped).toContain('webhook_attempts_legacy');
    const names = (await listPartitions(pool, 'events')).map((p) => p.name);
    expect(names).not.toContain('events_legacy');
    const { rows: left } = await pool.query<{ id: string }>(`SELECT id FROM events ORDER BY id`);
    expect(left.map((r) => r.id)).toEqual(['evt_far', 'evt_new_month', 'evt_young']);
    // The sequence of a serial id outlives the partition that once owned it.
    await pool.query(`INSERT INTO webhook_deliveries (institution_id, event_id, endpoint_id, status, created_at, updated_at) VALUES ('ins_p', 'evt_young', 'whe_p', 'pending', $1, $1)`, [later]);
  });
});
