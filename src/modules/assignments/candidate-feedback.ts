import { Type, type Static } from '@sinclair/typebox';
import type { Queryable, Tx } from '../../platform/db.js';
import type { ErrorDetail } from '../../platform/errors.js';
import { Nullable } from '../../platform/http/schemas.js';

/**
 * Feedback for the candidate: an overall text and a text per question,
 * written by whoever marks (marking/record-marks.ts: the portal's reviewer
 * and the operator API share it) and released with the result. It sits
 * here, below marking, because the partner read (`result.feedback`) shows
 * it; the student pages and the report read it too, always only for a
 * completed assignment (`releasedFeedback`).
 *
 * Plain text: line breaks are kept (a blank line starts a paragraph), nothing
 * else is interpreted, and every page escapes it. At most
 * FEEDBACK_MAX_CHARS characters (code points) per text, after CRLF → LF and
 * trimming; an empty text is no feedback. Control characters other than line
 * breaks and tabs are refused.
 */
export const FEEDBACK_MAX_CHARS = 5000;

export const QuestionFeedbackSchema = Type.Object(
  {
    questionId: Type.String(),
    feedback: Type.String({ description: 'Plain text; line breaks kept (a blank line separates paragraphs)' }),
  },
  { title: 'QuestionFeedback' },
);

export const CandidateFeedbackSchema = Type.Object(
  {
    overall: Nullable(Type.String(), { description: 'Plain text for the attempt as a whole; null when the reviewer wrote none' }),
    questions: Type.Array(QuestionFeedbackSchema, {
      description: 'Feedback on single questions, only those the reviewer wrote on, in the order the candidate saw them',
    }),
  },
  { title: 'CandidateFeedback' },
);
export type CandidateFeedback = Static<typeof CandidateFeedbackSchema>;

/** What a marker sends: both parts optional; sent feedback replaces what was stored (an empty text removes it). */
export const CandidateFeedbackInputSchema = Type.Object(
  {
    overall: Type.Optional(Nullable(Type.String({ maxLength: 20_000 }), { description: `At most ${FEEDBACK_MAX_CHARS} characters once trimmed; null or empty: none` })),
    questions: Type.Optional(
      Type.Array(
        Type.Object(
          {
            questionId: Type.String({ minLength: 1, maxLength: 64 }),
            feedback: Type.String({ maxLength: 20_000, description: `At most ${FEEDBACK_MAX_CHARS} characters once trimmed; empty: none` }),
          },
          { additionalProperties: false, title: 'QuestionFeedbackInput' },
        ),
        { maxItems: 500, description: 'Any question the candidate was given, once each' },
      ),
    ),
  },
  { additionalProperties: false, title: 'CandidateFeedbackInput' },
);
export type CandidateFeedbackInput = Static<typeof CandidateFeedbackInputSchema>;

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000B-\u001F\u007F]/;

/** A text as stored: line breaks as LF, trimmed; null when nothing is left. */
export function normalizeFeedbackText(text: string | null | undefined): string | null {
  const s = (text ?? '').replace(/\r\n?/g, '\n').trim();
  return s === '' ? null : s;
}

/** The problem with one text, in words, or null. */
export function feedbackTextProblem(text: string): string | null {
  if (CONTROL.test(text)) return 'must not contain control characters';
  const length = [...text].length;
  return length > FEEDBACK_MAX_CHARS ? `is ${length} characters long; feedback is at most ${FEEDBACK_MAX_CHARS}` : null;
}

/**
 * Checks feedback against the questions the candidate was given (in the
 * order shown) and returns it as stored, or null with `details` added
 * (fields under `at`: `feedback.overall`, `feedback.questions.0.feedback`).
 */
export function checkFeedback(input: CandidateFeedbackInput, shownQuestionIds: readonly string[], at: string, details: ErrorDetail[]): CandidateFeedback | null {
  const before = details.length;
  const overall = normalizeFeedbackText(input.overall);
  const overallProblem = overall === null ? null : feedbackTextProblem(overall);
  if (overallProblem) details.push({ field: `${at}.overall`, message: overallProblem });
  const given = new Map<string, string>();
  (input.questions ?? []).forEach((q, i) => {
    if (!shownQuestionIds.includes(q.questionId)) return details.push({ field: `${at}.questions.${i}.questionId`, message: 'is not a question this candidate was given' });
    if (given.has(q.questionId)) return details.push({ field: `${at}.questions.${i}.questionId`, message: 'appears twice' });
    const text = normalizeFeedbackText(q.feedback);
    const problem = text === null ? null : feedbackTextProblem(text);
    if (problem) details.push({ field: `${at}.questions.${i}.feedback`, message: problem });
    given.set(q.questionId, text ?? '');
  });
  if (details.length > before) return null;
  return {
    overall,
    questions: shownQuestionIds.filter((id) => given.get(id)).map((id) => ({ questionId: id, feedback: given.get(id)! })),
  };
}

export const isEmptyFeedback = (f: CandidateFeedback): boolean => f.overall === null && f.questions.length === 0;

/** Stores the assignment's feedback (replacing any), or removes it when empty. */
export async function writeCandidateFeedback(
  tx: Tx,
  input: { assignmentId: string; institutionId: string; feedback: CandidateFeedback; writtenBy: string | null; now: Date },
): Promise<void> {
  if (isEmptyFeedback(input.feedback)) {
    await tx.query('DELETE FROM candidate_feedback WHERE institution_id = $1 AND assignment_id = $2', [input.institutionId, input.assignmentId]);
    return;
  }
  await tx.query(
    `INSERT INTO candidate_feedback (assignment_id, institution_id, overall, questions, written_by, updated_at) VALUES ($1, $2, $3, $4, $5, $6)
     ON CONFLICT (assignment_id) DO UPDATE SET overall = EXCLUDED.overall, questions = EXCLUDED.questions, written_by = EXCLUDED.written_by, updated_at = EXCLUDED.updated_at
      WHERE candidate_feedback.institution_id = EXCLUDED.institution_id`,
    [input.assignmentId, input.institutionId, input.feedback.overall, JSON.stringify(input.feedback.questions), input.writtenBy, input.now],
  );
}

/** The stored feedback, whatever the assignment's status (staff views); null when none was written. */
export async function readCandidateFeedback(db: Queryable, institutionId: string, assignmentId: string): Promise<CandidateFeedback | null> {
  const { rows } = await db.query<{ overall: string | null; questions: CandidateFeedback['questions'] }>(
    'SELECT overall, questions FROM candidate_feedback WHERE institution_id = $1 AND assignment_id = $2',
    [institutionId, assignmentId],
  );
  const r = rows[0];
  return r ? { overall: r.overall, questions: r.questions } : null;
}

/**
 * The feedback the candidate (and the partner) may see: only once the
 * result is released, which is when the assignment is `completed` (the rule
 * `result.available` follows: an `immediate` test at submission, an
 * `after_review` one when marking finishes). Null before, and when none was written.
 */
export async function releasedFeedback(db: Queryable, row: { id: string; institutionId: string; status: string }): Promise<CandidateFeedback | null> {
  return row.status === 'completed' ? readCandidateFeedback(db, row.institutionId, row.id) : null;
}
