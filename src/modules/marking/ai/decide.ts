import type { Question } from '../../catalog/schemas.js';
import { needsMarker } from '../auto-mark.js';
import { type AnswerValue } from '../../attempts/answer-values.js';
import type { AiSuggestion } from './suggestions-repo.js';

/**
 * Whether the model's marks may finish an attempt's marking by themselves
 * (`decide` mode), pure. Marking finishes without a person only when EVERY
 * item the answer key could not mark:
 * - is AI-marked in `decide` mode (an essay without aiMarking, or in
 *   `suggest` mode, needs a reviewer anyway);
 * - has a stored suggestion (not pending, failed or handed over);
 * - with confidence ≥ the question's minConfidence;
 * - and no flag at all (possible_injection, points_clamped, total_mismatch,
 *   or any flag the model raised);
 * - and no reviewer has marked it yet (a reviewer at work is not overruled).
 * Otherwise the attempt stays in `marking` with the suggestions shown.
 */
export function meetsDecideBar(s: Pick<AiSuggestion, 'mode' | 'status' | 'confidence' | 'minConfidence' | 'flags'>): boolean {
  return s.mode === 'decide' && s.status === 'suggested' && s.confidence !== null && s.confidence >= s.minConfidence && s.flags.length === 0;
}

export type DecideOutcome =
  | { finish: true; marks: Array<{ questionId: string; points: number; markedBy: string }> }
  | { finish: false; reason: string };

export function decideOutcome(input: {
  questions: readonly Question[];
  answers: ReadonlyMap<string, AnswerValue>;
  markedQuestionIds: ReadonlySet<string>;
  suggestions: readonly AiSuggestion[];
}): DecideOutcome {
  const suggestionOf = new Map(input.suggestions.map((s) => [s.questionId, s]));
  const items = input.questions.filter((q) => needsMarker(q, input.answers.get(q.id)));
  if (items.length === 0) return { finish: false, reason: 'no item awaits a marker' };
  const marks: Array<{ questionId: string; points: number; markedBy: string }> = [];
  for (const q of items) {
    if (input.markedQuestionIds.has(q.id)) return { finish: false, reason: `a reviewer has marked ${q.id}` };
    const s = suggestionOf.get(q.id);
    if (!s) return { finish: false, reason: `${q.id} is not AI-marked` };
    if (!meetsDecideBar(s)) return { finish: false, reason: `${q.id}: ${s.mode === 'suggest' ? 'suggest mode' : s.status !== 'suggested' ? s.status : 'below the bar'}` };
    marks.push({ questionId: q.id, points: s.points!, markedBy: `ai:${s.provenance.model ?? 'unknown'}` });
  }
  return { finish: true, marks };
}
