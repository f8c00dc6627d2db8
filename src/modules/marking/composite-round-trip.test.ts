import { XMLValidator } from 'fast-xml-parser';
import { unzipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { checkTestInput } from '../catalog/authoring.js';
import type { Question, TestInput } from '../catalog/schemas.js';
import { markQuestion } from './auto-mark.js';
import type { AnswerValue } from '../attempts/answer-values.js';
import { exportQti3 } from '../catalog/interchange/qti-export.js';
import { importQtiPackage } from '../catalog/interchange/qti-package.js';

/** A composite question exported as one QTI item with a response per part, and imported back equal. */
const opts = (...texts: string[]) => texts.map((text, i) => ({ id: `o${i + 1}`, text }));
const TEST: TestInput = {
  title: 'Composite round trip',
  description: '',
  durationMinutes: 20,
  proctoring: 'none',
  marking: 'auto',
  resultVisibility: 'immediate',
  questions: [
    {
      id: 'cq',
      type: 'composite',
      prompt: 'A car travels 120 km in 1.5 hours.',
      parts: [
        { id: 'speed', type: 'numeric', prompt: 'Its average speed in km/h?', points: 2, answer: 80, tolerance: 0.5 },
        { id: 'unit', type: 'short_text', prompt: 'The SI unit of speed?', points: 1, acceptedAnswers: ['m/s', 'metres per second'] },
        { id: 'kind', type: 'single_choice', prompt: 'Speed is a…', points: 1, options: opts('scalar', 'vector'), correctOptionId: 'o1', shuffleOptions: true },
        { id: 'vec', type: 'multiple_choice', prompt: 'Which are vectors?', points: 2, options: opts('velocity', 'mass', 'force'), correctOptionIds: ['o1', 'o3'], partialCredit: true },
        { id: 'all', type: 'multiple_choice', prompt: 'Which are SI base units?', points: 1, options: opts('metre', 'newton', 'second'), correctOptionIds: ['o1', 'o3'] },
        { id: 'pair', type: 'matching', prompt: 'Match quantity and unit', points: 2, stems: opts('time', 'length'), choices: [{ id: 'c1', text: 's' }, { id: 'c2', text: 'm' }], correct: { o1: 'c1', o2: 'c2' } },
        { id: 'steps', type: 'ordering', prompt: 'Order the steps', points: 3, items: opts('Measure', 'Divide', 'Report'), partialCredit: true },
        { id: 'ord2', type: 'ordering', prompt: 'Smallest first', points: 1, items: opts('mm', 'cm', 'm') },
      ],
    },
  ],
};

const stored = () => {
  const content = checkTestInput(TEST);
  return { testId: 'tst_composite', title: TEST.title, durationMinutes: TEST.durationMinutes, questions: content.questions };
};

describe('QTI export of a composite question', () => {
  const zip = exportQti3(stored());
  const item = new TextDecoder().decode(unzipSync(zip)['items/cq.xml']!);

  it('writes one well-formed item with a response declaration per part and processing that adds each part to SCORE', () => {
    expect(XMLValidator.validate(item)).toBe(true);
    for (const id of ['speed', 'unit', 'kind', 'vec', 'all', 'pair', 'steps', 'ord2']) {
      expect(item).toContain(`<qti-response-declaration identifier="${id}"`);
      expect(item).toContain(`response-identifier="${id}"`);
    }
    expect(item).toContain('<qti-value>13</qti-value>'); // MAXSCORE: the parts' sum
    expect(item).not.toContain('template=');
    expect(item.match(/<qti-variable identifier="SCORE"\/>/g)).toHaveLength(7 + 3);
  });

  it('imports back as an equal composite question that marks every answer alike', async () => {
    const { input, report } = await importQtiPackage(zip);
    expect(report.skipped).toEqual([]);
    const back = checkTestInput(input!).questions[0]!;
    const original = stored().questions[0]!;
    const noShuffle = (q: Question) => JSON.parse(JSON.stringify(q, (k, v) => (k === 'shuffleOptions' && v === false ? undefined : v)));
    expect(noShuffle(back)).toEqual(noShuffle(original));
    const answers: AnswerValue[] = [
      { speed: '80.4', unit: 'M/S', kind: 'o1', vec: ['o1', 'o2'], all: ['o1', 'o3'], pair: { o1: 'c1' }, steps: ['o1', 'o3', 'o2'], ord2: ['o1', 'o2', 'o3'] },
      { speed: '81', kind: 'o2', vec: ['o1', 'o3'], all: ['o1'], pair: { o1: 'c2', o2: 'c2' }, steps: ['o3', 'o2', 'o1'] },
    ];
    for (const a of answers) expect(markQuestion(back, a)).toEqual(markQuestion(original, a));
  });
});
