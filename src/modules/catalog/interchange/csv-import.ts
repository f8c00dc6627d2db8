import { parse } from 'csv-parse/sync';
import { AppError, type ErrorDetail } from '../../../platform/errors.js';
import { checkTestInput } from '../authoring.js';
import type { QuestionInput, SectionInput, TestInput } from '../schemas.js';
import { capDetails, emptyReport, type ImportReport } from './report.js';
import { unstorableCharacter } from './xml-limits.js';
import { questionProblem, settingsFor } from './test-input.js';

/**
 * CSV import: one row per question (docs/import-export.md "CSV"). Every
 * problem is reported by row and column (`row 3, correct`), and nothing is
 * created when there is any: a spreadsheet is fixed and sent again whole.
 */
export const CSV_COLUMNS = [
  'section', 'type', 'id', 'prompt', 'points', 'options', 'correct', 'accepted_answers', 'tolerance', 'case_sensitive',
  'partial_credit', 'shuffle_options', 'text', 'rubric', 'max_words', 'accept', 'max_bytes', 'draw', 'shuffle_questions',
] as const;
type Column = (typeof CSV_COLUMNS)[number];
const TYPES = ['single_choice', 'multiple_choice', 'short_text', 'numeric', 'essay', 'matching', 'ordering', 'fill_blanks', 'file_upload'] as const;

/** Splits a list cell on `|` (a `\|` is a literal bar), trimming each part and dropping empty ones. */
export function listCell(cell: string): string[] {
  return cell
    .split(/(?<!\\)\|/)
    .map((p) => p.replace(/\\\|/g, '|').trim())
    .filter((p) => p !== '');
}

/**
 * Bounds on a CSV (docs/import-export.md "Limits"), checked while it is read:
 * the size before decoding, a cell's length by the parser as it fills the
 * cell, the rows by stopping the parser one row past the limit. A test
 * holds at most 500 questions, and no field of one is longer than 10,000
 * characters (a cell holding a whole option list, far less than 100,000).
 */
export const CSV_LIMITS = {
  maxBytes: 10 * 1024 * 1024,
  questionRows: 500,
  cellChars: 100_000,
} as const;

const refusedCsv = (message: string, field = 'body') => new AppError('invalid_request', `The CSV ${message}.`, [{ field, message }]);

/** A CSV's bytes (UTF-8, as spreadsheets save "CSV UTF-8") to a test; 400 when over a limit or not UTF-8. */
export function readCsv(bytes: Uint8Array, title: string): { input: TestInput; report: ImportReport } {
  if (bytes.length > CSV_LIMITS.maxBytes) throw refusedCsv(`is larger than the ${CSV_LIMITS.maxBytes / 1024 / 1024} MB a CSV may be`);
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new AppError('invalid_request', 'The CSV is not UTF-8 text: save it as CSV UTF-8.', [{ field: 'body', message: 'is not UTF-8' }]);
  }
  return importCsv(text, title);
}

const PARSE_OPTIONS = { relax_column_count: false, skip_empty_lines: true, trim: false, bom: true, max_record_size: CSV_LIMITS.cellChars } as const;

/** The rows of a CSV, at most the header and one past the question rows allowed; 400 naming the row (and the column) when unreadable. */
function parseRows(text: string): string[][] {
  let header: string[] = [];
  try {
    header = (parse(text, { ...PARSE_OPTIONS, to: 1 }) as string[][])[0] ?? [];
    return parse(text, { ...PARSE_OPTIONS, to: CSV_LIMITS.questionRows + 2 }) as string[][];
  } catch (err) {
    const e = err as Error & { code?: string; lines?: number; records?: number; column?: number };
    if (e.code === 'CSV_MAX_RECORD_SIZE') {
      const row = (e.records ?? 0) + 1;
      const column = header[e.column ?? -1]?.trim().toLowerCase() || `column ${(e.column ?? 0) + 1}`;
      throw new AppError('invalid_request', `The CSV's cell at row ${row}, ${column} is longer than the ${CSV_LIMITS.cellChars.toLocaleString('en-US')} characters a cell may hold.`, [
        { field: `row ${row}, ${column}`, message: `is longer than the ${CSV_LIMITS.cellChars.toLocaleString('en-US')} characters a cell may hold` },
      ]);
    }
    throw new AppError('invalid_request', `The CSV cannot be read: ${e.message}`, [{ field: e.lines ? `row ${e.lines}` : 'body', message: e.message }]);
  }
}

