import type { ContentFormat } from '../catalog/content/content-format.js';
import { contentText } from '../catalog/content/render-content.js';
import { partQuestion } from '../catalog/composite.js';
import type { AnswerJson, BaseQuestion } from '../catalog/question-types/definition.js';
import { questionType } from '../catalog/question-types/registry.js';
import type { Question } from '../catalog/schemas.js';

/**
 * A candidate's response in words for the responses export, one line per
 * question: each type's own `answerText` (the option texts chosen, never
 * their ids; matched pairs as `stem → choice`; an order as its items; a
 * number as typed; text as typed), a file answer as the uploaded file's
 * name, a composite question as `Part 1: …; Part 2: …` (the student page's
 * names for its parts). An unanswered question is an empty cell. In a
 * Markdown test the question's texts are made plain first (`PlainTexts`),
 * so an option reads `Paris`, not `**Paris**`; what the candidate typed is
 * never touched.
 */
export interface StoredMarkJson {
  points: string | number;
  comment: string | null;
  criteria: Array<{ criterion: string; points: number; comment: string | null }> | null;
}

const isEmpty = (v: unknown) => v === null || v === undefined || (typeof v === 'string' && v.trim() === '');

/**
 * The test's texts as plain text (Markdown's words, formulas as their TeX,
 * images as their alt text), remembered per export: every candidate of a
 * version has the same options, so each text is parsed once, not once per
 * row. Bounded, so a long export of parametrised questions keeps its memory.
 */
export class PlainTexts {
  private readonly seen = new Map<string, string>();
  /** Keyed by the version's own question object, which every candidate without drawn values shares. */
  private readonly questions = new WeakMap<Question, Question>();
  constructor(private readonly max = 20_000) {}

  text(source: string, format: ContentFormat): string {
    if (format === 'plain') return source;
    let out = this.seen.get(source);
    if (out === undefined) {
      out = contentText(source, format).trim();
      if (this.seen.size >= this.max) this.seen.clear();
      this.seen.set(source, out);
    }
    return out;
  }

  /** The question with its texts (its type's contentFields) plain; the question itself in a plain test. */
  question(q: Question, format: ContentFormat): Question {
    const def = format === 'plain' ? undefined : questionType(q.type);
    if (!def) return q;
    let out = this.questions.get(q);
    if (!out) {
      const copy = structuredClone(q) as unknown as Record<string, unknown>;
      // contentFields' paths name list elements by index (`options.0.text`).
      for (const [path, text] of def.contentFields(q as BaseQuestion)) setAt(copy, path.split('.'), this.text(text, format));
      out = copy as unknown as Question;
      this.questions.set(q, out);
    }
    return out;
  }

  /** The question's prompt as plain text on one line. */
  prompt(q: Question, format: ContentFormat): string {
    return this.text(q.prompt, format).replace(/\s+/g, ' ').trim();
  }
}

function setAt(root: Record<string, unknown>, segments: string[], value: string): void {
  let at: unknown = root;
  for (const seg of segments.slice(0, -1)) {
    at = typeof at === 'object' && at !== null ? (at as Record<string, unknown>)[seg] : undefined;
  }
  const last = segments[segments.length - 1]!;
  if (typeof at === 'object' && at !== null && typeof (at as Record<string, unknown>)[last] === 'string') (at as Record<string, unknown>)[last] = value;
}

export function responseText(q: Question, value: unknown, fileNames: ReadonlyMap<string, string>, plain?: { texts: PlainTexts; format: ContentFormat }): string {
  if (isEmpty(value)) return '';
  if (q.type === 'composite') {
    const given = typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
    return q.parts
      .map((part, k) => {
        const text = responseText(partQuestion(q, part), given[part.id] ?? null, fileNames, plain);
        return text === '' ? '' : `Part ${k + 1}: ${text}`;
      })
      .filter((x) => x !== '')
      .join('; ');
  }
  if (q.type === 'file_upload') {
    const fileId = typeof value === 'object' && value !== null && 'fileId' in value ? String((value as { fileId: unknown }).fileId) : null;
    // A file whose row is gone (purged with its attempt's files) keeps its id, which the answer files page would show too.
    return fileId ? (fileNames.get(fileId) ?? fileId) : '';
  }
  const def = questionType(q.type);
  if (def) return def.answerText((plain ? plain.texts.question(q, plain.format) : q) as BaseQuestion, value as AnswerJson);
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** The reviewer's marks per criterion, `criterion: points (comment)` joined by `; `; empty for a mark without criteria. */
export function criteriaText(mark: StoredMarkJson | undefined): string {
  if (!mark?.criteria) return '';
  return mark.criteria.map((c) => `${c.criterion}: ${Number(c.points)}${c.comment ? ` (${c.comment})` : ''}`).join('; ');
}

/**
 * A response that is a plain decimal number, written exactly as a number
 * prints (`-3`, `2.5`; not `007` or `2.50`, which would lose what was
 * typed), is a number cell (a negative one then needs no formula guard);
 * anything else is text.
 */
export function responseCell(text: string): string | number {
  const n = Number(text);
  return /^-?\d/.test(text) && Number.isFinite(n) && String(n) === text ? n : text;
}
