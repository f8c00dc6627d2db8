import type { QuestionInput } from '../src/modules/catalog/schemas.js';

/** One question of each type, the first three worth 1 point (the bench's pool draws from those). */
export const BENCH_QUESTIONS: QuestionInput[] = [
  { type: 'single_choice', prompt: 'Pick B', points: 1, options: [{ id: 'a', text: 'A' }, { id: 'b', text: 'B' }, { id: 'c', text: 'C' }], correctOptionId: 'b', shuffleOptions: true },
  { type: 'numeric', prompt: 'Pi to two places', points: 1, answer: 3.14, tolerance: 0.005 },
  { type: 'ordering', prompt: 'Order these', points: 1, items: [{ id: 'a', text: 'one' }, { id: 'b', text: 'two' }, { id: 'c', text: 'three' }] },
  { type: 'multiple_choice', prompt: 'Pick A and C', points: 3, options: [{ id: 'a', text: 'A' }, { id: 'b', text: 'B' }, { id: 'c', text: 'C' }, { id: 'd', text: 'D' }], correctOptionIds: ['a', 'c'], partialCredit: true },
  { type: 'short_text', prompt: 'Capital of France?', points: 2, acceptedAnswers: ['Paris', 'paris city'] },
  { type: 'essay', prompt: 'Discuss', points: 5, rubric: 'Clarity' },
  { type: 'matching', prompt: 'Match', points: 3, stems: [{ id: 's1', text: 'France' }, { id: 's2', text: 'Spain' }, { id: 's3', text: 'Italy' }], choices: [{ id: 'c1', text: 'Paris' }, { id: 'c2', text: 'Madrid' }, { id: 'c3', text: 'Rome' }], correct: { s1: 'c1', s2: 'c2', s3: 'c3' } },
  { type: 'fill_blanks', prompt: 'Fill in', points: 2, text: 'Water is {{b1}} and {{b2}}.', blanks: [{ id: 'b1', kind: 'text', acceptedAnswers: ['H2O'] }, { id: 'b2', kind: 'choice', options: [{ id: 'w', text: 'wet' }, { id: 'd', text: 'dry' }], correctOptionId: 'w' }] },
  { type: 'file_upload', prompt: 'Upload a PDF', points: 4, accept: ['application/pdf'] },
];
