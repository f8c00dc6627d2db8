import type { AnswerValue } from '../attempts/answer-values.js';
import type { BuiltInQuestion, Question } from '../catalog/schemas.js';
import type { AnswerJson, BaseQuestion } from '../catalog/question-types/definition.js';
import { questionType } from '../catalog/question-types/registry.js';
import { QtiProcessingError, runQtiProcessing } from '../catalog/qti-processing/index.js';
import { compiledScoring, type ScorableQuestion } from '../catalog/qti-scoring.js';
import { qtiResponses } from './qti-responses.js';
import { parseNumericAnswer } from './numeric-answer.js';
import { normaliseText } from '../catalog/accepted-answers.js';
import { partQuestion } from '../catalog/composite.js';

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
 * - short_text: the points of the best accepted answer it matches (a plain
 *   answer is worth the question's points; an entry may give fewer), capped
 *   at the question's points (catalog/question-types/short-text/mark.ts). A text matches after
 *   trimming and collapsing inner whitespace (and Unicode NFC normalisation),
 *   case-insensitive unless caseSensitive; a pattern matches the whole answer.
 *   With `aiMarking`, a non-empty answer that matches none is not given 0: it
 *   waits for the model or a reviewer, like an essay.
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
 * - any answerable question with `scoring` (imported QTI processing): none of
 *   the above; the item's own response processing is run over the answer
 *   (markByQtiProcessing), and its key only documents the item.
 * - composite: the sum of each part's own mark, each part marked as a
 *   question of its type with its own points (unanswered parts earn 0);
 *   with `scoring`, the item's processing run over every part's value at
 *   once, as for any other kept item.
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
  const def = questionType(q.type);
  // The types a person must mark (essay, file_upload) are registered and say so; every built-in one left is keyed.
  return def ? def.autoMarkable : true;
}

const isRecord = (v: unknown): v is Readonly<Record<string, string>> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Whether this answer to this question waits for the model or a reviewer (no automatic mark). */
export function needsMarker(q: Question, value: AnswerValue | undefined): boolean {
  return markQuestion(q, value).kind === 'manual';
}

export { normaliseText };

// Shared with the QTI responses (qti-responses.ts), which auto-mark imports: kept apart so neither imports the other.
export { parseNumericAnswer };

// The numeric type's (catalog/question-types/numeric), named here as before.
export { withinTolerance } from '../catalog/question-types/numeric/number-text.js';

export function markQuestion(question: Question, value: AnswerValue | undefined): QuestionMark {
  const def = questionType(question.type);
  if (def) return markRegistered(question, value, def);
  const q = question as BuiltInQuestion;
  if ('scoring' in q && q.scoring) return markByQtiProcessing(q, value);
  const auto = (fraction: number): QuestionMark => ({ kind: 'auto', points: roundPoints(q.points * fraction) });
  if (value === null || value === undefined) return auto(0);
  switch (q.type) {
    case 'composite': {
      if (!isRecord(value)) return auto(0);
      let points = 0;
      for (const part of q.parts) {
        const mark = markQuestion(partQuestion(q, part), (value[part.id] ?? null) as AnswerValue);
        // Every part type is marked by its key, so a part's mark is always automatic.
        if (mark.kind === 'auto') points += mark.points;
      }
      return { kind: 'auto', points: roundPoints(points) };
    }
  }
}

/**
 * A registered type (catalog/question-types): its definition marks by the
 * key; a type a person marks waits for one, kept QTI processing wins over the
 * key as for the built-in types, and unanswered is 0 without asking.
 */
function markRegistered(q: Question, value: AnswerValue | undefined, def: NonNullable<ReturnType<typeof questionType>>): QuestionMark {
  if (!def.autoMarkable || !def.mark) return { kind: 'manual' };
  if ('scoring' in q && q.scoring) return markByQtiProcessing(q as ScorableQuestion, value);
  if (value === null || value === undefined) return { kind: 'auto', points: 0 };
  const mark = def.mark(q as BaseQuestion, value as Exclude<AnswerJson, null>);
  return mark.kind === 'auto' ? { kind: 'auto', points: roundPoints(Math.min(q.points, Math.max(0, mark.points))) } : mark;
}

/**
 * A question with imported QTI processing: the answer as the item's
 * responses, the processing run, SCORE clamped to [0, points]. Unanswered
 * runs too (every response NULL), as a QTI player would. A run that fails
 * (the step limit, or processing that no longer compiles) gives no mark:
 * the item waits for a reviewer rather than getting a wrong one.
 */
function markByQtiProcessing(q: ScorableQuestion, value: AnswerValue | undefined): QuestionMark {
  try {
    const compiled = compiledScoring(q)!;
    const { score } = runQtiProcessing(compiled, qtiResponses(q, value, compiled));
    return { kind: 'auto', points: roundPoints(Math.min(q.points, Math.max(0, Number.isFinite(score) ? score : 0))) };
  } catch (err) {
    if (err instanceof QtiProcessingError) return { kind: 'manual' };
    throw err;
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
