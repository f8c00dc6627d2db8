import type { AnswerValue } from '../attempts/answer-values.js';
import type { Question } from '../catalog/schemas.js';

/**
 * Auto-marking, pure: a question and the student's saved answer in, points
 * out (or "a person must mark this"). No I/O, no clock.
 *
 * Answer values as stored by the test page (see attempts/answer-values.ts):
 * - single_choice: the chosen option id (string);
 * - multiple_choice: the chosen option ids (string[]);
 * - short_text, numeric, essay: the text as typed (string);
 * - null or absent: not answered (0 points for an auto-marked question).
 *
 * Rules:
 * - single_choice: full points for the correct option, else 0.
 * - multiple_choice without partialCredit: full points only for exactly the
 *   correct set. With partialCredit: points × (correct picks − wrong picks) /
 *   (number of correct options), never below 0. So picking every option of a
 *   4-option question with 2 correct gives 0, and one right pick of two gives half.
 * - short_text: equal to an accepted answer after trimming and collapsing
 *   inner whitespace (and Unicode NFC normalisation); case-insensitive unless
 *   caseSensitive. With `aiMarking`, a non-empty answer that matches none is
 *   not given 0: it waits for the model or a reviewer, like an essay.
 * - numeric: the text parses as a decimal number (dot or comma as the decimal
 *   separator, no thousands separators, optional exponent) within `tolerance`
 *   of the answer, inclusive; a relative 1e-9 slack absorbs binary floating
 *   point (3.145 vs 3.14 ± 0.005 is correct).
 * - essay, file_upload: never auto-marked; they wait for a reviewer.
 * - matching: each stem matched to its correct choice earns points ÷ stems
 *   (partialCredit, the default); without partialCredit, all stems right or 0.
 * - ordering: all items in place or 0 (the default); with partialCredit,
 *   points × items in their correct place ÷ items.
 * - fill_blanks: points split equally across blanks; a text blank is right
 *   when it equals an accepted answer as short_text compares them, a choice
 *   blank when the correct option is chosen.
 */

export type QuestionMark = { kind: 'auto'; points: number } | { kind: 'manual' };

export interface AttemptMarks {
  /** One entry per question, in test order. */
  items: Array<{ questionId: string; maxPoints: number } & QuestionMark>;
  maxPoints: number;
  /** Sum over auto-marked questions. */
  autoPoints: number;
  autoMarkableCount: number;
  manualCount: number;
}

/** Whether the question is ever marked by its key alone (an AI-marked short_text may or may not be, per answer). */
export function isAutoMarkable(q: Question): boolean {
  return q.type !== 'essay' && q.type !== 'file_upload';
}

const isRecord = (v: unknown): v is Readonly<Record<string, string>> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Whether this answer to this question waits for the model or a reviewer (no automatic mark). */
export function needsMarker(q: Question, value: AnswerValue | undefined): boolean {
  return markQuestion(q, value).kind === 'manual';
}

export function normaliseText(s: string, caseSensitive: boolean): string {
  const collapsed = s.normalize('NFC').trim().replace(/\s+/gu, ' ');
  return caseSensitive ? collapsed : collapsed.toLocaleLowerCase('und');
}

const NUMBER_TEXT = /^[+-]?(\d+([.,]\d*)?|[.,]\d+)([eE][+-]?\d+)?$/;

/** Parses what a student typed into a numeric field; null when it is not a plain decimal number. */
export function parseNumericAnswer(text: string): number | null {
  const t = text.trim().replace(/\s+/g, '');
  if (!NUMBER_TEXT.test(t)) return null;
  const n = Number(t.replace(',', '.'));
  return Number.isFinite(n) ? n : null;
}

export function withinTolerance(value: number, answer: number, tolerance: number): boolean {
  const slack = 1e-9 * Math.max(1, Math.abs(answer));
  return Math.abs(value - answer) <= tolerance + slack;
}

export function markQuestion(q: Question, value: AnswerValue | undefined): QuestionMark {
  if (q.type === 'essay' || q.type === 'file_upload') return { kind: 'manual' };
  const auto = (fraction: number): QuestionMark => ({ kind: 'auto', points: roundPoints(q.points * fraction) });
  if (value === null || value === undefined) return auto(0);
  switch (q.type) {
    case 'single_choice':
      return auto(typeof value === 'string' && value === q.correctOptionId ? 1 : 0);
    case 'multiple_choice': {
      if (!Array.isArray(value)) return auto(0);
      const picked = new Set(value);
      const correct = new Set(q.correctOptionIds);
      const right = [...picked].filter((id) => correct.has(id)).length;
      const wrong = picked.size - right;
      if (!q.partialCredit) return auto(right === correct.size && wrong === 0 ? 1 : 0);
      return auto(Math.max(0, (right - wrong) / correct.size));
    }
    case 'short_text': {
      if (typeof value !== 'string') return auto(0);
      const cs = q.caseSensitive ?? false;
      const given = normaliseText(value, cs);
      if (given === '') return auto(0);
      if (q.acceptedAnswers.some((a) => normaliseText(a, cs) === given)) return auto(1);
      return q.aiMarking ? { kind: 'manual' } : auto(0);
    }
    case 'numeric': {
      if (typeof value !== 'string') return auto(0);
      const n = parseNumericAnswer(value);
      return auto(n !== null && withinTolerance(n, q.answer, q.tolerance ?? 0) ? 1 : 0);
    }
    case 'matching': {
      if (!isRecord(value)) return auto(0);
      const right = q.stems.filter((s) => value[s.id] === q.correct[s.id]).length;
      if (q.partialCredit === false) return auto(right === q.stems.length ? 1 : 0);
      return auto(right / q.stems.length);
    }
    case 'ordering': {
      if (!Array.isArray(value)) return auto(0);
      const inPlace = q.items.filter((item, i) => value[i] === item.id).length;
      if (!q.partialCredit) return auto(inPlace === q.items.length ? 1 : 0);
      return auto(inPlace / q.items.length);
    }
    case 'fill_blanks': {
      if (!isRecord(value)) return auto(0);
      const right = q.blanks.filter((b) => {
        const given = value[b.id];
        if (typeof given !== 'string') return false;
        if (b.kind === 'choice') return given === b.correctOptionId;
        const cs = b.caseSensitive ?? false;
        const norm = normaliseText(given, cs);
        return norm !== '' && b.acceptedAnswers.some((a) => normaliseText(a, cs) === norm);
      }).length;
      return auto(right / q.blanks.length);
    }
  }
}

/** Marks every question of an attempt; `answers` maps question id to the saved value. */
export function markAttempt(questions: readonly Question[], answers: ReadonlyMap<string, AnswerValue>): AttemptMarks {
  let maxPoints = 0;
  let autoPoints = 0;
  let autoMarkableCount = 0;
  let manualCount = 0;
  const items = questions.map((q) => {
    const mark = markQuestion(q, answers.get(q.id));
    maxPoints += q.points;
    if (mark.kind === 'auto') {
      autoPoints += mark.points;
      autoMarkableCount++;
    } else {
      manualCount++;
    }
    return { questionId: q.id, maxPoints: q.points, ...mark };
  });
  return { items, maxPoints: roundPoints(maxPoints), autoPoints: roundPoints(autoPoints), autoMarkableCount, manualCount };
}

/** Points are kept to 4 decimals so sums of thirds do not drift into long binary fractions. */
export function roundPoints(n: number): number {
  return Math.round(n * 10_000) / 10_000;
}
