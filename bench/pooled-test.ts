import type { AnswerValue } from '../src/modules/attempts/answer-values.js';
import type { Question, QuestionInput, TestInput } from '../src/modules/catalog/schemas.js';

/**
 * The pooled, sectioned test of bench/student-autosave.ts: five sections,
 * each a pool of 16 questions of which every candidate is given 8 (40 in
 * all), questions and options shuffled, all nine question types. Each pool
 * mixes types, so the saves of one candidate go to every autosaved type.
 */
const SECTIONS = 5;
const POOL = 16;
const DRAW = 8;

/** The i-th question of a pool: the nine types in turn. */
function question(id: string, i: number): QuestionInput {
  const prompt = `Question ${id}`;
  const points = 2;
  const options = ['a', 'b', 'c', 'd'].map((o) => ({ id: o, text: `Option ${o.toUpperCase()}` }));
  switch (i % 9) {
    case 0:
      return { id, type: 'single_choice', prompt, points, options: [...options, { id: 'none', text: 'None of these', fixed: true }], correctOptionId: 'b', shuffleOptions: true };
    case 1:
      return { id, type: 'multiple_choice', prompt, points, options, correctOptionIds: ['a', 'c'], partialCredit: true, shuffleOptions: true };
    case 2:
      return { id, type: 'short_text', prompt, points, acceptedAnswers: ['photosynthesis'] };
    case 3:
      return { id, type: 'numeric', prompt, points, answer: 9.81, tolerance: 0.01 };
    case 4:
      return { id, type: 'essay', prompt, points, rubric: 'Clear argument, evidence, conclusion.', maxWords: 300 };
    case 5:
      return {
        id,
        type: 'matching',
        prompt,
        points,
        stems: ['s1', 's2', 's3', 's4'].map((s) => ({ id: s, text: `Stem ${s}` })),
        choices: ['c1', 'c2', 'c3', 'c4', 'c5'].map((c) => ({ id: c, text: `Choice ${c}` })),
        correct: { s1: 'c1', s2: 'c2', s3: 'c3', s4: 'c4' },
      };
    case 6:
      return { id, type: 'ordering', prompt, points, items: ['i1', 'i2', 'i3', 'i4', 'i5'].map((x) => ({ id: x, text: `Step ${x}` })), partialCredit: true };
    case 7:
      return {
        id,
        type: 'fill_blanks',
        prompt,
        points,
        text: 'Water boils at {{temp}} °C at sea level; its formula is {{formula}}.',
        blanks: [
          { id: 'temp', kind: 'text', acceptedAnswers: ['100'] },
          { id: 'formula', kind: 'choice', options: [{ id: 'h2o', text: 'H2O' }, { id: 'co2', text: 'CO2' }], correctOptionId: 'h2o' },
        ],
      };
    default:
      return { id, type: 'file_upload', prompt, points, accept: ['application/pdf', 'image/png'], rubric: 'Legible working.' };
  }
}

export const POOLED_DRAWN = SECTIONS * DRAW;

export function pooledTest(): TestInput {
  return {
    title: 'Autosave load, pooled',
    description: `${SECTIONS} sections, each drawing ${DRAW} of ${POOL} questions of all nine types.`,
    durationMinutes: 60,
    proctoring: 'none',
    marking: 'hybrid',
    resultVisibility: 'after_review',
    passPercent: null,
    sections: Array.from({ length: SECTIONS }, (_, s) => ({
      id: `part-${s + 1}`,
      title: `Part ${s + 1}`,
      instructions: 'Answer every question.',
      shuffleQuestions: true,
      draw: DRAW,
      // Start each pool at another type, so the draws cover every type evenly.
      questions: Array.from({ length: POOL }, (_, i) => question(`p${s + 1}q${i + 1}`, i + s)),
    })),
  };
}

/**
 * A valid answer to `q` for the `seq`-th save, as the test page sends it,
 * already in the form the server stores it (choice ids in option order),
 * so the bench can compare it with the stored value. Null for file_upload,
 * which is not autosaved (the file is uploaded).
 */
export function benchAnswer(q: Question, seq: number): AnswerValue | undefined {
  const odd = seq % 2 === 1;
  switch (q.type) {
    case 'single_choice':
      return odd ? 'b' : 'c';
    case 'multiple_choice':
      return odd ? ['a', 'c'] : ['b'];
    case 'short_text':
      return `photosynthesis ${seq}`;
    case 'numeric':
      return `9.${seq}`;
    case 'essay':
      return `Draft ${seq}: the evidence points one way, and the conclusion follows from it.`;
    case 'matching':
      return odd ? { s1: 'c1', s2: 'c2', s3: 'c5' } : { s1: 'c2', s2: 'c2', s3: 'c3', s4: 'c4' };
    case 'ordering':
      return odd ? ['i2', 'i1', 'i3', 'i4', 'i5'] : ['i1', 'i2', 'i3', 'i5', 'i4'];
    case 'fill_blanks':
      return odd ? { temp: `${seq}`, formula: 'h2o' } : { temp: '100', formula: 'co2' };
    case 'file_upload':
      return undefined;
  }
}
