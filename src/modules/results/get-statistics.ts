import type { Queryable } from '../../platform/db.js';
import { notFound } from '../../platform/errors.js';
import { loadTestVersion } from '../catalog/test-versions.js';
import { sectionsOf } from '../catalog/sections.js';
import type { Question } from '../catalog/schemas.js';
import type { BaseQuestion } from '../catalog/question-types/definition.js';
import { questionType } from '../catalog/question-types/registry.js';
import type { ContentFormat } from '../catalog/content/content-format.js';
import { markQuestion } from '../marking/auto-mark.js';
import { findTestVersionId, institutionSeesTest, statisticsSums } from './statistics-repo.js';
import { itemFigures, itemFlags, pointBiserial, totalFigures } from './item-statistics.js';

export interface OptionStatistics {
  optionId: string;
  text: string;
  correct: boolean;
  chosen: number;
  pointBiserial: number | null;
}

export interface ItemStatistics {
  questionId: string;
  prompt: string;
  type: string;
  section: string;
  points: number;
  attempts: number;
  facility: number | null;
  discrimination: number | null;
  options?: OptionStatistics[];
  flags: string[];
}

export interface TestStatistics {
  testId: string;
  version: number;
  institutionId: string;
  livemode: boolean;
  /** How the version's texts (prompts, options) are written: staff pages and the CSV show them as plain text (contentText). Not in the API's answer. */
  contentFormat: ContentFormat;
  attempts: number;
  meanPercent: number | null;
  standardDeviation: number | null;
  alpha: number | null;
  /** How many questions alpha is computed over (those outside any pool). */
  alphaItems: number;
  standardError: number | null;
  items: ItemStatistics[];
}

/**
 * The item statistics of one version of a test for one institution and one
 * mode (docs/results.md). A test the institution cannot see, or a version
 * the test does not have, is not found (never saying which).
 */
export async function getTestStatistics(
  db: Queryable,
  q: { institutionId: string; testId: string; version?: number | undefined; livemode: boolean },
): Promise<TestStatistics> {
  if (!(await institutionSeesTest(db, q.institutionId, q.testId))) throw notFound('test');
  const versionId = await findTestVersionId(db, q.testId, q.version);
  if (!versionId) throw notFound('test version');
  const test = await loadTestVersion(db, versionId);
  const sections = sectionsOf(test);
  const sectionOf = new Map(sections.flatMap((s) => s.questionIds.map((id) => [id, s] as const)));
  const fixedIds = sections.filter((s) => s.draw === null || s.draw >= s.questionIds.length).flatMap((s) => s.questionIds);
  const sums = await statisticsSums(db, { institutionId: q.institutionId, testVersionId: versionId, livemode: q.livemode }, fixedIds);
  const itemSums = new Map(sums.items.map((i) => [i.questionId, i]));
  const optionSums = new Map(sums.options.map((o) => [`${o.questionId}\u0000${o.optionId}`, o]));

  const items: ItemStatistics[] = test.questions.map((question) => {
    const s = itemSums.get(question.id);
    const figures = itemFigures(s, question.points);
    let options: OptionStatistics[] | undefined;
    const def = questionType(question.type);
    if (def?.statistics) {
      // A registered type names its options; the rollup counted the ids its answers chose (statistics-repo.ts).
      const byProcessing = question.type === 'single_choice' && question.scoring ? new Set(keyedOptions(question)) : null;
      options = def.statistics.options(question as BaseQuestion).map((o) => {
        const os = optionSums.get(`${question.id}\u0000${o.id}`);
        return { optionId: o.id, text: o.text, correct: byProcessing ? byProcessing.has(o.id) : o.correct, chosen: os?.chosen ?? 0, pointBiserial: pointBiserial(os, s) };
      });
    }
    return {
      questionId: question.id,
      prompt: question.prompt,
      type: question.type,
      section: sectionOf.get(question.id)?.title ?? '',
      points: question.points,
      ...figures,
      ...(options ? { options } : {}),
      flags: itemFlags(figures, options),
    };
  });
  return {
    testId: q.testId,
    version: test.version,
    institutionId: q.institutionId,
    livemode: q.livemode,
    contentFormat: test.contentFormat ?? 'plain',
    ...totalFigures(sums.totals, sums.alpha),
    alphaItems: sums.alpha.items.length,
    items,
  };
}

/**
 * The options counted as correct (not distractors): the key's, except for a
 * single choice that keeps its imported QTI processing, where an option is
 * correct when choosing it alone earns points, as marking gives them.
 */
function keyedOptions(q: Extract<Question, { type: 'single_choice' }>): string[] {
  if (!q.scoring) return [q.correctOptionId];
  return q.options.map((o) => o.id).filter((id) => {
    const mark = markQuestion(q, id);
    return mark.kind === 'auto' && mark.points > 0;
  });
}
