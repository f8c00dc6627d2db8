import { XMLValidator } from 'fast-xml-parser';
import { unzipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { itemsPackage, type QtiVersion } from '../../../test/helpers/qti.js';
import type { AnswerValue } from '../attempts/answer-values.js';
import { markQuestion } from '../marking/auto-mark.js';
import { bestAnswer } from './simulated-answers.js';
import { checkTestInput } from '../catalog/authoring.js';
import { scoringProblems } from '../catalog/qti-scoring.js';
import type { Question, QuestionInput } from '../catalog/schemas.js';
import { exportQti3 } from '../catalog/interchange/qti-export.js';
import { importQtiPackage } from '../catalog/interchange/qti-package.js';

/**
 * Composite items whose processing does not split by part keep it: a choice
 * and a text entry with a bonus when both are right (composite-bonus.xml),
 * and two choices under match_correct, which reads only RESPONSE
 * (composite-unsplit.xml). Imported through the package import, marked by
 * running the processing over the composite answer, exported and imported back.
 */
async function imported(name: string, version: QtiVersion): Promise<Question> {
  const { input, report } = await importQtiPackage(itemsPackage([name], version));
  expect(report.skipped).toEqual([]);
  return checkTestInput(input!).questions[0]!;
}
const points = (q: Question, a: AnswerValue) => {
  const m = markQuestion(q, a);
  return m.kind === 'auto' ? m.points : 'manual';
};

/** Answers to composite-bonus.xml and the points its processing gives them (1 for the capital, 1 for the river, 2 more for both). */
const BONUS_MARKS: Array<[AnswerValue, number]> = [
  [{ CAPITAL: 'paris', RIVER: 'Seine' }, 4],
  // The processing compares the river without case, although the declared (shown) key is "Seine".
  [{ CAPITAL: 'paris', RIVER: '  seine ' }, 4],
  [{ CAPITAL: 'paris', RIVER: 'Loire' }, 1],
  [{ CAPITAL: 'paris' }, 1],
  [{ CAPITAL: 'lyon', RIVER: 'Seine' }, 1],
  [{ RIVER: 'SEINE' }, 1],
  [{ CAPITAL: 'nice', RIVER: '' }, 0],
  [{}, 0],
  [null, 0],
];

describe.each<QtiVersion>(['3.0', '2.2'])('QTI %s composite item that keeps its processing', (version) => {
  it('imports as a composite question, one part per interaction, each response mapped to its part, points the best the key gets', async () => {
    const q = await imported('composite-bonus.xml', version);
    expect(q).toMatchObject({
      id: 'france-bonus',
      type: 'composite',
      prompt: 'Answer both questions about France.',
      points: 4,
      parts: [
        { id: 'CAPITAL', type: 'single_choice', prompt: 'Which city is the capital of France?', correctOptionId: 'paris', options: [{ id: 'lyon' }, { id: 'paris' }, { id: 'nice' }] },
        { id: 'RIVER', type: 'short_text', prompt: 'Which river flows through it?', acceptedAnswers: ['Seine'] },
      ],
      scoring: { format: 'qti', responses: [{ identifier: 'CAPITAL', partId: 'CAPITAL' }, { identifier: 'RIVER', partId: 'RIVER' }] },
    });
    const scoring = (q as Extract<Question, { type: 'composite' }>).scoring!;
    expect(scoring.responseProcessing).toContain('<qti-and>');
    expect(scoring.declarations).toContain('<qti-response-declaration identifier="RIVER" cardinality="single" base-type="string">');
  });

  it.each(BONUS_MARKS)('marks %j by running the processing: %d', async (answer, expected) => {
    const q = await imported('composite-bonus.xml', version);
    expect(points(q, answer)).toBe(expected);
  });

  it('composite-unsplit.xml (match_correct over the first of two choices) imports, marked by RESPONSE alone', async () => {
    const q = await imported('composite-unsplit.xml', version);
    expect(q).toMatchObject({
      type: 'composite',
      points: 1,
      parts: [{ id: 'RESPONSE', type: 'single_choice', correctOptionId: 'a' }, { id: 'RESPONSE2', type: 'single_choice', correctOptionId: 'b' }],
      scoring: { responses: [{ identifier: 'RESPONSE', partId: 'RESPONSE' }, { identifier: 'RESPONSE2', partId: 'RESPONSE2' }] },
    });
    expect(points(q, { RESPONSE: 'a', RESPONSE2: 'a' })).toBe(1);
    expect(points(q, { RESPONSE: 'b', RESPONSE2: 'b' })).toBe(0);
    expect(points(q, { RESPONSE2: 'b' })).toBe(0);
  });
});

describe('a kept composite through the sandbox and export', () => {
  it("marks a fill_blanks part's blanks as the responses named by their ids", async () => {
    const q = structuredClone(await imported('composite-bonus.xml', '3.0')) as Extract<Question, { type: 'composite' }>;
    q.parts[1] = { id: 'gap', type: 'fill_blanks', prompt: 'Complete.', points: 1, text: 'The {{RIVER}} flows through it.', blanks: [{ id: 'RIVER', kind: 'text', acceptedAnswers: ['Seine'], caseSensitive: false }] };
    q.scoring!.responses[1]!.partId = 'gap';
    expect(scoringProblems(q, 'q')).toEqual([]);
    expect(points(q, { CAPITAL: 'paris', gap: { RIVER: 'seine' } })).toBe(4);
    expect(points(q, { CAPITAL: 'lyon', gap: { RIVER: 'Seine' } })).toBe(1);
    // The part's value is read as a fill_blanks answer: a bare text is no blank's.
    expect(points(q, { CAPITAL: 'paris', gap: 'Seine' })).toBe(1);
  });

  it("the sandbox's best answer is the key's, worth the question's points", async () => {
    const q = await imported('composite-bonus.xml', '3.0');
    expect(bestAnswer(q)).toEqual({ value: { CAPITAL: 'paris', RIVER: 'Seine' }, points: 4 });
  });

  it('exports the stored declarations and processing unchanged, each interaction under its response, and imports back with the same scoring and marks', async () => {
    const q = await imported('composite-bonus.xml', '3.0');
    const scoring = (q as Extract<Question, { type: 'composite' }>).scoring!;
    const zip = exportQti3({ testId: 'tst_bonus', title: 'France', durationMinutes: 10, questions: [q] });
    const item = new TextDecoder().decode(unzipSync(zip)['items/france-bonus.xml']!);
    expect(XMLValidator.validate(item)).toBe(true);
    expect(item).toContain(scoring.declarations);
    expect(item).toContain(scoring.responseProcessing);
    expect(item).toContain('<qti-choice-interaction response-identifier="CAPITAL"');
    expect(item).toContain('<qti-text-entry-interaction response-identifier="RIVER"/>');
    expect(item).not.toContain('MAXSCORE');
    const { input, report } = await importQtiPackage(zip);
    expect(report.skipped).toEqual([]);
    const back = checkTestInput(input!).questions[0]!;
    expect(back).toEqual(q);
    for (const [answer, expected] of BONUS_MARKS) expect(points(back, answer)).toBe(expected);
  });
});

describe('authoring scoring on a composite question', () => {
  const base = async () => (await imported('composite-bonus.xml', '3.0')) as QuestionInput & { type: 'composite' };
  const problems = async (change: (q: Record<string, any>) => void) => {
    const q = structuredClone(await base()) as Record<string, any>;
    change(q);
    return scoringProblems(q as QuestionInput, 'questions.0');
  };

  it('accepts the imported form', async () => {
    expect(await problems(() => {})).toEqual([]);
  });

  it('refuses a partId naming no part, a response without partId, and a part no response fills', async () => {
    expect(await problems((q) => (q.scoring.responses[1].partId = 'OCEAN'))).toEqual([
      { field: 'questions.0.scoring.responses.1.partId', message: '"OCEAN" is not a part of this question' },
      { field: 'questions.0.scoring.responses', message: 'maps no response to part "RIVER", so its answer would not count' },
    ]);
    expect(await problems((q) => delete q.scoring.responses[0].partId)).toEqual([
      { field: 'questions.0.scoring.responses.0.partId', message: "is required: a composite question's response names the part whose answer fills it" },
      { field: 'questions.0.scoring.responses', message: 'maps no response to part "CAPITAL", so its answer would not count' },
    ]);
  });

  it("checks each response against its part's type", async () => {
    expect(await problems((q) => (q.scoring.responses = [{ identifier: 'CAPITAL', partId: 'RIVER' }, { identifier: 'RIVER', partId: 'CAPITAL' }]))).toEqual([
      { field: 'questions.0.scoring.responses.0.identifier', message: '"CAPITAL" is declared single identifier, but a short_text answer (part "RIVER") gives one text (single string)' },
      { field: 'questions.0.scoring.responses.1.identifier', message: '"RIVER" is declared single string, but a single_choice answer (part "CAPITAL") gives one option id (single identifier)' },
    ]);
  });

  it('maps a fill_blanks part by its blank ids, each blank checked as a blank', async () => {
    const q = await problems((q) => {
      q.parts[1] = { id: 'RIVER', type: 'fill_blanks', prompt: 'Complete.', points: 1, text: 'The {{RIVER}} flows through it.', blanks: [{ id: 'RIVER', kind: 'text', acceptedAnswers: ['Seine'] }] };
    });
    expect(q).toEqual([]);
    expect(
      await problems((q) => {
        q.parts[1] = { id: 'RIVER', type: 'fill_blanks', prompt: 'Complete.', points: 1, text: 'The {{name}} flows.', blanks: [{ id: 'name', kind: 'text', acceptedAnswers: ['Seine'] }] };
      }),
    ).toEqual([{ field: 'questions.0.scoring.responses.1.identifier', message: `"RIVER" names no blank of part "RIVER" (a fill_blanks response is named by its blank's id)` }]);
  });
});
