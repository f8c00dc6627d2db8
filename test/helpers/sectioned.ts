import type { TestInput } from '../../src/modules/catalog/schemas.js';

/**
 * A sectioned, pooled test of the new question types: section "Pool"
 * draws 2 of 5 equal-point single-choice questions, shuffled, with
 * shuffled options of which "None of these" is fixed last; section
 * "Skills" holds one of each auto-marked new type; section "Writing" an
 * essay marked by a reviewer.
 */
export const POOL_IDS = ['p1', 'p2', 'p3', 'p4', 'p5'] as const;

export function sectionedTest(over: Partial<TestInput> = {}): TestInput {
  return {
    title: 'Sectioned exam',
    description: 'Sections, a pool and the new types',
    durationMinutes: 30,
    proctoring: 'none',
    marking: 'hybrid',
    resultVisibility: 'after_review',
    passPercent: 50,
    sections: [
      {
        id: 'pool',
        title: 'Pool',
        instructions: 'Two questions drawn from five.',
        draw: 2,
        shuffleQuestions: true,
        questions: POOL_IDS.map((id, i) => ({
          id,
          type: 'single_choice' as const,
          prompt: `Pool question ${i + 1}`,
          points: 2,
          shuffleOptions: true,
          options: [
            { id: 'a', text: `A${i}` },
            { id: 'b', text: `B${i}` },
            { id: 'c', text: `C${i}` },
            { id: 'none', text: 'None of these', fixed: true },
          ],
          correctOptionId: 'a',
        })),
      },
      {
        id: 'skills',
        title: 'Skills',
        questions: [
          {
            id: 'match',
            type: 'matching',
            prompt: 'Match each capital to its country',
            points: 3,
            stems: [
              { id: 'paris', text: 'Paris' },
              { id: 'rome', text: 'Rome' },
              { id: 'bern', text: 'Bern' },
            ],
            choices: [
              { id: 'fr', text: 'France' },
              { id: 'it', text: 'Italy' },
              { id: 'ch', text: 'Switzerland' },
            ],
            correct: { paris: 'fr', rome: 'it', bern: 'ch' },
          },
          {
            id: 'order',
            type: 'ordering',
            prompt: 'Order the planets from the Sun',
            points: 4,
            partialCredit: true,
            items: [
              { id: 'me', text: 'Mercury' },
              { id: 've', text: 'Venus' },
              { id: 'ea', text: 'Earth' },
              { id: 'ma', text: 'Mars' },
            ],
          },
          {
            id: 'blanks',
            type: 'fill_blanks',
            prompt: 'Complete the sentence',
            points: 2,
            text: 'Water boils at {{temp}} degrees at {{pressure}} pressure.',
            blanks: [
              { id: 'temp', kind: 'text', acceptedAnswers: ['100'] },
              { id: 'pressure', kind: 'choice', options: [{ id: 'low', text: 'low' }, { id: 'std', text: 'standard' }], correctOptionId: 'std' },
            ],
          },
        ],
      },
      {
        id: 'writing',
        title: 'Writing',
        questions: [{ id: 'essay', type: 'essay', prompt: 'Describe your town.', points: 5 }],
      },
    ],
    ...over,
  };
}
