import { readAll, type Queryable } from '../../platform/db.js';
import { notFound } from '../../platform/errors.js';
import { tenantReaches, type Tenant } from '../../platform/principal.js';
import { findAssignmentById, type AssignmentRow } from '../assignments/find-assignment.js';
import { countWords } from '../attempts/answer-values.js';
import { listAnswers } from '../attempts/find-attempt.js';
import { deliveredTestOf } from '../attempts/delivered-test.js';
import type { AssignmentStatus } from '../lifecycle/state-machine.js';
import type { TestVersion } from '../catalog/tests-service.js';
import { deliveredSections, type DeliveredTest } from '../catalog/delivery.js';
import { needsMarker } from './auto-mark.js';
import { type AnswerValue } from '../attempts/answer-values.js';
import { listSuggestions, type AiSuggestion } from './ai/suggestions-repo.js';
import { meetsDecideBar } from './ai/decide.js';
import { listMarks, type CriterionMark, type StoredMark } from './marks-repo.js';
import { criterionMarksView } from './criterion-marks.js';
import type { Score } from '../lifecycle/score.js';
import { readCandidateFeedback, type CandidateFeedback } from '../assignments/candidate-feedback.js';

/** The model's suggestion for an item, with its provenance, as a reviewer sees it. */
export interface AiSuggestionView {
  status: AiSuggestion['status'];
  mode: AiSuggestion['mode'];
  minConfidence: number;
  /** Total, the sum of the criteria points (clamped to each criterion's range). Null until suggested. */
  points: number | null;
  maxPoints: number;
  confidence: number | null;
  flags: string[];
  criteria: AiSuggestion['criteria'];
  /** Why there is no suggestion (or, while pending, why the last call failed). */
  failureReason: string | null;
  attempts: number;
  /** decide mode: suggested, confidence ≥ minConfidence and no flag (the model's mark may stand alone). */
  meetsDecideBar: boolean;
  provenance: AiSuggestion['provenance'];
  reviewerPoints: number | null;
  /** Whether the reviewer's mark equals the suggestion; null without both. */
  reviewerMatches: boolean | null;
  reviewedAt: Date | null;
  updatedAt: Date;
}

export interface MarkingItem {
  questionId: string;
  type: string;
  prompt: string;
  maxPoints: number;
  answer: AnswerValue;
  wordCount: number | null;
  maxWords: number | null;
  rubric: string | null;
  needsMarking: boolean;
  /** Set for a question that keeps its imported QTI response processing: how it is marked, in words. */
  scoring: { format: 'qti'; note: string } | null;
  mark: (Omit<StoredMark, 'questionId' | 'criteria'> & { criteria: Array<CriterionMark & { maxPoints: number }> | null }) | null;
  /** The question's marking criteria (essay, short_text, file_upload), null when it has none. */
  criteria: Array<{ criterion: string; points: number; description: string }> | null;
  ai: AiSuggestionView | null;
}

export interface MarkingView {
  assignmentId: string;
  institutionId: string;
  externalUserId: string;
  /** The student's name when the partner sent one (not in the operator API's response). */
  studentName: string | null;
  testId: string;
  /** The pinned version (not in the operator API's response): its questions carry the option texts. */
  testVersionId: string;
  title: string;
  marking: TestVersion['marking'];
  resultVisibility: TestVersion['resultVisibility'];
  passPercent: number | null;
  status: AssignmentStatus;
  startedAt: Date | null;
  submittedAt: Date | null;
  completedAt: Date | null;
  score: Score | null;
  /** The items in the order the candidate saw them (only the questions drawn for them). */
  items: MarkingItem[];
  awaitingMarking: string[];
  /**
   * For a test with sections, the sections as the candidate was given them
   * (title, and the ids of the items shown in each, in order); absent for a
   * flat test, whose view keeps its earlier shape.
   */
  sections?: Array<{ sectionId: string; title: string; questionIds: string[] }>;
  /** The feedback written for the candidate (released with the result, assignments/candidate-feedback.ts); null when none. */
  feedback: CandidateFeedback | null;
}

/**
 * What a marker needs: every question with the saved answer and its mark,
 * and which items still wait for a reviewer. The operator API reads every
 * institution; a reviewer portal passes its institution, and another
 * institution's assignment is then not found, like a missing one.
 */
