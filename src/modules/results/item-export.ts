import type { Readable } from 'node:stream';
import type { Pool } from '../../platform/db.js';
import { assignmentFilterSql, type AssignmentListFilter } from '../assignments/list-assignments.js';
import { deliver, deliveredSections, type Delivery } from '../catalog/delivery.js';
import { loadTestVersion } from '../catalog/test-versions.js';
import { ASSIGNMENT_COLUMNS, assignmentCells, cursorCsv, timestampCells, type Cell, type AssignmentCellsRow } from './csv-stream.js';
import { PlainTexts, criteriaText, responseCell, responseText, type StoredMarkJson } from './item-responses.js';

/**
 * The responses export: one CSV row per candidate and question, for the
 * assignments the results export would list (the same filters) that have
 * an attempt, in the same order (oldest assignment first), each attempt's
 * questions in the order the candidate saw them (a pool's drawn questions
 * only, parametrised prompts with the candidate's values).
 *
 * Memory: a cursor reads 100 assignments at a time, each row carrying that
 * attempt's answers, marks and file names as JSON; the test versions come
 * from the in-process copy (catalog/test-versions.ts). So at most one
 * batch of attempts is held, whatever the export's length.
 *
 * Texts are the test's own (its authoring language), not a translation a
 * candidate may have read: staff compare candidates question by question.
 */
export const RESPONSE_COLUMNS = [
  ...ASSIGNMENT_COLUMNS,
  'submittedAt',
  'submittedDate',
  'submittedTime',
  'section',
  'questionNumber',
  'questionId',
  'questionType',
  'prompt',
  'response',
  'points',
  'maxPoints',
  'criteria',
  'comment',
] as const;

interface ItemRow extends AssignmentCellsRow {
  test_version_id: string;
  submitted_at: Date | null;
  delivery: Delivery | null;
  answers: Record<string, unknown> | null;
  marks: Record<string, StoredMarkJson> | null;
  files: Record<string, string> | null;
}

/** The export's statement: the listing's filters, assignments with an attempt, oldest first, each with its answers, marks and files. */
export function itemExportQuery(filter: AssignmentListFilter): { text: string; values: unknown[] } {
  const { where, values } = assignmentFilterSql(filter);
  return {
    text: `SELECT a.id, u.external_user_id, u.name, u.email, a.test_id, tv.title, tv.version, a.livemode, a.test_version_id, at.submitted_at, at.delivery,
                  (SELECT jsonb_object_agg(an.question_id, an.value) FROM answers an
                    WHERE an.institution_id = a.institution_id AND an.assignment_id = a.id) AS answers,
                  (SELECT jsonb_object_agg(m.question_id, jsonb_build_object('points', m.points, 'comment', m.comment, 'criteria', m.criteria)) FROM marks m
                    WHERE m.institution_id = a.institution_id AND m.assignment_id = a.id) AS marks,
                  (SELECT jsonb_object_agg(f.id, f.file_name) FROM answer_files f
                    WHERE f.institution_id = a.institution_id AND f.assignment_id = a.id) AS files
             FROM assignments a
             JOIN users u ON u.id = a.user_id
             JOIN test_versions tv ON tv.id = a.test_version_id
             JOIN attempts at ON at.assignment_id = a.id AND at.institution_id = a.institution_id
            WHERE ${where.join(' AND ')}
            ORDER BY a.created_at, a.id`,
    values,
  };
}

/** The export as a stream of CSV text (csv-stream.ts: the first batch is read before it resolves). */
export async function responsesCsv(pool: Pool, filter: AssignmentListFilter, opts: { batch?: number } = {}): Promise<Readable> {
  const plain = new PlainTexts();
  const toRecords = async (r: ItemRow): Promise<Cell[][]> => {
    const version = await loadTestVersion(pool, r.test_version_id);
    const test = deliver(version, r.delivery);
    const sectionOf = new Map(version.sections ? deliveredSections(test).flatMap((s) => s.shownIds.map((id) => [id, s.title] as const)) : []);
    const answers = r.answers ?? {};
    const marks = r.marks ?? {};
    const files = new Map(Object.entries(r.files ?? {}));
    const [submittedAt, submittedDate, submittedTime] = timestampCells(r.submitted_at);
    const format = version.contentFormat;
    return test.questions.map((q, i) => {
      const mark = marks[q.id];
      return [
        ...assignmentCells(r),
        submittedAt,
        submittedDate,
        submittedTime,
        sectionOf.get(q.id) ?? '',
        i + 1,
        q.id,
        q.type,
        plain.prompt(q, format),
        responseCell(responseText(q, answers[q.id] ?? null, files, { texts: plain, format })),
        mark ? Number(mark.points) : '',
        q.points,
        criteriaText(mark),
        mark?.comment ?? '',
      ];
    });
  };
  return cursorCsv<ItemRow>(pool, itemExportQuery(filter), RESPONSE_COLUMNS, toRecords, opts.batch ?? 100);
}