export function importCsv(text: string, title: string): { input: TestInput; report: ImportReport } {
  const details: ErrorDetail[] = [];
  const fail = (row: number, col: string, message: string) => details.push({ field: `row ${row}, ${col}`, message });
  const rows = parseRows(text.replace(/^\uFEFF/, ''));
  if (rows.length > CSV_LIMITS.questionRows + 1) {
    throw new AppError('invalid_request', `The CSV has more than ${CSV_LIMITS.questionRows} question rows; a test holds at most ${CSV_LIMITS.questionRows} questions.`, [
      { field: `row ${CSV_LIMITS.questionRows + 2}`, message: `is past the ${CSV_LIMITS.questionRows} question rows allowed: a test holds at most ${CSV_LIMITS.questionRows} questions` },
    ]);
  }
  if (rows.length < 2) throw new AppError('invalid_request', 'The CSV needs a header row and at least one question row.', [{ field: 'row 1', message: 'needs a header row and a question row' }]);
  const header = rows[0]!.map((h) => h.trim().toLowerCase());
  header.forEach((h, i) => {
    if (!(CSV_COLUMNS as readonly string[]).includes(h)) fail(1, `column ${i + 1}`, `"${h}" is not a known column (${CSV_COLUMNS.join(', ')})`);
    else if (header.indexOf(h) !== i) fail(1, h, 'appears twice');
  });
  for (const req of ['type', 'prompt'] as const) if (!header.includes(req)) fail(1, req, 'is a required column');
  if (details.length > 0) throw invalidCsv(details);

  const sections = new Map<string, { section: Omit<SectionInput, 'questions'>; questions: QuestionInput[]; rows: number[] }>();
  const rowOf: Array<{ section: string; row: number }> = [];
  const prompts = new Map<number, string>();
  rows.slice(1).forEach((cells, k) => {
    const row = k + 2;
    const promptAt = header.indexOf('prompt');
    if (promptAt >= 0 && unstorableCharacter(cells[promptAt] ?? '') === null) prompts.set(row, shortPrompt(cells[promptAt] ?? ''));
    // PostgreSQL cannot store a NUL (or a lone surrogate): refused here by row and column, never a 500 at the insert.
    const bad = cells.findIndex((c) => unstorableCharacter(c) !== null);
    if (bad >= 0) {
      fail(row, header[bad] ?? `column ${bad + 1}`, unstorableCharacter(cells[bad]!)!);
      return;
    }
    const get = (c: Column) => (header.indexOf(c) >= 0 ? (cells[header.indexOf(c)] ?? '').trim() : '');
    const bool = (c: Column): boolean | undefined => {
      const v = get(c).toLowerCase();
      if (v === '') return undefined;
      if (['true', 'yes', '1'].includes(v)) return true;
      if (['false', 'no', '0'].includes(v)) return false;
      fail(row, c, `"${get(c)}" is not true or false`);
      return undefined;
    };
    const number = (c: Column, dflt?: number): number | undefined => {
      const v = get(c);
      if (v === '') return dflt;
      const n = Number(v.replace(',', '.'));
      if (!Number.isFinite(n)) fail(row, c, `"${v}" is not a number`);
      return n;
    };
    const type = get('type') as (typeof TYPES)[number];
    if (!(TYPES as readonly string[]).includes(type)) {
      fail(row, 'type', `"${type}" is not a question type (${TYPES.join(', ')})`);
      return;
    }
    const before = details.length;
    const prompt = get('prompt');
    if (!prompt) fail(row, 'prompt', 'is empty');
    const points = number('points', 1)!;
    const id = get('id');
    const q = question(type, row, { prompt, points, get, bool, number, fail });
    if (!q || details.length > before) return;
    if (id) (q as { id?: string }).id = id;
    const problem = questionProblem(q);
    if (problem) {
      fail(row, columnOf(problem), problem);
      return;
    }
    const secTitle = get('section');
    let s = sections.get(secTitle);
    if (!s) {
      s = { section: { title: secTitle }, questions: [], rows: [] };
      sections.set(secTitle, s);
    }
    const draw = number('draw');
    if (draw !== undefined) {
      if (!Number.isInteger(draw) || draw < 1) fail(row, 'draw', 'must be a whole number of at least 1');
      else if (s.section.draw !== undefined && s.section.draw !== draw) fail(row, 'draw', `differs from the section's earlier draw (${s.section.draw})`);
      else s.section.draw = draw;
    }
    const shuffle = bool('shuffle_questions');
    if (shuffle !== undefined) s.section.shuffleQuestions = shuffle || s.section.shuffleQuestions === true;
    s.questions.push(q);
    s.rows.push(row);
    rowOf.push({ section: secTitle, row });
  });
  if (details.length > 0) throw invalidCsv(details, prompts);

  const list = [...sections.values()];
  const flat = list.length === 1 && list[0]!.section.title === '' && list[0]!.section.draw === undefined && !list[0]!.section.shuffleQuestions;
  if (!flat && list.some((s) => s.section.title === '')) {
    const s = list.find((x) => x.section.title === '')!;
    throw invalidCsv([{ field: `row ${s.rows[0]}, section`, message: 'is empty, but other rows name sections (or this one draws or shuffles): give every row a section' }], prompts);
  }
  const all = list.flatMap((s) => s.questions);
  const input: TestInput = {
    title,
    description: '',
    durationMinutes: 60,
    proctoring: 'none',
    ...settingsFor(all),
    ...(flat ? { questions: all } : { sections: list.map((s) => ({ ...s.section, questions: s.questions })) }),
  };
  // The authoring rules (ids unique, pools of equal points, answers naming options…), reported by row.
  try {
    checkTestInput(input);
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    throw invalidCsv((err.details ?? []).map((d) => toRow(d, flat, list)), prompts);
  }
  const report = emptyReport();
  report.imported = all.length;
  list.forEach((s) => s.rows.forEach((row, i) => report.items.push({ file: 'csv', identifier: `row ${row}`, title: prompts.get(row) ?? '', questionId: s.questions[i]!.id ?? null, type: s.questions[i]!.type })));
  return { input, report };
}

