import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestInput } from '../../src/modules/catalog/schemas.js';
import { createHarness, type Harness } from '../helpers/harness.js';
import { portalGet, signedIn } from '../helpers/portal.js';
import { Student, assign, createPublishedTest, readAssignment } from '../helpers/student.js';

/**
 * A file_upload question is marked by a reviewer, against its rubric and,
 * when it has them, its criteria (schemas.ts allows both): the reviewer
 * sees them and the mark is the sum of the criteria.
 */

let h: Harness;
let testId: string;
beforeAll(async () => {
  h = await createHarness();
  testId = await createPublishedTest(h, h.a, TEST);
});
afterAll(() => h.close());

const CRITERIA = [
  { criterion: 'Method', points: 2, description: 'Steps another student could repeat' },
  { criterion: 'Results', points: 4, description: 'A table and a graph' },
];

const TEST: TestInput = {
  title: 'Lab report',
  description: 'Upload your report',
  durationMinutes: 30,
  proctoring: 'none',
  marking: 'manual',
  resultVisibility: 'after_review',
  passPercent: null,
  questions: [
    {
      id: 'report',
      type: 'file_upload',
      prompt: 'Upload your lab report.',
      points: 6,
      accept: ['application/pdf'],
      rubric: 'Method, results and a conclusion.',
      criteria: CRITERIA,
    },
  ],
};

describe('a file_upload question with criteria', () => {
  it('shows the reviewer its rubric and criteria, and is marked per criterion', async () => {
    const a = await assign(h, h.a, { testId, externalUserId: 'lab-1' });
    const s = new Student(h);
    await s.start(a.startUrl);
    expect((await s.submit(a.assignmentId)).statusCode).toBe(303);

    const view = (await h.admin('GET', `/api/admin/v1/assignments/${a.assignmentId}`)).json();
    expect(view.items[0]).toMatchObject({ type: 'file_upload', needsMarking: true, rubric: 'Method, results and a conclusion.', criteria: CRITERIA });

    const reviewer = await signedIn(h, 'reviewer', h.a.institutionId);
    const page = await portalGet(h, reviewer, `/portal/marking/${a.assignmentId}`);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('Method, results and a conclusion.');
    expect(page.body).toContain('name="criterion-report-0"');
    expect(page.body).toContain('name="criterion-report-1"');

    const done = await h.admin('POST', `/api/admin/v1/assignments/${a.assignmentId}/marks`, {
      marks: [{ questionId: 'report', criteria: [{ criterion: 'Method', points: 1.5 }, { criterion: 'Results', points: 4 }] }],
      complete: true,
    });
    expect(done.statusCode, done.body).toBe(200);
    expect(done.json().items[0].mark).toMatchObject({ points: 5.5, criteria: [{ criterion: 'Method', points: 1.5, maxPoints: 2 }, { criterion: 'Results', points: 4, maxPoints: 4 }] });
    expect((await readAssignment(h, h.a, a.assignmentId)).result.score).toMatchObject({ points: 5.5, maxPoints: 6, gradingStatus: 'final' });
  });
});
