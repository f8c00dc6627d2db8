import type { Queryable } from '../../platform/db.js';
import type { AssignmentStatus } from '../lifecycle/state-machine.js';

/**
 * Figures for the portal's Overview, per institution. Written so each is an
 * index-only scan (migrations/0007_portal.sql): an institution's history can
 * be most of the table, where a plain GROUP BY would read every row.
 *
 * Live mode only: test-mode assignments (made with `ak_test_` keys) are not
 * real students. The counts stay index-only: the few test-mode rows (purged
 * after 30 days) are counted through their partial index and subtracted.
 */

export async function countAssignmentsByStatus(db: Queryable, institutionId: string): Promise<Map<AssignmentStatus, number>> {
  const [all, test] = await Promise.all([countAllByStatus(db, institutionId), countTestModeByStatus(db, institutionId)]);
  for (const [status, n] of test) {
    const left = (all.get(status) ?? 0) - n;
    if (left > 0) all.set(status, left);
    else all.delete(status);
  }
  return all;
}

async function countTestModeByStatus(db: Queryable, institutionId: string): Promise<Map<AssignmentStatus, number>> {
  const { rows } = await db.query<{ status: AssignmentStatus; n: number }>(
    'SELECT status, count(*)::int AS n FROM assignments WHERE institution_id = $1 AND NOT livemode GROUP BY status',
    [institutionId],
  );
  return new Map(rows.map((r) => [r.status, r.n]));
}

async function countAllByStatus(db: Queryable, institutionId: string): Promise<Map<AssignmentStatus, number>> {
  // The statuses present, found by skipping through the (institution, status) index, then one index-only count each.
  const { rows } = await db.query<{ status: AssignmentStatus; n: number }>(
    `WITH RECURSIVE present AS (
       SELECT min(status) AS status FROM assignments WHERE institution_id = $1
       UNION ALL
       SELECT (SELECT min(a.status) FROM assignments a WHERE a.institution_id = $1 AND a.status > p.status)
         FROM present p WHERE p.status IS NOT NULL)
     SELECT status, (SELECT count(*) FROM assignments a WHERE a.institution_id = $1 AND a.status = present.status)::int AS n
       FROM present WHERE status IS NOT NULL`,
    [institutionId],
  );
  return new Map(rows.map((r) => [r.status, r.n]));
}

/** Completions per UTC day over `days` days ending with `now`'s day, oldest first; days without any count 0. */
export async function completionsPerDay(db: Queryable, institutionId: string, now: Date, days: number): Promise<Array<{ day: string; count: number }>> {
  const { rows } = await db.query<{ day: string; n: number }>(
    `WITH span AS (
       SELECT generate_series(date_trunc('day', $2::timestamptz AT TIME ZONE 'UTC') - make_interval(days => $3 - 1),
                              date_trunc('day', $2::timestamptz AT TIME ZONE 'UTC'), interval '1 day') AS day)
     SELECT to_char(span.day, 'YYYY-MM-DD') AS day, count(a.completed_at)::int AS n
       FROM span LEFT JOIN assignments a
         ON a.institution_id = $1 AND a.completed_at IS NOT NULL AND a.livemode
        AND a.completed_at >= span.day AT TIME ZONE 'UTC' AND a.completed_at < (span.day + interval '1 day') AT TIME ZONE 'UTC'
      GROUP BY span.day ORDER BY span.day`,
    [institutionId, now, days],
  );
  return rows.map((r) => ({ day: r.day, count: r.n }));
}

/**
 * Average final percentage per test over completed live assignments, most
 * taken first, from the item statistics' rollup (migrations/0023_results.sql:
 * one `total` row per test version, n and Σ percent, kept by the
 * `results.roll_up` job when a score becomes final), so it costs the same
 * at 100,000 completed assignments as at ten (it read every completed row
 * before, about 100 ms at 100,000). It follows a completion by the worker's
 * delay, like the statistics.
 */
export async function averageScoreByTest(db: Queryable, institutionId: string): Promise<Array<{ testId: string; completed: number; averagePercent: number | null }>> {
  const { rows } = await db.query<{ test_id: string; n: number; avg: number | null }>(
    `SELECT tv.test_id, sum(r.n)::int AS n, round(sum(r.s1) / NULLIF(sum(r.n), 0), 1) AS avg
       FROM result_rollup r JOIN test_versions tv ON tv.id = r.test_version_id
      WHERE r.institution_id = $1 AND r.kind = 'total'
      GROUP BY tv.test_id ORDER BY sum(r.n) DESC, tv.test_id LIMIT 50`,
    [institutionId],
  );
  return rows.map((r) => ({ testId: r.test_id, completed: r.n, averagePercent: r.avg }));
}
