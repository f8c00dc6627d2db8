import { Readable, pipeline } from 'node:stream';
import { stringify } from 'csv-stringify';
import Cursor from 'pg-cursor';
import type { Pool } from '../../platform/db.js';

/**
 * What every CSV export shares: a statement read through a server-side
 * cursor (`batch` rows at a time, with back-pressure: a slow reader holds
 * the cursor, not the rows in memory), each row turned into one or more
 * records, written by csv-stringify (RFC 4180 quoting: a field with a comma,
 * quote or line break is quoted, quotes doubled; CRLF line ends) after a
 * UTF-8 byte order mark, which is what makes Excel read the file as UTF-8
 * rather than the machine's code page (names and titles in any script).
 *
 * Formula injection: a text cell that starts with `=`, `+`, `-`, `@`, a tab
 * or a carriage return is prefixed with `'`, so a spreadsheet shows it as
 * text instead of running it (OWASP's advice); numbers are written as
 * numbers.
 */
export type Cell = string | number;

const DANGEROUS = /^[=+\-@\t\r]/;

/** A text cell as a spreadsheet will read it: formulas neutralised. */
export function safeCell(value: string): string {
  return DANGEROUS.test(value) ? `'${value}` : value;
}

const pad = (n: number) => String(n).padStart(2, '0');

/**
 * A timestamp three ways: ISO 8601 in UTC (`2026-03-02T09:00:00.000Z`, for
 * programs, as the export always wrote it), then its UTC date
 * (`2026-03-02`) and time of day (`09:00:00`) as separate cells, which
 * Excel, LibreOffice and Google Sheets all read as a date and a time (none
 * of them reads the ISO form with its `T` and `Z` as a date). Empty cells
 * for a moment not reached.
 */
export function timestampCells(d: Date | null): [string, string, string] {
  if (!d) return ['', '', ''];
  return [
    d.toISOString(),
    `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`,
    `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`,
  ];
}

/**
 * The rows of `query` as a stream of CSV text with `header` first. The
 * first batch is read before this resolves, so a failing statement is an
 * error response, not a cut file. The cursor's connection is held while the
 * stream is read and given back when it ends, fails or is abandoned.
 */
export async function cursorCsv<R>(
  pool: Pool,
  query: { text: string; values: unknown[] },
  header: readonly string[],
  toRecords: (row: R) => Iterable<Cell[]> | Promise<Iterable<Cell[]>>,
  batch: number,
): Promise<Readable> {
  const client = await pool.connect();
  const cursor = client.query(new Cursor<R>(query.text, query.values));
  let first: R[];
  try {
    first = await cursor.read(batch);
  } catch (err) {
    await cursor.close().catch(() => undefined);
    client.release(true);
    throw err;
  }

  async function* records(): AsyncGenerator<Cell[]> {
    let failed = false;
    try {
      yield header.map(safeCell);
      for (let rows = first; rows.length > 0; rows = await cursor.read(batch)) {
        for (const r of rows) {
          for (const record of await toRecords(r)) yield record.map((v) => (typeof v === 'string' ? safeCell(v) : v));
        }
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

  const out = stringify({ bom: true, eof: true, record_delimiter: '\r\n' });
  // pipeline, not pipe: a reader that goes away destroys the source too, which closes the cursor.
  pipeline(Readable.from(records(), { objectMode: true, highWaterMark: 64 }), out, () => undefined);
  return out;
}

/** The columns that name an assignment, first in both exports (results.csv and responses.csv). */
export const ASSIGNMENT_COLUMNS = ['assignmentId', 'externalUserId', 'name', 'email', 'testId', 'testTitle', 'version', 'livemode'] as const;

/** The row fields behind ASSIGNMENT_COLUMNS, as both exports' queries select them. */
export interface AssignmentCellsRow {
  id: string;
  external_user_id: string;
  name: string | null;
  email: string;
  test_id: string;
  title: string;
  version: number;
  livemode: boolean;
}

/** An assignment's cells under ASSIGNMENT_COLUMNS. */
export function assignmentCells(r: AssignmentCellsRow): Cell[] {
  return [r.id, r.external_user_id, r.name ?? '', r.email, r.test_id, r.title, r.version, r.livemode ? 'true' : 'false'];
}
