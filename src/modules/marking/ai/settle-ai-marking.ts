import type { Tx } from '../../../platform/db.js';
import { findAssignment } from '../../assignments/find-assignment.js';
import { listAnswers } from '../../attempts/find-attempt.js';
import { deliveredTestOf } from '../../attempts/delivered-test.js';
import { completeMarking } from '../complete-marking.js';
import { insertAiMarks, listMarks } from '../marks-repo.js';
import { decideOutcome } from './decide.js';
import { listSuggestions } from './suggestions-repo.js';

/**
 * After a suggestion is stored, in the same transaction (the caller holds
 * the attempt's lock): when the model's marks may finish the attempt
 * (decide.ts), record them as the model's (`source 'ai'`, `marked_by
 * 'ai:<model>'`, with its points per criterion) and complete marking through the lifecycle, which releases
 * the final score and `grading.done`. Returns whether it completed.
 */
export async function settleAiMarking(tx: Tx, input: { institutionId: string; assignmentId: string; now: Date }): Promise<boolean> {
  const row = await findAssignment(tx, input.institutionId, input.assignmentId);
  if (!row || row.status !== 'marking') return false;
  const test = await deliveredTestOf(tx, row);
  // One connection runs one query at a time: sequential, not Promise.all.
  const answers = await listAnswers(tx, input.institutionId, input.assignmentId);
  const marks = await listMarks(tx, input.institutionId, input.assignmentId);
  const suggestions = await listSuggestions(tx, input.institutionId, input.assignmentId);
  const outcome = decideOutcome({
    questions: test.questions,
    answers: new Map(answers.map((a) => [a.questionId, a.value])),
    markedQuestionIds: new Set(marks.filter((m) => m.source !== 'auto').map((m) => m.questionId)),
    suggestions,
  });
  if (!outcome.finish) return false;
  // The model marked per criterion: its (clamped) criterion points become the mark's criterion marks, their sum its points.
  const criteriaOf = new Map(suggestions.map((s) => [s.questionId, s.criteria]));
  const aiMarks = outcome.marks.map((m) => {
    const criteria = criteriaOf.get(m.questionId);
    return { ...m, criteria: criteria ? criteria.map((c) => ({ criterion: c.criterion, points: c.points, comment: null })) : null };
  });
  await insertAiMarks(tx, { assignmentId: row.id, institutionId: row.institutionId, marks: aiMarks, now: input.now });
  const done = await completeMarking(tx, { assignmentId: row.id, institutionId: row.institutionId, test, now: input.now });
  // The row was read as `marking` under the attempt's lock, which every marking change takes first.
  if (!done.ok) throw new Error(`AI marking could not complete ${row.id}: ${done.reason}`);
  return true;
}
