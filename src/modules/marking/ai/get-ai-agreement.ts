import type { Queryable } from '../../../platform/db.js';
import { allQuestions } from '../../catalog/sections.js';
import { notFound } from '../../../platform/errors.js';
import { tenantInstitution, type Tenant } from '../../../platform/principal.js';
import { getTest } from '../../catalog/tests-service.js';
import type { AiMarkingMode } from '../../catalog/test-settings.js';
import { agreementFigures, type AgreementFigures } from './agreement.js';
import { isAiQuestion } from './ai-items.js';
import { listMarkPairs } from './suggestions-repo.js';

/**
 * Agreement between the model and reviewers per question of a test, over
 * every item both marked (a stored suggestion and a reviewer's mark; items
 * the model decided alone have no reviewer mark and are not counted). Every
 * AI-marked question of the current version is listed, with n = 0 until a
 * reviewer has marked one of its suggestions; questions of earlier versions
 * appear while they have pairs. The operator sees every institution; a
 * portal passes its institution (a test neither published to it nor marked
 * for it is not found).
 */
export interface QuestionAgreement extends AgreementFigures {
  questionId: string;
  /** Null for a question no longer in the current version. */
  prompt: string | null;
  mode: AiMarkingMode | null;
  maxPoints: number;
}

export interface AiAgreement {
  testId: string;
  questions: QuestionAgreement[];
}

export async function getAiAgreement(db: Queryable, testId: string, scope: Tenant): Promise<AiAgreement> {
  const test = await getTest(db, testId);
  const pairs = await listMarkPairs(db, testId, scope);
  const only = tenantInstitution(scope);
  if (only !== null && !test.publishedTo.includes(only) && pairs.length === 0) throw notFound('test');

  const byQuestion = new Map<string, typeof pairs>();
  for (const p of pairs) byQuestion.set(p.questionId, [...(byQuestion.get(p.questionId) ?? []), p]);
  const current = allQuestions(test).filter(isAiQuestion);
  const ids = [...current.map((q) => q.id), ...[...byQuestion.keys()].filter((id) => !current.some((q) => q.id === id)).sort()];

  return {
    testId,
    questions: ids.map((questionId) => {
      const q = current.find((c) => c.id === questionId);
      const group = byQuestion.get(questionId) ?? [];
      const maxPoints = q?.points ?? Math.max(...group.map((p) => p.maxPoints));
      return { questionId, prompt: q?.prompt ?? null, mode: q?.aiMarking.mode ?? null, maxPoints, ...agreementFigures(group, maxPoints) };
    }),
  };
}