/** A problem of a CSV row, with the row's prompt (shortened) so that a person can find the question: the portal shows it beside the problem. */
export type CsvProblem = ErrorDetail & { prompt?: string };

/** A row's prompt as the report and the problems show it: on one line, at most 80 characters. */
export function shortPrompt(prompt: string): string {
  const line = prompt.replace(/\s+/g, ' ').trim();
  return line.length > 80 ? `${line.slice(0, 79).trimEnd()}…` : line;
}

const invalidCsv = (details: ErrorDetail[], prompts: ReadonlyMap<number, string> = new Map()) => {
  const withPrompts: CsvProblem[] = details.map((d) => {
    const prompt = prompts.get(Number(/^row (\d+)/.exec(d.field)?.[1]));
    return prompt ? { ...d, prompt } : d;
  });
  return new AppError('invalid_request', `The CSV has ${details.length} problem${details.length === 1 ? '' : 's'}; the first: ${details[0]!.field}: ${details[0]!.message}`, capDetails(withPrompts));
};

/** A schema problem's field (`options.0.text`) as the CSV column it came from. */
function columnOf(problem: string): string {
  const field = problem.split(' ')[0]!;
  const map: Record<string, string> = { options: 'options', correctOptionId: 'correct', correctOptionIds: 'correct', acceptedAnswers: 'accepted_answers', stems: 'correct', choices: 'options', items: 'options', blanks: 'text', accept: 'accept', maxBytes: 'max_bytes', maxWords: 'max_words' };
  return map[field.split('.')[0]!] ?? field.split('.')[0]!;
}

