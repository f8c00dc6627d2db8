import type { Pool } from '../src/platform/db.js';
import type { TestInput } from '../src/modules/catalog/schemas.js';
import { seedScoredAttempts } from './seed-results.js';

/**
 * A long candidate report, for the tests and the benchmark that time its PDF
 * (docs/performance.md "Report PDFs and statistics off the event loop"): a
 * test of `sections` sections of `perSection` numeric questions, one
 * completed attempt with every question marked (the report's score by
 * section and, with the institution's `reportShowsQuestions` on, its points
 * by question), the reviewer's feedback on the attempt and on
 * `feedbackQuestions` questions (two paragraphs each, about 900
 * characters), and the candidate's language set as the Language menu sets it.
 */
export function longReportTest(sections: number, perSection: number): TestInput {
  return {
    title: 'Modern history: the long paper',
    description: '',
    durationMinutes: 120,
    proctoring: 'none',
    marking: 'auto',
    resultVisibility: 'immediate',
    passPercent: 50,
    sections: Array.from({ length: sections }, (_, s) => ({
      id: `s${s + 1}`,
      title: `Part ${s + 1}: sources and analysis`,
      questions: Array.from({ length: perSection }, (_, i) => ({ id: `q${s + 1}_${i + 1}`, type: 'numeric' as const, prompt: `Question ${i + 1} of part ${s + 1}`, points: 2, answer: 2 })),
    })),
  };
}

/** One paragraph of a reviewer's feedback, about 450 characters, in the candidate's language where we have words for it. */
const PARAGRAPH: Record<string, string> = {
  en: 'The answer names the main causes but does not weigh them against each other. Say which of them mattered most and why, with one example from the sources for each claim you make. '.repeat(2),
  ja: '解答は主な原因を挙げていますが、それらを互いに比較していません。どの原因が最も重要だったのか、その理由とともに述べ、主張ごとに資料から例を一つ挙げてください。'.repeat(4),
  ar: 'تذكر الإجابة الأسباب الرئيسية لكنها لا توازن بينها. بيّن أيها كان الأهم ولماذا، مع مثال واحد من المصادر لكل ادعاء تقدمه. '.repeat(3),
};

export interface LongReport {
  institutionId: string;
  testId: string;
  testVersionId: string;
  locale: string;
  sections: number;
  perSection: number;
  feedbackQuestions: number;
}

/** Seeds the attempt and its feedback; returns the assignment's id. The institution's `reportShowsQuestions` is the caller's to set. */
export async function seedLongReport(pool: Pool, r: LongReport): Promise<string> {
  const ids = Array.from({ length: r.sections }, (_, s) => Array.from({ length: r.perSection }, (_, i) => `q${s + 1}_${i + 1}`));
  const marks = Object.fromEntries(ids.flat().map((id, k) => [id, k % 3]));
  const delivery = { sections: ids.map((questionIds, s) => ({ sectionId: `s${s + 1}`, questionIds })), optionOrder: {}, itemOrder: {} };
  const sectionScores = ids.map((questionIds, s) => {
    const points = questionIds.reduce((sum, id) => sum + marks[id]!, 0);
    const max = questionIds.length * 2;
    return { sectionId: `s${s + 1}`, title: `Part ${s + 1}: sources and analysis`, points, maxPoints: max, percent: Math.round((points / max) * 10_000) / 100 };
  });
  const [assignmentId] = await seedScoredAttempts(
    pool,
    { institutionId: r.institutionId, testId: r.testId, testVersionId: r.testVersionId, livemode: true, maxPoints: ids.flat().length * 2, passPercent: 50, sections: () => sectionScores },
    [{ externalUserId: `long-report-${r.locale}-${Date.now()}`, name: 'Grace Hopper', delivery, answers: {}, marks }],
  );
  const para = PARAGRAPH[r.locale] ?? PARAGRAPH['en']!;
  const text = `${para}\n\n${para}`;
  await pool.query('UPDATE assignments SET candidate_locale = $2 WHERE id = $1', [assignmentId, r.locale]);
  await pool.query(`INSERT INTO candidate_feedback (assignment_id, institution_id, overall, questions, written_by, updated_at) VALUES ($1, $2, $3, $4, 'seed', now())`, [
    assignmentId,
    r.institutionId,
    text,
    JSON.stringify(ids.flat().slice(0, r.feedbackQuestions).map((questionId) => ({ questionId, feedback: text }))),
  ]);
  return assignmentId!;
}

/**
 * A large Markdown test for the statistics (the most a test may hold is 500
 * questions): `questions` single-choice questions in four sections, each
 * prompt and option with a formula, so the Statistics page renders every
 * text (MathML) and the CSV reads every one to plain text.
 */
export function bigStatisticsTest(questions: number): TestInput {
  const qs = Array.from({ length: questions }, (_, i) => ({
    id: `q${i + 1}`,
    type: 'single_choice' as const,
    prompt: `Solve $x^${(i % 5) + 2} = ${i + 1}$ for **x**, given the *usual* rules`,
    points: 1,
    options: [0, 1, 2, 3].map((k) => ({ id: `o${k}`, text: `$x = \\sqrt[${(i % 5) + 2}]{${i + k + 1}}$` })),
    correctOptionId: 'o0',
  }));
  const quarter = Math.ceil(questions / 4);
  return {
    title: 'Algebra: the big bank',
    description: '',
    durationMinutes: 120,
    proctoring: 'none',
    marking: 'auto',
    resultVisibility: 'immediate',
    passPercent: 50,
    contentFormat: 'markdown',
    sections: [0, 1, 2, 3]
      .map((s) => ({ id: `s${s + 1}`, title: `Section ${s + 1}`, questions: qs.slice(s * quarter, (s + 1) * quarter) }))
      .filter((s) => s.questions.length > 0),
  };
}

/** `count` attempts of bigStatisticsTest: each chooses an option by a fixed rule, marked 1 for the key. */
export function bigStatisticsAttempts(input: TestInput, count: number, tag: string): Array<{ externalUserId: string; delivery: unknown; answers: Record<string, unknown>; marks: Record<string, number> }> {
  const sections = input.sections!;
  const delivery = { sections: sections.map((s) => ({ sectionId: s.id!, questionIds: s.questions.map((q) => (q as { id: string }).id) })), optionOrder: {}, itemOrder: {} };
  const ids = delivery.sections.flatMap((s) => s.questionIds);
  return Array.from({ length: count }, (_, i) => {
    const answers: Record<string, unknown> = {};
    const marks: Record<string, number> = {};
    ids.forEach((id, k) => {
      // Stronger candidates (higher i mod 10) choose the key more often, so the figures are not all null.
      const o = (i * 7 + k * 13) % (4 + (i % 10));
      answers[id] = `o${o % 4}`;
      marks[id] = o % 4 === 0 ? 1 : 0;
    });
    return { externalUserId: `${tag}-${i}`, delivery, answers, marks };
  });
}