export async function getMarkingView(db: Queryable, assignmentId: string, scope: Tenant): Promise<MarkingView> {
  const row = await findAssignmentById(db, assignmentId);
  if (!row || !tenantReaches(scope, row.institutionId)) throw notFound('assignment');
  const test = await deliveredTestOf(db, row);
  const [answers, marks, suggestions, name, feedback] = await readAll(db, [
    () => listAnswers(db, row.institutionId, row.id),
    () => listMarks(db, row.institutionId, row.id),
    () => listSuggestions(db, row.institutionId, row.id),
    () => db.query<{ name: string | null }>('SELECT name FROM users WHERE id = $1 AND institution_id = $2', [row.userId, row.institutionId]),
    () => readCandidateFeedback(db, row.institutionId, row.id),
  ] as const);
  return { ...buildView(row, test, answers, marks, suggestions), studentName: name.rows[0]?.name ?? null, feedback };
}

export function buildView(
  row: AssignmentRow,
  test: DeliveredTest,
  answers: Array<{ questionId: string; value: AnswerValue }>,
  marks: StoredMark[],
  suggestions: AiSuggestion[] = [],
): Omit<MarkingView, 'feedback'> {
  const answerOf = new Map(answers.map((a) => [a.questionId, a.value]));
  const markOf = new Map(marks.map((m) => [m.questionId, m]));
  const suggestionOf = new Map(suggestions.map((s) => [s.questionId, s]));
  const items: MarkingItem[] = test.questions.map((q) => {
    const answer = answerOf.get(q.id) ?? null;
    const mark = markOf.get(q.id);
    const essay = q.type === 'essay' ? q : null;
    const suggestion = suggestionOf.get(q.id);
    return {
      questionId: q.id,
      type: q.type,
      prompt: q.prompt,
      maxPoints: q.points,
      answer,
      wordCount: essay ? countWords(typeof answer === 'string' ? answer : '') : null,
      maxWords: essay?.maxWords ?? null,
      rubric: q.type === 'essay' || q.type === 'short_text' || q.type === 'file_upload' ? (q.rubric ?? null) : null,
      needsMarking: needsMarker(q, answer),
      scoring: scoringOf(q, answer),
      mark: mark
        ? { points: mark.points, criteria: criterionMarksView(q, mark.criteria), source: mark.source, comment: mark.comment, markedBy: mark.markedBy, markedAt: mark.markedAt }
        : null,
      criteria: q.type === 'essay' || q.type === 'short_text' || q.type === 'file_upload' ? (q.criteria ?? null) : null,
      ai: suggestion ? suggestionView(suggestion) : null,
    };
  });
  return {
    assignmentId: row.id,
    institutionId: row.institutionId,
    externalUserId: row.externalUserId,
    studentName: null,
    testId: row.testId,
    testVersionId: row.testVersionId,
    title: test.title,
    marking: test.marking,
    resultVisibility: test.resultVisibility,
    passPercent: test.passPercent,
    status: row.status,
    startedAt: row.startedAt,
    submittedAt: row.submittedAt,
    completedAt: row.completedAt,
    score: row.score,
    items,
    awaitingMarking: row.status === 'marking' ? items.filter((i) => i.needsMarking && !i.mark).map((i) => i.questionId) : [],
    ...(test.sections ? { sections: deliveredSections(test).map((s) => ({ sectionId: s.id, title: s.title, questionIds: s.shownIds })) } : {}),
  };
}

/**
 * How a question with imported QTI processing is marked: by running that
 * processing, not by the key the question shows; when the run fails (its
 * step limit), by the reviewer.
 */
function scoringOf(q: DeliveredTest['questions'][number], answer: AnswerValue): MarkingItem['scoring'] {
  if (!('scoring' in q) || !q.scoring) return null;
  return {
    format: 'qti',
    note: needsMarker(q, answer)
      ? 'Its imported QTI response processing could not be run on this answer (it exceeded the step limit), so a reviewer marks it.'
      : 'Marked by its imported QTI response processing, not by the answer key shown.',
  };
}

function suggestionView(s: AiSuggestion): AiSuggestionView {
  return {
    status: s.status,
    mode: s.mode,
    minConfidence: s.minConfidence,
    points: s.points,
    maxPoints: s.maxPoints,
    confidence: s.confidence,
    flags: s.flags,
    criteria: s.criteria,
    failureReason: s.failureReason,
    attempts: s.attempts,
    meetsDecideBar: meetsDecideBar(s),
    provenance: s.provenance,
    reviewerPoints: s.reviewerPoints,
    reviewerMatches: s.reviewerMatches,
    reviewedAt: s.reviewedAt,
    updatedAt: s.updatedAt,
  };
}
