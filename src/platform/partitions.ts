import { withTransaction, type Pool } from './db.js';

/**
 * Monthly range partitions of the history tables (events, webhook_deliveries,
 * webhook_attempts, audit_log; migrations 0032–0035, docs/production.md
 * "Partitioned history"). Months are UTC. The first partition of each table,
 * `<table>_legacy`, is the table as it was before partitioning and covers
 * everything before `partition_plans.legacy_boundary`; then one partition a
 * month, `<table>_pYYYY_MM`; and `<table>_default` catches a row no month
 * covers (a clock far ahead, a maintenance run missed for months), so no
 * insert ever fails for want of a partition.
 *
 * The partitions themselves are made by SQL functions the migration defined
 * (assay_create_partition), so the migration and this job make them alike.
 */

/** How many months ahead of the current one the maintenance keeps partitions ready. */
export const MONTHS_AHEAD = 3;

/** A DETACH or DROP waits at most this long for its lock, then the next run tries again, rather than queueing every reader and writer of the table behind it. */
const LOCK_TIMEOUT = '5s';

interface Plan {
  parent: string;
  key_column: string;
  legacy_boundary: Date;
}

export interface PartitionInfo {
  name: string;
  /** Null for the default partition. */
  from: Date | null;
  to: Date | null;
}

const monthStart = (d: Date, plus = 0) => new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + plus, 1));

async function plans(pool: Pool): Promise<Plan[]> {
  const { rows } = await pool.query<Plan>('SELECT parent, key_column, legacy_boundary FROM partition_plans ORDER BY parent');
  return rows;
}

/** The partitions of `parent` with their bounds (MINVALUE as a null `from`). */
export async function listPartitions(pool: Pool, parent: string): Promise<PartitionInfo[]> {
  const { rows } = await pool.query<{ name: string; bound: string }>(
    `SELECT c.relname AS name, pg_get_expr(c.relpartbound, c.oid) AS bound
       FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
      WHERE i.inhparent = $1::regclass ORDER BY c.relname`,
    [parent],
  );
  return rows.map((r) => {
    const m = /FROM \((?:'([^']+)'|MINVALUE)\) TO \((?:'([^']+)'|MAXVALUE)\)/.exec(r.bound);
    return { name: r.name, from: m?.[1] ? new Date(m[1]) : null, to: m?.[2] ? new Date(m[2]) : null };
  });
}

/**
 * Makes the partitions of the current month and the next MONTHS_AHEAD
 * (those past the legacy partition's range), and moves the rows that landed
 * in a DEFAULT partition into the partition of their month, made for them.
 * Each partition is made in its own transaction. Returns what it did.
 */
export async function maintainPartitions(pool: Pool, now: Date): Promise<{ created: string[]; movedRows: number }> {
  const created: string[] = [];
  let movedRows = 0;
  for (const plan of await plans(pool)) {
    const months = new Set<number>();
    for (let m = 0; m <= MONTHS_AHEAD; m++) months.add(monthStart(now, m).getTime());
    const { rows } = await pool.query<{ month: Date }>(
      `SELECT DISTINCT date_trunc('month', ${ident(plan.key_column)} AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AS month FROM ${ident(plan.parent + '_default')}`,
    );
    for (const r of rows) months.add(r.month.getTime());
    const existing = new Set((await listPartitions(pool, plan.parent)).map((p) => p.name));
    for (const t of [...months].sort()) {
      const from = new Date(t);
      // Before the boundary the legacy partition covers the range (and a row there never reaches DEFAULT).
      if (from < plan.legacy_boundary) continue;
      const name = `${plan.parent}_p${from.getUTCFullYear()}_${String(from.getUTCMonth() + 1).padStart(2, '0')}`;
      if (existing.has(name)) continue;
      const moved = await withTransaction(pool, async (tx) => {
        await tx.query(`SET LOCAL lock_timeout = '${LOCK_TIMEOUT}'`);
        const res = await tx.query<{ n: string }>('SELECT assay_create_partition($1, $2, $3) AS n', [plan.parent, from, monthStart(from, 1)]);
        return Number(res.rows[0]!.n);
      });
      created.push(name);
      movedRows += moved;
    }
  }
  return { created, movedRows };
}

/**
 * Detaches and drops every partition of `parent` whose whole range lies
 * before `cutoff` (the legacy partition included, once its boundary has
 * passed); never the default one, never a partition holding a row at or
 * after the cutoff. Returns the names dropped.
 */
export async function dropPartitionsBefore(pool: Pool, parent: string, cutoff: Date): Promise<string[]> {
  const dropped: string[] = [];
  for (const p of await listPartitions(pool, parent)) {
    if (p.to === null || p.to > cutoff) continue;
    await withTransaction(pool, async (tx) => {
      await tx.query(`SET LOCAL lock_timeout = '${LOCK_TIMEOUT}'`);
      await tx.query(`ALTER TABLE ${ident(parent)} DETACH PARTITION ${ident(p.name)}`);
      await tx.query(`DROP TABLE ${ident(p.name)}`);
    });
    dropped.push(p.name);
  }
  return dropped;
}

/** Table and column names here come from partition_plans and the catalogue, never from a request; quoted all the same. */
function ident(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}