function toRow(d: ErrorDetail, flat: boolean, list: Array<{ rows: number[] }>): ErrorDetail {
  const m = flat ? /^questions\.(\d+)\.?(.*)$/.exec(d.field) : /^sections\.(\d+)\.questions\.(\d+)\.?(.*)$/.exec(d.field);
  if (m) {
    const [sec, idx, rest] = flat ? [0, Number(m[1]), m[2]!] : [Number(m[1]), Number(m[2]), m[3]!];
    return { field: `row ${list[sec]!.rows[idx]}, ${columnOf(rest || 'id')}`, message: d.message };
  }
  const s = /^sections\.(\d+)\.?(.*)$/.exec(d.field);
  if (s) return { field: `row ${list[Number(s[1])]!.rows[0]}, ${s[2] === 'draw' ? 'draw' : 'section'}`, message: d.message };
  return d;
}

interface Cells {
  prompt: string;
  points: number;
  get: (c: Column) => string;
  bool: (c: Column) => boolean | undefined;
  number: (c: Column, dflt?: number) => number | undefined;
  fail: (row: number, col: string, message: string) => void;
}

const optionId = (i: number) => String.fromCharCode(97 + (i % 26)) + (i >= 26 ? String(Math.floor(i / 26)) : '');

function question(type: (typeof TYPES)[number], row: number, c: Cells): QuestionInput | null {
  const { prompt, points, get, bool, number, fail } = c;
  const options = listCell(get('options'));
  const opt = options.map((text, i) => ({ id: optionId(i), text }));
  /** A correct option given by its number (1 = the first) or its exact text. */
  const pick = (ref: string): string | null => {
    const n = Number(ref);
    if (Number.isInteger(n) && n >= 1 && n <= opt.length) return opt[n - 1]!.id;
    const byText = opt.find((o) => o.text === ref);
    if (byText) return byText.id;
    fail(row, 'correct', `"${ref}" is neither an option number (1–${opt.length}) nor an option's text`);
    return null;
  };
  const needOptions = (min: number) => {
    if (options.length < min) fail(row, 'options', `needs at least ${min} options separated by |`);
  };
  const shuffle = bool('shuffle_options');
  const partial = bool('partial_credit');
  const cs = bool('case_sensitive');
  const rubric = get('rubric');
  switch (type) {
    case 'single_choice': {
      needOptions(2);
      const refs = listCell(get('correct'));
      if (refs.length !== 1) fail(row, 'correct', 'names exactly one option (its number or text)');
      const id = refs[0] ? pick(refs[0]) : null;
      return id ? { type, prompt, points, options: opt, correctOptionId: id, ...(shuffle !== undefined ? { shuffleOptions: shuffle } : {}) } : null;
    }
    case 'multiple_choice': {
      needOptions(2);
      const refs = listCell(get('correct'));
      if (refs.length === 0) fail(row, 'correct', 'names the correct options (numbers or texts separated by |)');
      const ids = refs.map(pick).filter((x): x is string => x !== null);
      return { type, prompt, points, options: opt, correctOptionIds: ids, ...(partial !== undefined ? { partialCredit: partial } : {}), ...(shuffle !== undefined ? { shuffleOptions: shuffle } : {}) };
    }
    case 'short_text': {
      const accepted = listCell(get('accepted_answers') || get('correct'));
      if (accepted.length === 0) fail(row, 'accepted_answers', 'lists the accepted answers separated by |');
      return { type, prompt, points, acceptedAnswers: accepted, ...(cs !== undefined ? { caseSensitive: cs } : {}) };
    }
    case 'numeric': {
      if (get('correct') === '') fail(row, 'correct', 'is the numeric answer');
      const answer = number('correct');
      const tolerance = number('tolerance', 0)!;
      if (tolerance < 0) fail(row, 'tolerance', 'cannot be negative');
      return answer === undefined ? null : { type, prompt, points, answer, tolerance };
    }
    case 'essay': {
      const maxWords = number('max_words');
      return { type, prompt, points, ...(rubric ? { rubric } : {}), ...(maxWords !== undefined ? { maxWords } : {}) };
    }
    case 'file_upload': {
      const accept = listCell(get('accept'));
      if (accept.length === 0) fail(row, 'accept', 'lists the accepted MIME types separated by | (e.g. application/pdf|image/png)');
      const maxBytes = number('max_bytes');
      return { type, prompt, points, accept, ...(maxBytes !== undefined ? { maxBytes } : {}), ...(rubric ? { rubric } : {}) };
    }
    case 'ordering': {
      needOptions(2);
      return { type, prompt, points, items: opt, ...(partial !== undefined ? { partialCredit: partial } : {}) };
    }
    case 'matching': {
      needOptions(2);
      const pairs = listCell(get('correct'));
      if (pairs.length === 0) fail(row, 'correct', 'lists each stem and its choice as "stem=choice", separated by |');
      const stems: Array<{ id: string; text: string }> = [];
      const correct: Record<string, string> = {};
      pairs.forEach((p, i) => {
        const eq = p.search(/(?<!\\)=/);
        if (eq < 0) return fail(row, 'correct', `"${p}" is not "stem=choice"`);
        const stem = p.slice(0, eq).replace(/\\=/g, '=').trim();
        const choice = p.slice(eq + 1).replace(/\\=/g, '=').trim();
        const id = `s${i + 1}`;
        stems.push({ id, text: stem });
        const chosen = pick(choice);
        if (chosen) correct[id] = chosen;
      });
      return { type, prompt, points, stems, choices: opt, correct, ...(partial !== undefined ? { partialCredit: partial } : {}) };
    }
    case 'fill_blanks': {
      const source = get('text');
      if (!source) {
        fail(row, 'text', 'holds the text with each blank as {{answer|other answer}}, or {{*right|wrong|wrong}} for a choice');
        return null;
      }
      const blanks: Extract<QuestionInput, { type: 'fill_blanks' }>['blanks'] = [];
      const text = source.replace(/\{\{(.*?)\}\}/g, (_m, inner: string) => {
        const id = `b${blanks.length + 1}`;
        const parts = listCell(inner);
        if (parts.some((p) => p.startsWith('*'))) {
          const starred = parts.filter((p) => p.startsWith('*'));
          if (starred.length !== 1) fail(row, 'text', `blank ${blanks.length + 1} marks ${starred.length} choices with *; mark exactly one`);
          const options = parts.map((p, i) => ({ id: optionId(i), text: p.replace(/^\*/, '').trim() }));
          blanks.push({ id, kind: 'choice', options, correctOptionId: options[parts.findIndex((p) => p.startsWith('*'))]?.id ?? 'a' });
        } else {
          if (parts.length === 0) fail(row, 'text', `blank ${blanks.length + 1} lists no answer`);
          blanks.push({ id, kind: 'text', acceptedAnswers: parts, ...(cs !== undefined ? { caseSensitive: cs } : {}) });
        }
        return `{{${id}}}`;
      });
      if (blanks.length === 0) fail(row, 'text', 'has no blank: write each as {{answer}}');
      return { type, prompt, points, text, blanks };
    }
  }
}
