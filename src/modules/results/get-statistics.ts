import type { Queryable } from '../../platform/db.js';
import { notFound } from '../../platform/errors.js';
import { loadTestVersion } from '../catalog/test-versions.js';
import { sectionsOf, type StoredSection } from '../catalog/sections.js';
import type { Question } from '../catalog/schemas.js';
import type { BaseQuestion } from '../catalog/question-types/definition.js';
import { questionType } from '../catalog/question-types/registry.js';
import type { ContentFormat } from '../catalog/content/content-format.js';
import { markQuestion } from '../marking/auto-mark.js';
import { findTestVersionId, institutionSeesTest, statisticsSums, type StatisticsSums } from './statistics-repo.js';
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

/** Who asks for which statistics: one institution, one test, one version (the newest when absent), one mode. */
export interface StatisticsQuery {
  institutionId: string;
  testId: string;
  version?: number | undefined;
  livemode: boolean;
}

/**
 * What the statistics are computed from, as read from the database: the
 * version's questions and sections and the sums (statistics-repo.ts). Plain
 * data (structured-cloneable), so the computing and rendering can run on a
 * worker-pool thread while the reads stay on the event loop.
 */
export interface StatisticsInputs {
  testId: string;
  institutionId: string;
  livemode: boolean;
  version: number;
  contentFormat: ContentFormat;
  questions: Question[];
  sections: StoredSection[] | null;
  sums: StatisticsSums;
}

/**
 * The reads the item statistics of one version of a test for one institution
 * and one mode need (docs/results.md). A test the institution cannot see, or
 * a version the test does not have, is not found (never saying which).
 */
export async function readStatisticsInputs(db: Queryable, q: StatisticsQuery): Promise<StatisticsInputs> {
  if (!(await institutionSeesTest(db, q.institutionId, q.testId))) throw notFound('test');
  const versionId = await findTestVersionId(db, q.testId, q.version);
  if (!versionId) throw notFound('test version');
  const test = await loadTestVersion(db, versionId);
  const sums = await statisticsSums(db, { institutionId: q.institutionId, testVersionId: versionId, livemode: q.livemode }, fixedQuestionIds(test));
  return {
    testId: q.testId,
    institutionId: q.institutionId,
    livemode: q.livemode,
    version: test.version,
    contentFormat: test.contentFormat ?? 'plain',
    questions: test.questions,
    sections: test.sections,
    sums,
  };
}

/** The questions every attempt was given (outside any pool): alpha's. */
function fixedQuestionIds(test: { sections: StoredSection[] | null; questions: readonly Question[] }): string[] {
  return sectionsOf(test)
    .filter((s) => s.draw === null || s.draw >= s.questionIds.length)
    .flatMap((s) => s.questionIds);
}

/**
 * The item statistics from their inputs: pure, and linear in the questions
 * and options (not the attempts, which the sums have already summed). Run on
 * a worker-pool thread by the routes (statistics-task.ts): at 500 questions
 * it and what renders its figures held the event loop for tens to hundreds
 * of milliseconds.
 */
export function statisticsFrom(inputs: StatisticsInputs): TestStatistics {
  const { sums } = inputs;
  const sectionOf = new Map(sectionsOf(inputs).flatMap((s) => s.questionIds.map((id) => [id, s] as const)));
  const itemSums = new Map(sums.items.map((i) => [i.questionId, i]));
  const optionSums = new Map(sums.options.map((o) => [`${o.questionId}\u0000${o.optionId}`, o]));

  const items: ItemStatistics[] = inputs.questions.map((question) => {
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
    testId: inputs.testId,
    version: inputs.version,
    institutionId: inputs.institutionId,
    livemode: inputs.livemode,
    contentFormat: inputs.contentFormat,
    ...totalFigures(sums.totals, sums.alpha),
    alphaItems: sums.alpha.items.length,
    items,
  };
}

/** The item statistics, read and computed here (on the event loop): for tests and scripts; the routes compute on the worker pool. */
export async function getTestStatistics(db: Queryable, q: StatisticsQuery): Promise<TestStatistics> {
  return statisticsFrom(await readStatisticsInputs(db, q));
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
