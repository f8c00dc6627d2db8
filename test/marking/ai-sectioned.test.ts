import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestInput } from '../../src/modules/catalog/schemas.js';
import { chatCompletion } from '../helpers/fake-chat-server.js';
import { Student, assign, readAssignment } from '../helpers/student.js';
import { ESSAY, STUDENT, createPublishedTest, criteria, markingView, openAiRig, reply, type AiRig } from '../helpers/ai-marking.js';

/**
 * AI marking in a sectioned test: essays and short text are sent to the
 * model exactly as in a flat test; a file_upload item never is, whatever
 * its answer, and waits for a reviewer.
 */

let rig: AiRig;
let testId: string;
beforeAll(async () => {
  rig = await openAiRig();
  testId = await createPublishedTest(rig.h, rig.h.a, TEST);
});
afterAll(() => rig.close());

const TEST: TestInput = {
  title: 'Biology with sections',
  description: 'Photosynthesis',
  durationMinutes: 30,
  proctoring: 'none',
  marking: 'hybrid',
  resultVisibility: 'after_review',
  passPercent: 50,
  sections: [
    {
      id: 'theory',
      title: 'Theory',
      questions: [
        { id: 'sc', type: 'single_choice', prompt: 'Where does photosynthesis happen?', points: 2, options: [{ id: 'a', text: 'Chloroplast' }, { id: 'b', text: 'Nucleus' }], correctOptionId: 'a' },
        { id: 'es', type: 'essay', prompt: 'Explain photosynthesis.', points: 10, aiMarking: { mode: 'decide', minConfidence: 0.8 }, criteria },
      ],
    },
    {
      id: 'practical',
      title: 'Practical',
      questions: [
        { id: 'st', type: 'short_text', prompt: 'Name the gas plants release.', points: 10, acceptedAnswers: ['oxygen'], aiMarking: { mode: 'decide', minConfidence: 0.8 }, criteria },
        {
          id: 'file',
          type: 'file_upload',
          prompt: 'Upload the photo of your leaf experiment.',
          points: 4,
          accept: ['image/png', 'image/jpeg', 'application/pdf'],
          rubric: 'The leaf and the iodine stain are visible.',
        },
      ],
    },
  ],
};

describe('AI marking of a sectioned test with a file_upload item', () => {
  it('sends the essay and the unmatched short text to the model, never the file item, which waits for a reviewer', async () => {
    const { h, fake, ai } = rig;
    fake.respond = () => ({ body: chatCompletion(reply(5, 3, 0.93)) });
    const a = await assign(h, h.a, { testId, ...STUDENT });
    const s = new Student(h);
    await s.start(a.startUrl);
    await s.page(a.assignmentId);
    const saved = await s.save(a.assignmentId, [
      { questionId: 'sc', value: 'a', version: 1 },
      { questionId: 'es', value: ESSAY, version: 1 },
      { questionId: 'st', value: 'O2, the gas we breathe', version: 1 },
    ]);
    expect(saved.statusCode).toBe(200);
    // The upload stores the file's id as the answer (attempts/answer-values.ts); the file itself is not needed here.
    await h.pool.query(
      `INSERT INTO answers (assignment_id, institution_id, question_id, value, version, saved_at) VALUES ($1, $2, 'file', $3, 1, now())`,
      [a.assignmentId, h.a.institutionId, JSON.stringify({ fileId: 'file_leafphoto0000000000001' })],
    );
    expect((await s.submit(a.assignmentId)).statusCode).toBe(303);

    expect(await ai.drain()).toBe(2);
    expect(fake.calls).toHaveLength(2);
    const sent = fake.calls.map((c) => c.userContent);
    expect(sent.some((c) => c.includes('Explain photosynthesis.') && c.includes(ESSAY))).toBe(true);
    expect(sent.some((c) => c.includes('Name the gas plants release.') && c.includes('O2, the gas we breathe'))).toBe(true);
    for (const call of fake.calls) {
      expect(call.raw).not.toContain('Upload the photo');
      expect(call.raw).not.toContain('file_leafphoto');
      expect(call.raw).not.toContain('iodine');
    }

    const view = await markingView(h, a.assignmentId);
    expect(view.status).toBe('marking');
    // The file item needs a person, so decide mode cannot finish alone: the model's marks stay suggestions.
    expect(view.awaitingMarking).toEqual(['es', 'st', 'file']);
    const item = (q: string) => view.items.find((i: any) => i.questionId === q);
    expect(item('es').ai).toMatchObject({ status: 'suggested', points: 8, meetsDecideBar: true });
    expect(item('st').ai).toMatchObject({ status: 'suggested', points: 8, meetsDecideBar: true });
    // The reviewer sees the file item's rubric.
    expect(item('file')).toMatchObject({ needsMarking: true, mark: null, ai: null, rubric: 'The leaf and the iodine stain are visible.' });
    expect(await h.pool.query("SELECT count(*)::int AS n FROM ai_suggestions WHERE assignment_id = $1 AND question_id = 'file'", [a.assignmentId]).then((r) => r.rows[0].n)).toBe(0);

    const done = await h.admin('POST', `/api/admin/v1/assignments/${a.assignmentId}/marks`, {
      marks: [
        { questionId: 'es', points: 8 },
        { questionId: 'st', points: 8 },
        { questionId: 'file', points: 3 },
      ],
      complete: true,
      markedBy: 'rita@alpha.example',
    });
    expect(done.statusCode, done.body).toBe(200);
    // Still only the two calls: finishing the marking sent nothing more.
    expect(fake.calls).toHaveLength(2);
    const read = await readAssignment(h, h.a, a.assignmentId);
    // 2 + 8 + 8 + 3 = 21 of 26.
    expect(read.result.score).toMatchObject({
      points: 21,
      maxPoints: 26,
      gradingStatus: 'final',
      markedBy: 'reviewer',
      sections: [
        { sectionId: 'theory', title: 'Theory', points: 10, maxPoints: 12 },
        { sectionId: 'practical', title: 'Practical', points: 11, maxPoints: 14 },
      ],
    });
  });
});
