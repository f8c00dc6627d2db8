import { AppError, type ErrorDetail } from '../../platform/errors.js';
import { newId } from '../../platform/ids.js';
import { resolveRules, type ProctoringRules } from './proctoring-rules.js';
import type { AiMarkableType, Question, TestInput } from './schemas.js';

/**
 * Authoring rules the schema cannot express (issue: "Authoring rules"):
 * - `auto` tests have no essay (nothing could mark it);
 * - `manual`/`hybrid` tests must be `after_review` (a human marks before the student sees a result);
 * - option ids unique per question, question ids unique per test;
 * - every correct answer names an existing option;
 * - `proctoringRules` only on a proctored test (on a `none` test it would be silently meaningless);
 *   null is accepted everywhere (what a read of a `none` test says) and means the defaults.
 * - AI marking (essay, short_text): `criteria` are required with `aiMarking`,
 *   their names unique and their points summing to the question's points;
 *   the test must be manual or hybrid (a person can take over any item the
 *   model does not settle, so the result waits for review).
 * A `manual` test may still hold auto-markable items: they are marked at
 * submission, and a reviewer confirms the whole result before release.
 * Returns the questions with ids filled in, or throws 400 with every violation in `details`.
 */
export function checkTestInput(input: TestInput): Question[] {
  const details: ErrorDetail[] = [];
  if (input.marking !== 'auto' && input.resultVisibility !== 'after_review') {
    details.push({ field: 'resultVisibility', message: `must be "after_review" for ${input.marking} marking` });
  }
  if (input.proctoringRules != null && input.proctoring === 'none') {
    details.push({ field: 'proctoringRules', message: 'applies only to proctored tests (proctoring "record" or "live_ai")' });
  }
  const questionIds = new Set<string>();
  input.questions.forEach((q, i) => {
    const at = `questions.${i}`;
    if (q.id !== undefined) {
      if (questionIds.has(q.id)) details.push({ field: `${at}.id`, message: `duplicates question id "${q.id}"` });
      questionIds.add(q.id);
    }
    if (q.type === 'essay' && input.marking === 'auto') {
      details.push({ field: `${at}.type`, message: 'essay questions need manual or hybrid marking' });
    }
    if (q.type === 'essay' || q.type === 'short_text') checkAiMarking(q, at, input.marking, details);
    if (q.type === 'single_choice' || q.type === 'multiple_choice') {
      const optionIds = new Set<string>();
      q.options.forEach((o, j) => {
        if (optionIds.has(o.id)) details.push({ field: `${at}.options.${j}.id`, message: `duplicates option id "${o.id}"` });
        optionIds.add(o.id);
      });
      if (q.type === 'single_choice' && !optionIds.has(q.correctOptionId)) {
        details.push({ field: `${at}.correctOptionId`, message: `"${q.correctOptionId}" is not one of the options` });
      }
      if (q.type === 'multiple_choice') {
        const seen = new Set<string>();
        q.correctOptionIds.forEach((id, j) => {
          if (!optionIds.has(id)) details.push({ field: `${at}.correctOptionIds.${j}`, message: `"${id}" is not one of the options` });
          if (seen.has(id)) details.push({ field: `${at}.correctOptionIds.${j}`, message: `repeats "${id}"` });
          seen.add(id);
        });
      }
    }
  });
  if (details.length > 0) throw new AppError('invalid_request', `${details[0]!.field}: ${details[0]!.message}`, details);
  return input.questions.map((q) => withDefaults({ ...q, id: q.id ?? newId('q') } as Question));
}

function checkAiMarking(
  q: Extract<TestInput['questions'][number], { type: AiMarkableType }>,
  at: string,
  marking: TestInput['marking'],
  details: ErrorDetail[],
): void {
  if (q.aiMarking) {
    if (marking === 'auto') details.push({ field: `${at}.aiMarking`, message: 'needs manual or hybrid marking (AI marks are reviewed before release)' });
    if (!q.criteria) details.push({ field: `${at}.criteria`, message: 'is required with aiMarking: the model marks against criteria' });
  }
  if (!q.criteria) return;
  const names = new Set<string>();
  q.criteria.forEach((c, j) => {
    const key = c.criterion.trim().toLowerCase();
    if (names.has(key)) details.push({ field: `${at}.criteria.${j}.criterion`, message: `duplicates criterion "${c.criterion}"` });
    names.add(key);
  });
  const sum = q.criteria.reduce((s, c) => s + c.points, 0);
  // Points are kept to 4 decimals elsewhere; a sum of thirds may differ from the total in the last binary digits.
  if (Math.abs(sum - q.points) > 1e-6) {
    details.push({ field: `${at}.criteria`, message: `points sum to ${Math.round(sum * 10_000) / 10_000}, but the question is worth ${q.points}` });
  }
}

function withDefaults(q: Question): Question {
  switch (q.type) {
    case 'multiple_choice':
      return { ...q, partialCredit: q.partialCredit ?? false };
    case 'short_text':
      return { ...q, caseSensitive: q.caseSensitive ?? false };
    case 'numeric':
      return { ...q, tolerance: q.tolerance ?? 0 };
    default:
      return q;
  }
}

/** The thresholds stored with the version: the test's overrides over the defaults, resolved now; null for `none`. */
export function storedProctoringRules(input: TestInput): ProctoringRules | null {
  return input.proctoring === 'none' ? null : resolveRules(input.proctoringRules);
}
