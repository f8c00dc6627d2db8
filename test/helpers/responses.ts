import type { TestInput } from '../../src/modules/catalog/schemas.js';
import type { Harness, Tenant } from './harness.js';
import { publishedVersion, seedAttempts } from './results.js';

/**
 * A sectioned Markdown test with one question of each kind the responses
 * export words differently (a choice, a matching, a number, a composite,
 * an essay marked per criterion, a file upload), and one candidate's
 * answers to it, for the responses export's tests.
 */
export const RESPONSES_TEST: TestInput = {
  title: 'Géographie: “Europe” 1/2',
  description: '',
  durationMinutes: 30,
  proctoring: 'none',
  marking: 'hybrid',
  resultVisibility: 'after_review',
  passPercent: 50,
  contentFormat: 'markdown',
  sections: [
    {
      id: 'facts',
      title: 'Facts',
      questions: [
        { id: 'capital', type: 'single_choice', prompt: 'Capital of **France**?', points: 1, options: [{ id: 'a', text: '*Paris*' }, { id: 'b', text: 'Lyon' }], correctOptionId: 'a' },
        {
          id: 'pairs',
          type: 'matching',
          prompt: 'Match each country to its capital.',
          points: 2,
          stems: [{ id: 's1', text: 'Spain' }, { id: 's2', text: 'Italy' }],
          choices: [{ id: 'c1', text: 'Madrid' }, { id: 'c2', text: 'Rome' }],
          correct: { s1: 'c1', s2: 'c2' },
        },
        { id: 'depth', type: 'numeric', prompt: 'Sea level change, in metres?', points: 1, answer: -3 },
        {
          id: 'both',
          type: 'composite',
          prompt: 'Two parts.',
          parts: [
            { id: 'p1', type: 'single_choice', prompt: 'Larger?', points: 1, options: [{ id: 'x', text: 'Russia' }, { id: 'y', text: 'Malta' }], correctOptionId: 'x' },
            { id: 'p2', type: 'numeric', prompt: 'How many?', points: 1, answer: 27 },
          ],
        },
      ],
    },
    {
      id: 'writing',
      title: 'Writing',
      questions: [
        {
          id: 'essay',
          type: 'essay',
          prompt: 'Describe the Rhine.',
          points: 4,
          criteria: [
            { criterion: 'Content', points: 3, description: 'Facts' },
            { criterion: 'Style', points: 1, description: 'Clarity' },
          ],
        },
        { id: 'map', type: 'file_upload', prompt: 'Upload your map.', points: 2, accept: ['application/pdf'] },
      ],
    },
  ],
};

const delivery = {
  sections: [
    { sectionId: 'facts', questionIds: ['capital', 'pairs', 'depth', 'both'] },
    { sectionId: 'writing', questionIds: ['essay', 'map'] },
  ],
  optionOrder: {},
  itemOrder: {},
};

/** The test published to `tenant` and one candidate's completed attempt (name and email from the partner), marked per criterion; its assignment id. */
export async function seedResponses(h: Harness, tenant: Tenant, externalUserId = 'lti:plt_1:sub-42', name = 'Zoë Ångström'): Promise<{ testId: string; assignmentId: string }> {
  const test = await publishedVersion(h, tenant, RESPONSES_TEST);
  const [assignmentId] = await seedAttempts(h, tenant, test, 12, [
    {
      externalUserId,
      name,
      delivery,
      answers: { capital: 'a', pairs: { s1: 'c1', s2: 'c1' }, depth: '-3', both: { p1: 'x', p2: '26' }, essay: '=SUM(A1) flows north.', map: { fileId: 'fil_map1' } },
      marks: { capital: 1, pairs: 1, depth: 1, both: 1, essay: 3, map: 2 },
    },
  ]);
  await h.pool.query(
    `UPDATE marks SET source = 'reviewer', comment = 'Good', criteria = $2::jsonb WHERE assignment_id = $1 AND question_id = 'essay'`,
    [assignmentId, JSON.stringify([{ criterion: 'Content', points: 2.5, comment: 'Mostly right' }, { criterion: 'Style', points: 0.5, comment: null }])],
  );
  await h.pool.query(
    `INSERT INTO answer_files (id, assignment_id, institution_id, question_id, storage_key, file_name, content_type, bytes, sha256)
     VALUES ('fil_map1', $1, $2, 'map', $3, 'Rhine map (final).pdf', 'application/pdf', 1200, 'x')`,
    [assignmentId, tenant.institutionId, `answers/${assignmentId}/fil_map1`],
  );
  return { testId: test.testId, assignmentId: assignmentId! };
}

/** The export's header row. */
export const RESPONSES_HEADER =
  'assignmentId,externalUserId,name,email,testId,testTitle,version,livemode,submittedAt,submittedDate,submittedTime,section,questionNumber,questionId,questionType,prompt,response,points,maxPoints,criteria,comment';
