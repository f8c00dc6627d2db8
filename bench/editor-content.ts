/**
 * The test the editor benchmarks write: `n` questions in two sections, the
 * nine basic types in turn, each a Markdown prompt with two formulas (a
 * 200-question draft is about 39 KB). `tag` goes into every prompt, so two
 * tests with different tags share no text (nothing any cache holds).
 */
const TYPES = ['single_choice', 'multiple_choice', 'short_text', 'numeric', 'essay', 'matching', 'ordering', 'fill_blanks', 'file_upload'] as const;

export function benchQuestion(i: number, tag = ''): Record<string, unknown> {
  const type = TYPES[i % TYPES.length]!;
  const base = { id: `q${i + 1}`, type, prompt: `Question ${i + 1}${tag}: with $x_${i} = ${i}$, **explain** the following.\n\n$$\\frac{a}{b} + ${i}$$`, points: 1 };
  const opts3 = [{ id: 'a', text: 'First' }, { id: 'b', text: 'Second' }, { id: 'c', text: 'Third' }];
  switch (type) {
    case 'single_choice': return { ...base, options: opts3, correctOptionId: 'a' };
    case 'multiple_choice': return { ...base, options: opts3, correctOptionIds: ['a', 'c'] };
    case 'short_text': return { ...base, acceptedAnswers: ['mitochondria', 'the mitochondria'] };
    case 'numeric': return { ...base, answer: 9.81, tolerance: 0.01 };
    case 'essay': return { ...base, rubric: 'Clear and complete.' };
    case 'matching': return { ...base, stems: [{ id: 's1', text: 'Force' }, { id: 's2', text: 'Energy' }], choices: [{ id: 'n', text: 'newton' }, { id: 'j', text: 'joule' }], correct: { s1: 'n', s2: 'j' } };
    case 'ordering': return { ...base, items: opts3 };
    case 'fill_blanks': return { ...base, text: 'Water boils at {{t}} degrees.', blanks: [{ id: 't', kind: 'text', acceptedAnswers: ['100'] }] };
    default: return { ...base, accept: ['application/pdf'] };
  }
}

export interface BenchTestContent {
  title: string;
  sections: Array<{ title: string; questions: Array<Record<string, unknown>> }>;
  [field: string]: unknown;
}

export function benchTestContent(n: number, tag = ''): BenchTestContent {
  const half = Math.floor(n / 2);
  return {
    title: `${n} questions${tag}`,
    description: 'The editor benchmark.',
    durationMinutes: 120,
    proctoring: 'none',
    marking: 'hybrid',
    resultVisibility: 'after_review',
    passPercent: 50,
    contentFormat: 'markdown',
    sections: [
      { title: 'Part A', questions: Array.from({ length: half }, (_, i) => benchQuestion(i, tag)) },
      { title: 'Part B', questions: Array.from({ length: n - half }, (_, i) => benchQuestion(i + half, tag)) },
    ],
  };
}
