import { Readable, pipeline } from 'node:stream';
import { stringify } from 'csv-stringify';
import Cursor from 'pg-cursor';
import type { Pool } from '../../platform/db.js';
import { assignmentFilterSql, type AssignmentListFilter } from '../assignments/list-assignments.js';

/**
 * The results export: one CSV row per assignment of an institution, with the
 * Assignments page's filters, streamed from a server-side cursor (1,000 rows
 * at a time, with back-pressure: a slow reader holds the cursor, not the
 * rows in memory) through csv-stringify (RFC 4180 quoting: a field with a
 * comma, quote or line break is quoted, quotes doubled).
 *
 * Columns (docs/results.md): the partner's ids, the test, the version, the
 * status and timestamps, the score, then one column per section and the
 * proctoring flags by severity and review outcome. Sections: filtered to
 * one test, a column `section: <title> (%)` per section title of its
 * versions; otherwise one column `sections` holding `title: percent`
 * pairs joined by `; ` (tests differ in their sections).
 *
 * Formula injection: a text field that starts with `=`, `+`, `-`, `@`, a
 * tab or a carriage return is prefixed with `'`, so a spreadsheet shows it
 * as text instead of running it (OWASP's advice); numbers are written as
 * numbers.
 */
const FIXED_COLUMNS = [
  'assignmentId',
  'externalUserId',
  'testId',
  'testTitle',
  'version',
  'livemode',
  'status',
  'createdAt',
  'startedAt',
  'submittedAt',
  'completedAt',
  'dueAt',
  'points',
  'maxPoints',
  'percent',
  'passed',
  'gradingStatus',
] as const;
const FLAG_COLUMNS = ['flagsInfo', 'flagsWarning', 'flagsCritical', 'flagsConfirmed', 'flagsDismissed'] as const;

const DANGEROUS = /^[=+\-@\t\r]/;

/** A text cell as a spreadsheet will read it: formulas neutralised. */
export function safeCell(value: string): string {
  return DANGEROUS.test(value) ? `'${value}` : value;
}

interface ExportRow {
  id: string;
  external_user_id: string;
  test_id: string;
  title: string;
  version: number;
  livemode: boolean;
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
    text: `SELECT a.id, u.external_user_id, a.test_id, tv.title, tv.version, a.livemode, a.status, a.created_at, a.started_at, a.submitted_at,
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

const iso = (d: Date | null) => (d ? d.toISOString() : '');

/**
 * The export as a stream of CSV text. The cursor's connection is held while
 * the stream is read and given back when it ends, fails or is abandoned.
 */
export async function resultsCsv(pool: Pool, filter: AssignmentListFilter, opts: { batch?: number } = {}): Promise<Readable> {
  const perSection = filter.testId ? await sectionTitles(pool, filter.testId) : null;
  const header = [...FIXED_COLUMNS, ...(perSection ? perSection.map((t) => `section: ${t} (%)`) : ['sections']), ...FLAG_COLUMNS];
  const { text, values } = exportQuery(filter);
  const batch = opts.batch ?? 1_000;

  const toRecord = (r: ExportRow): Array<string | number> => {
    const s = r.score;
    const sections = s?.sections ?? [];
    const sectionCells = perSection
      ? perSection.map((title) => {
          const found = sections.find((x) => x.title === title);
          return found ? found.percent : '';
        })
      : [sections.map((x) => `${x.title}: ${x.percent}`).join('; ')];
    return [
      r.id,
      r.external_user_id,
      r.test_id,
      r.title,
      r.version,
      r.livemode ? 'true' : 'false',
      r.status,
      iso(r.created_at),
      iso(r.started_at),
      iso(r.submitted_at),
      iso(r.completed_at),
      iso(r.due_at),
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
    ].map((v) => (typeof v === 'string' ? safeCell(v) : v));
  };

  // The first batch is read before the response starts, so a failing statement is an error response, not a cut file.
  const client = await pool.connect();
  const cursor = client.query(new Cursor<ExportRow>(text, values));
  let first: ExportRow[];
  try {
    first = await cursor.read(batch);
  } catch (err) {
    await cursor.close().catch(() => undefined);
    client.release(true);
    throw err;
  }

  async function* records(): AsyncGenerator<Array<string | number>> {
    let failed = false;
    try {
      yield header.map(safeCell);
      for (let rows = first; rows.length > 0; rows = await cursor.read(batch)) {
        for (const r of rows) yield toRecord(r);
      }
    } catch (err) {
      failed = true;
      throw err;
    } finally {
      // An abandoned or failed read closes its cursor before the connection goes back to the pool.
      await cursor.close().catch(() => (failed = true));
      client.release(failed ? true : undefined);
    }
  }

  const out = stringify({ eof: true, record_delimiter: '\r\n' });
  // pipeline, not pipe: a reader that goes away destroys the source too, which closes the cursor.
  pipeline(Readable.from(records(), { objectMode: true, highWaterMark: 64 }), out, () => undefined);
  return out;
}
