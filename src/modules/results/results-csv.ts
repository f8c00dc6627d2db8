import type { Readable } from 'node:stream';
import type { Pool } from '../../platform/db.js';
import { assignmentFilterSql, type AssignmentListFilter } from '../assignments/list-assignments.js';
import { ASSIGNMENT_COLUMNS, assignmentCells, cursorCsv, timestampCells, type Cell, type AssignmentCellsRow } from './csv-stream.js';

/**
 * The results export: one CSV row per assignment of an institution, with the
 * Assignments page's filters, streamed from a server-side cursor, 1,000 rows
 * at a time (csv-stream.ts: the byte order mark, quoting, formula injection).
 *
 * Columns (docs/results.md): the partner's ids, the candidate's name and
 * email (as the partner last sent them), the test, the version, the status
 * and timestamps (ISO 8601, then each as a date and a time a spreadsheet
 * reads), the score, then one column per section and the proctoring flags
 * by severity and review outcome. Existing columns keep their names and
 * order; added ones stand beside their kind. Sections: filtered to
 * one test, a column `section: <title> (%)` per section title of its
 * versions; otherwise one column `sections` holding `title: percent`
 * pairs joined by `; ` (tests differ in their sections).
 */
/** The moments each row has, in column order. */
const TIMESTAMPS = ['created', 'started', 'submitted', 'completed', 'due'] as const;
const FIXED_COLUMNS = [
  ...ASSIGNMENT_COLUMNS,
  'status',
  'createdAt',
  'startedAt',
  'submittedAt',
  'completedAt',
  'dueAt',
  ...TIMESTAMPS.flatMap((t) => [`${t}Date`, `${t}Time`]),
  'points',
  'maxPoints',
  'percent',
  'passed',
  'gradingStatus',
] as const;
const FLAG_COLUMNS = ['flagsInfo', 'flagsWarning', 'flagsCritical', 'flagsConfirmed', 'flagsDismissed'] as const;

interface ExportRow extends AssignmentCellsRow {
  status: string;
  created_at: Date;
  started_at: Date | null;
  submitted_at: Date | null;
  completed_at: Date | null;
  due_at: Date | null;
  score: { points: number; maxPoints: number; percent: number; passed: boolean | null; gradingStatus: string; sections?: Array<{ title: string; percent: number }> } | null;
  info: number;
  warning: number;
  critical: number;
  confirmed: number;
  dismissed: number;
}

/** The export's statement: the listing's filters (list-assignments.ts), oldest first, flag counts per row. */
export function exportQuery(filter: AssignmentListFilter): { text: string; values: unknown[] } {
  const { where, values } = assignmentFilterSql(filter);
  return {
    text: `SELECT a.id, u.external_user_id, u.name, u.email, a.test_id, tv.title, tv.version, a.livemode, a.status, a.created_at, a.started_at, a.submitted_at,
                  a.completed_at, a.due_at, a.score, f.info, f.warning, f.critical, f.confirmed, f.dismissed
             FROM assignments a
             JOIN users u ON u.id = a.user_id
             JOIN test_versions tv ON tv.id = a.test_version_id
             CROSS JOIN LATERAL (
               SELECT count(*) FILTER (WHERE pf.severity = 'info')::int AS info,
                      count(*) FILTER (WHERE pf.severity = 'warning')::int AS warning,
                      count(*) FILTER (WHERE pf.severity = 'critical')::int AS critical,
                      count(*) FILTER (WHERE pf.review_outcome = 'confirmed')::int AS confirmed,
                      count(*) FILTER (WHERE pf.review_outcome = 'dismissed')::int AS dismissed
                 FROM proctoring_flags pf WHERE pf.institution_id = a.institution_id AND pf.assignment_id = a.id) f
            WHERE ${where.join(' AND ')}
            ORDER BY a.created_at, a.id`,
    values,
  };
}

/** The section titles of a test's versions, newest version's first, each once. */
async function sectionTitles(pool: Pool, testId: string): Promise<string[]> {
  const { rows } = await pool.query<{ title: string }>(
    `SELECT s->>'title' AS title, min(tv.version * -1000 + ord) AS at
       FROM test_versions tv CROSS JOIN LATERAL jsonb_array_elements(tv.sections) WITH ORDINALITY AS x(s, ord)
      WHERE tv.test_id = $1 AND tv.sections IS NOT NULL AND NOT tv.trial
      GROUP BY 1 ORDER BY at`,
    [testId],
  );
  return rows.map((r) => r.title);
}

/** The export as a stream of CSV text (csv-stream.ts: the first batch is read before it resolves). */
export async function resultsCsv(pool: Pool, filter: AssignmentListFilter, opts: { batch?: number } = {}): Promise<Readable> {
  const perSection = filter.testId ? await sectionTitles(pool, filter.testId) : null;
  const header = [...FIXED_COLUMNS, ...(perSection ? perSection.map((t) => `section: ${t} (%)`) : ['sections']), ...FLAG_COLUMNS];
  const { text, values } = exportQuery(filter);
  const batch = opts.batch ?? 1_000;

  const toRecord = (r: ExportRow): Cell[] => {
    const s = r.score;
    const sections = s?.sections ?? [];
    const sectionCells = perSection
      ? perSection.map((title) => {
          const found = sections.find((x) => x.title === title);
          return found ? found.percent : '';
        })
      : [sections.map((x) => `${x.title}: ${x.percent}`).join('; ')];
    const moments = [r.created_at, r.started_at, r.submitted_at, r.completed_at, r.due_at].map(timestampCells);
    return [
      ...assignmentCells(r),
      r.status,
      ...moments.map((m) => m[0]),
      ...moments.flatMap((m) => [m[1], m[2]]),
      s ? s.points : '',
      s ? s.maxPoints : '',
      s ? s.percent : '',
      s?.passed === true ? 'true' : s?.passed === false ? 'false' : '',
      s ? s.gradingStatus : '',
      ...sectionCells,
      r.info,
      r.warning,
      r.critical,
      r.confirmed,
      r.dismissed,
    ];
  };

  return cursorCsv<ExportRow>(pool, { text, values }, header, (r) => [toRecord(r)], batch);
}
