import { stringify } from 'csv-stringify/sync';
import { AppError, type ErrorDetail } from '../../../platform/errors.js';
import type { Question, SectionInput } from '../schemas.js';
import { CSV_COLUMNS, shortPrompt } from './csv-import.js';
import { capDetails } from './report.js';

/**
 * A test as a CSV in the import template's columns (docs/import-export.md
 * "CSV"), so that importing the file gives the same questions, keys and
 * points. CSV holds the nine types its import reads, one plain answer list
 * per short-text question, and no imported QTI processing or formula
 * variables: a test with a question it cannot hold is refused whole (409 `invalid_state`
 * naming each one, pointing to the QTI package), never exported with
 * questions missing or marked differently.
 */
type Column = (typeof CSV_COLUMNS)[number];
type Row = Partial<Record<Column, string>>;

export interface CsvExportableTest {
  questions?: Question[];
  sections?: Array<SectionInput & { id: string }>;
}

/** A list cell: items joined by `|`, a literal bar written `\|` (listCell in csv-import.ts reads it back). */
const list = (items: readonly string[]) => items.map((s) => s.replace(/\|/g, '\\|')).join('|');
const bool = (v: boolean | undefined) => (v === undefined ? '' : String(v));
const num = (v: number | undefined | null) => (v === undefined || v === null ? '' : String(v));

/** Why a question cannot be a CSV row, or null. */
function refusal(q: Question): string | null {
  const any = q as unknown as Record<string, unknown>;
  if (any.scoring) return 'keeps imported QTI response processing, which CSV cannot hold';
  if (any.variables || any.answerFormula) return 'draws variables per candidate, which CSV cannot hold';
  if (any.passageId) return 'shows a passage, which CSV cannot hold';
  return null;
}

const listItem = (s: string) => s.trim() !== '' && s === s.trim();

function row(q: Question): Row | string {
  const base: Row = { type: q.type, id: q.id, prompt: q.prompt, points: String(q.points) };
  // List items are trimmed and empty ones dropped by the import: such a text would come back changed.
  const listable = (items: readonly string[], what: string) => (items.every(listItem) ? null : `has ${what} with spaces at an end or empty, which a CSV list cannot keep`);
  switch (q.type) {
    case 'single_choice':
    case 'multiple_choice': {
      const bad = listable(q.options.map((o) => o.text), 'an option');
      if (bad) return bad;
      const number = (id: string) => String(q.options.findIndex((o) => o.id === id) + 1);
      const correct = q.type === 'single_choice' ? number(q.correctOptionId) : list(q.correctOptionIds.map(number));
      return { ...base, options: list(q.options.map((o) => o.text)), correct, shuffle_options: bool(q.shuffleOptions), ...(q.type === 'multiple_choice' ? { partial_credit: bool(q.partialCredit) } : {}) };
    }
    case 'short_text': {
      const answers = q.acceptedAnswers.map((a) => (typeof a === 'string' ? a : a.pattern === undefined && a.points === undefined && a.caseSensitive === undefined ? a.text : null));
      if (answers.some((a) => a === null)) return 'has an accepted answer with its own points, case rule or pattern, which CSV cannot hold';
      return listable(answers as string[], 'an accepted answer') ?? { ...base, accepted_answers: list(answers as string[]), case_sensitive: bool(q.caseSensitive) };
    }
    case 'numeric':
      return { ...base, correct: num(q.answer), tolerance: num(q.tolerance) };
    case 'essay':
      return { ...base, rubric: q.rubric ?? '', max_words: num(q.maxWords) };
    case 'file_upload':
      return { ...base, accept: list(q.accept), max_bytes: num(q.maxBytes), rubric: q.rubric ?? '' };
    case 'ordering':
      return listable(q.items.map((i) => i.text), 'an item') ?? { ...base, options: list(q.items.map((i) => i.text)), partial_credit: bool(q.partialCredit) };
    case 'matching': {
      const bad = listable([...q.choices, ...q.stems].map((c) => c.text), 'a stem or choice');
      if (bad) return bad;
      const pairs = q.stems.map((s) => `${s.text.replace(/=/g, '\\=')}=${q.choices.findIndex((c) => c.id === q.correct[s.id]) + 1}`);
      return { ...base, options: list(q.choices.map((c) => c.text)), correct: list(pairs), partial_credit: bool(q.partialCredit) };
    }
    case 'fill_blanks': {
      const texts = q.blanks.filter((b) => b.kind === 'text');
      const cases = new Set(texts.map((b) => b.caseSensitive ?? false));
      if (cases.size > 1) return 'has text blanks of different case rules; a CSV row gives one for all';
      const words = q.blanks.flatMap((b) => (b.kind === 'text' ? b.acceptedAnswers : b.options.map((o) => o.text)));
      if (words.some((w) => w.includes('{{') || w.includes('}}') || w.startsWith('*'))) return 'has a blank answer holding {{, }} or a leading *, which the CSV text cannot hold';
      const bad = listable(words, 'a blank answer');
      if (bad) return bad;
      const text = q.text.replace(/\{\{([A-Za-z0-9_-]+)\}\}/g, (m, id: string) => {
        const b = q.blanks.find((x) => x.id === id);
        if (!b) return m;
        return b.kind === 'text' ? `{{${list(b.acceptedAnswers)}}}` : `{{${list(b.options.map((o) => (o.id === b.correctOptionId ? `*${o.text}` : o.text)))}}}`;
      });
      return { ...base, text, case_sensitive: texts.length > 0 ? bool(texts[0]!.caseSensitive ?? false) : '' };
    }
    default:
      return `is a ${q.type} question, which CSV cannot hold`;
  }
}

/** The test as CSV text (a header row, one row per question); 409 `invalid_state` naming each question it cannot hold. */
export function exportCsv(test: CsvExportableTest): string {
  const groups = test.sections
    ? test.sections.map((s) => ({ section: s, questions: s.questions as Question[] }))
    : [{ section: null, questions: test.questions ?? [] }];
  const problems: ErrorDetail[] = [];
  const titles = new Set<string>();
  for (const g of groups) {
    if (!g.section) continue;
    if (g.section.title.trim() === '' || titles.has(g.section.title.trim())) problems.push({ field: `section "${g.section.title}"`, message: 'needs a title of its own: a CSV tells sections apart by their titles' });
    titles.add(g.section.title.trim());
  }
  const rows: Row[] = [];
  let n = 0;
  for (const g of groups) {
    g.questions.forEach((q, i) => {
      n += 1;
      const r = refusal(q) ?? row(q);
      // Named as people find it: its place in the test and its prompt (a draft's question may have no id yet).
      if (typeof r === 'string') return problems.push({ field: `question ${n}`, message: `“${shortPrompt(q.prompt)}” ${r}: export the QTI package instead` });
      if (g.section) {
        r.section = g.section.title;
        if (i === 0 && g.section.draw) r.draw = String(g.section.draw);
        if (i === 0 && g.section.shuffleQuestions) r.shuffle_questions = 'true';
      }
      rows.push(r);
    });
  }
  if (problems.length > 0) {
    throw new AppError('invalid_state', `The test cannot be written as CSV: ${problems[0]!.field}: ${problems[0]!.message}.`, capDetails(problems));
  }
  return stringify([[...CSV_COLUMNS], ...rows.map((r) => CSV_COLUMNS.map((c) => r[c] ?? ''))]);
}
