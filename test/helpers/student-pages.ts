import type { TestVersion } from '../../src/modules/catalog/tests-service.js';
import { deliver, type DeliveredTest, type Delivery } from '../../src/modules/catalog/delivery.js';
import type { Question } from '../../src/modules/catalog/schemas.js';
import type { ProctoringPageState } from '../../src/modules/student/pages/proctoring-parts.js';

/**
 * Fixtures for the student pages' markup tests (no database): a one-question
 * test version of the given proctoring mode, and the proctoring state a page
 * renders from.
 */
export function pageTestVersion(proctoring: TestVersion['proctoring'], title = 'Exam'): DeliveredTest {
  return deliver({
    testVersionId: 'tv_1',
    testId: 'tst_1',
    version: 1,
    title,
    description: '',
    durationMinutes: 30,
    proctoring,
    marking: 'auto',
    resultVisibility: 'immediate',
    passPercent: null,
    proctoringRules: null,
    questions: [{ id: 'q1', type: 'short_text', prompt: 'Name?', points: 1, acceptedAnswers: ['x'] }],
    sections: null,
    createdAt: new Date(),
  } as TestVersion, null);
}

export function pageProctoringState(overrides: Partial<ProctoringPageState> = {}): ProctoringPageState {
  return {
    mode: 'live_ai',
    rules: { noFaceSeconds: 10 },
    heartbeatMs: 5000,
    segmentMs: 10000,
    snapshotEveryMs: 60000,
    modelBase: '/assets/proctoring/models/',
    retentionDays: 30,
    ...overrides,
  };
}

/**
 * A test version with two sections holding the four added question types and
 * a shuffled choice question; `delivery` overrides the identity delivery
 * (e.g. a shuffled option order or a drawn pool).
 */
export function sectionedPageTest(delivery: Delivery | null = null): DeliveredTest {
  return deliver({
    testVersionId: 'tv_2',
    testId: 'tst_2',
    version: 1,
    title: 'Sectioned',
    description: '',
    durationMinutes: 30,
    proctoring: 'none',
    marking: 'hybrid',
    resultVisibility: 'after_review',
    passPercent: null,
    proctoringRules: null,
    questions: SECTIONED_QUESTIONS,
    sections: [
      { id: 'sa', title: 'Part A: <Facts>', instructions: 'Answer both.\nTake care.', shuffleQuestions: false, draw: null, questionIds: ['sc', 'ma'] },
      { id: 'sb', title: 'Part B', instructions: null, shuffleQuestions: false, draw: null, questionIds: ['or', 'fb', 'fu'] },
    ],
    createdAt: new Date(),
  } as TestVersion, delivery);
}

export const SECTIONED_QUESTIONS: Question[] = [
  {
    id: 'sc',
    type: 'single_choice',
    prompt: 'Pick one',
    points: 1,
    options: [{ id: 'a', text: 'Alpha' }, { id: 'b', text: 'Beta' }, { id: 'c', text: 'None of these', fixed: true }],
    correctOptionId: 'a',
    shuffleOptions: true,
  },
  {
    id: 'ma',
    type: 'matching',
    prompt: 'Match the capitals',
    points: 2,
    stems: [{ id: 'fr', text: 'France' }, { id: 'it', text: 'Italy <IT>' }],
    choices: [{ id: 'paris', text: 'Paris' }, { id: 'rome', text: 'Rome' }, { id: 'oslo', text: 'Oslo' }],
    correct: { fr: 'paris', it: 'rome' },
  },
  { id: 'or', type: 'ordering', prompt: 'Smallest first', points: 2, items: [{ id: 'one', text: 'One' }, { id: 'two', text: 'Two' }, { id: 'three', text: 'Three' }] },
  {
    id: 'fb',
    type: 'fill_blanks',
    prompt: 'Complete the text',
    points: 2,
    text: 'Water boils at {{t}} degrees <C>.\nIt is {{state}} at room temperature.',
    blanks: [
      { id: 't', kind: 'text', acceptedAnswers: ['100'] },
      { id: 'state', kind: 'choice', options: [{ id: 'liquid', text: 'liquid' }, { id: 'gas', text: 'a gas' }], correctOptionId: 'liquid' },
    ],
  },
  { id: 'fu', type: 'file_upload', prompt: 'Upload your report', points: 5, accept: ['application/pdf', 'image/png'], maxBytes: 2 * 1024 * 1024 },
];
