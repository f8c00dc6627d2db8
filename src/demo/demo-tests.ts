import type { TestInput } from '../modules/catalog/schemas.js';

/** The demo tests: auto + immediate, hybrid + after_review, a recorded proctored exam, and one with live AI proctoring. */
export const DEMO_TESTS: TestInput[] = [
  {
    title: 'Algebra Basics',
    description: 'Ten minutes of warm-up algebra, marked automatically; results shown at once.',
    durationMinutes: 10,
    proctoring: 'none',
    marking: 'auto',
    resultVisibility: 'immediate',
    passPercent: 60,
    questions: [
      {
        type: 'single_choice',
        prompt: 'What is 3x when x = 4?',
        points: 2,
        options: [
          { id: 'a', text: '7' },
          { id: 'b', text: '12' },
          { id: 'c', text: '34' },
        ],
        correctOptionId: 'b',
      },
      {
        type: 'multiple_choice',
        prompt: 'Which of these are prime numbers?',
        points: 3,
        options: [
          { id: 'a', text: '2' },
          { id: 'b', text: '9' },
          { id: 'c', text: '11' },
          { id: 'd', text: '15' },
        ],
        correctOptionIds: ['a', 'c'],
        partialCredit: true,
      },
      { type: 'short_text', prompt: 'Name the number written as "x" in 2x = 10 (in words).', points: 1, acceptedAnswers: ['five'] },
      { type: 'numeric', prompt: 'Give the value of π to two decimal places.', points: 2, answer: 3.14, tolerance: 0.005 },
    ],
  },
  {
    title: 'Written Communication',
    description: 'A short writing task marked by a reviewer, with a few automatically marked questions.',
    durationMinutes: 30,
    proctoring: 'none',
    marking: 'hybrid',
    resultVisibility: 'after_review',
    passPercent: 50,
    questions: [
      {
        type: 'single_choice',
        prompt: 'Which sentence is punctuated correctly?',
        points: 1,
        options: [
          { id: 'a', text: "Its a fine day, isn't it?" },
          { id: 'b', text: "It's a fine day, isn't it?" },
        ],
        correctOptionId: 'b',
      },
      { type: 'short_text', prompt: 'Give the plural of "analysis".', points: 1, acceptedAnswers: ['analyses'] },
      {
        type: 'essay',
        prompt: 'In at most 150 words, explain why clear writing matters at work.',
        points: 8,
        rubric: 'Clarity of argument (4), structure (2), grammar (2).',
        maxWords: 150,
      },
    ],
  },
  {
    title: 'Certified Data Analyst Exam',
    description: 'A recorded, proctored exam. Results are released after review.',
    durationMinutes: 45,
    proctoring: 'record',
    marking: 'auto',
    resultVisibility: 'after_review',
    passPercent: 70,
    questions: [
      {
        type: 'single_choice',
        prompt: 'Which measure is least affected by outliers?',
        points: 2,
        options: [
          { id: 'mean', text: 'Mean' },
          { id: 'median', text: 'Median' },
          { id: 'range', text: 'Range' },
        ],
        correctOptionId: 'median',
      },
      { type: 'numeric', prompt: 'What is the median of 3, 9, 4, 7, 5?', points: 2, answer: 5 },
      {
        type: 'multiple_choice',
        prompt: 'Which of these are measures of spread?',
        points: 2,
        options: [
          { id: 'sd', text: 'Standard deviation' },
          { id: 'iqr', text: 'Interquartile range' },
          { id: 'mode', text: 'Mode' },
        ],
        correctOptionIds: ['sd', 'iqr'],
      },
    ],
  },
  {
    title: 'Supervised Logic Check',
    description: 'A short quiz with live AI proctoring: on-device face analysis flags no face or a second face while you work.',
    durationMinutes: 15,
    proctoring: 'live_ai',
    marking: 'auto',
    resultVisibility: 'immediate',
    passPercent: 50,
    questions: [
      {
        type: 'single_choice',
        prompt: 'All squares are rectangles, and this shape is a square. What follows?',
        points: 2,
        options: [
          { id: 'rect', text: 'It is a rectangle' },
          { id: 'notrect', text: 'It is not a rectangle' },
          { id: 'unknown', text: 'Nothing follows' },
        ],
        correctOptionId: 'rect',
      },
      { type: 'numeric', prompt: 'What comes next: 2, 4, 8, 16, …?', points: 2, answer: 32 },
      { type: 'short_text', prompt: 'Complete the pair: hot is to cold as up is to …', points: 1, acceptedAnswers: ['down'] },
    ],
  },
];
