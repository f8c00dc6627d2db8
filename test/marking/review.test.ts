import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestInput } from '../../src/modules/catalog/schemas.js';
import { expectError, detailFields } from '../helpers/expect-error.js';
import { createHarness, type Harness } from '../helpers/harness.js';
import { ALL_TYPES_TEST, Student, assign, createPublishedTest, readAssignment } from '../helpers/student.js';

let h: Harness;
let hybridTestId: string;
beforeAll(async () => {
  h = await createHarness();
  hybridTestId = await createPublishedTest(h, h.a, ALL_TYPES_TEST);
});
afterAll(() => h.close());

async function eventsOf(assignmentId: string) {
  const { rows } = await h.pool.query('SELECT type, data FROM events WHERE assignment_id = $1 ORDER BY sequence', [assignmentId]);
  return rows as Array<{ type: string; data: Record<string, any> }>;
}

/** A submitted hybrid attempt: sc right (2), mc one of two right (2 of 4), st right (1), nu wrong (0), essay written. */
async function submittedHybrid(externalUserId: string) {
  const a = await assign(h, h.a, { testId: hybridTestId, externalUserId });
  const s = new Student(h);
  await s.start(a.startUrl);
  await s.page(a.assignmentId);
  const saved = await s.save(a.assignmentId, [
    { questionId: 'sc', value: 'a', version: 1 },
    { questionId: 'mc', value: ['two'], version: 1 },
    { questionId: 'st', value: ' HOT ', version: 1 },
    { questionId: 'nu', value: '3.2', version: 1 },
    { questionId: 'es', value: 'I had tea and read the news.', version: 1 },
  ]);
  expect(saved.statusCode).toBe(200);
  expect((await s.submit(a.assignmentId)).statusCode).toBe(303);
  return a.assignmentId;
}

const marks = (assignmentId: string, body: unknown) => h.admin('POST', `/api/admin/v1/assignments/${assignmentId}/marks`, body);

describe('operator marking of an after_review test', () => {
  it('goes submitted → marking with a pending_review score, then to completed through the marks endpoint', async () => {
    const id = await submittedHybrid('review-1');
    const pending = await readAssignment(h, h.a, id);
    expect(pending.status).toBe('marking');
    expect(pending.result).toEqual({
      available: false,
      score: { points: 5, maxPoints: 20, percent: 25, passed: null, gradingStatus: 'pending_review', markedAt: expect.any(String) },
    });
    const completedEvent = (await eventsOf(id)).find((e) => e.type === 'exam.completed')!;
    expect(completedEvent.data.score).toEqual(pending.result.score);

    const view = await h.admin('GET', `/api/admin/v1/assignments/${id}`);
    expect(view.statusCode).toBe(200);
    const v = view.json();
    expect(v.awaitingMarking).toEqual(['es']);
    expect(v.items.map((i: any) => [i.questionId, i.needsMarking, i.mark?.points ?? null])).toEqual([
      ['sc', false, 2],
      ['mc', false, 2],
      ['st', false, 1],
      ['nu', false, 0],
      ['es', true, null],
    ]);
    expect(v.items[4]).toMatchObject({ answer: 'I had tea and read the news.', wordCount: 7, maxWords: 50 });

    const partial = await marks(id, { marks: [{ questionId: 'es', points: 6, comment: 'Clear.' }], complete: false, markedBy: 'rita@alpha.example' });
    expect(partial.statusCode).toBe(200);
    expect(partial.json()).toMatchObject({ status: 'marking', awaitingMarking: [] });
    expect(partial.json().items[4].mark).toMatchObject({ points: 6, source: 'reviewer', comment: 'Clear.', markedBy: 'operator-token:rita@alpha.example' });

    const done = await marks(id, { marks: [{ questionId: 'es', points: 7 }], complete: true, markedBy: 'rita@alpha.example' });
    expect(done.statusCode).toBe(200);
    expect(done.json().status).toBe('completed');

    const final = await readAssignment(h, h.a, id);
    expect(final.status).toBe('completed');
    expect(final.completedAt).not.toBeNull();
    expect(final.result).toEqual({
      available: true,
      score: { points: 12, maxPoints: 20, percent: 60, passed: true, gradingStatus: 'final', markedAt: expect.any(String), markedBy: 'reviewer' },
      reportUrl: expect.stringMatching(/^http:\/\/assay\.test\/reports\//),
    });
    const events = await eventsOf(id);
    expect(events.map((e) => [e.type, e.data.sequence, e.data.status])).toEqual([
      ['exam.started', 1, 'started'],
      ['exam.completed', 2, 'marking'],
      ['grading.done', 3, 'completed'],
    ]);
    expect(events[2]!.data.score).toEqual(final.result.score);
  });

  it('refuses to complete while an item awaits a mark, and stores nothing of that request', async () => {
    const id = await submittedHybrid('review-2');
    const refused = await marks(id, { marks: [], complete: true });
    expectError(refused, 409, 'invalid_state');
    expect(refused.json().error.details).toEqual([{ field: 'marks', message: 'question es awaits a mark' }]);
    expect((await readAssignment(h, h.a, id)).status).toBe('marking');
  });

  it('checks every mark: the question exists, needs marking, appears once, and 0 ≤ points ≤ its points', async () => {
    const id = await submittedHybrid('review-3');
    const bad = await marks(id, {
      marks: [
        { questionId: 'nope', points: 1 },
        { questionId: 'sc', points: 1 },
        { questionId: 'es', points: 10.5 },
      ],
      complete: false,
    });
    expectError(bad, 400, 'invalid_request');
    expect(detailFields(bad)).toEqual(['marks.0.questionId', 'marks.1.questionId', 'marks.2.points']);
    expectError(await marks(id, { marks: [{ questionId: 'es', points: -1 }], complete: false }), 400, 'invalid_request');
    expectError(await marks(id, { marks: [{ questionId: 'es', points: 1 }, { questionId: 'es', points: 2 }], complete: false }), 400, 'invalid_request');
    expectError(await marks(id, { marks: [], complete: false, extra: 1 }), 400, 'invalid_request');
    expectError(await marks(id, { marks: [] }), 400, 'invalid_request');
    // None of it was stored.
    expect((await h.admin('GET', `/api/admin/v1/assignments/${id}`)).json().awaitingMarking).toEqual(['es']);
    // The bounds themselves are accepted.
    expect((await marks(id, { marks: [{ questionId: 'es', points: 10 }], complete: false })).statusCode).toBe(200);
    expect((await marks(id, { marks: [{ questionId: 'es', points: 0 }], complete: true })).json().score).toMatchObject({ points: 5, passed: false });
  });

  it('refuses marks outside marking: before submission and after completion', async () => {
    const a = await assign(h, h.a, { testId: hybridTestId, externalUserId: 'review-4' });
    expectError(await marks(a.assignmentId, { marks: [], complete: true }), 409, 'invalid_state');
    const id = await submittedHybrid('review-5');
    expect((await marks(id, { marks: [{ questionId: 'es', points: 3 }], complete: true })).statusCode).toBe(200);
    expectError(await marks(id, { marks: [{ questionId: 'es', points: 4 }], complete: true }), 409, 'invalid_state');
    expect((await readAssignment(h, h.a, id)).result.score.points).toBe(8);
    expect((await eventsOf(id)).filter((e) => e.type === 'grading.done')).toHaveLength(1);
  });

  it('answers 404 for an unknown assignment and 401 without the operator token', async () => {
    expectError(await h.admin('GET', '/api/admin/v1/assignments/asg_missing'), 404, 'not_found');
    expectError(await marks('asg_missing', { marks: [], complete: true }), 404, 'not_found');
    const anon = await h.app.inject({ method: 'GET', url: '/api/admin/v1/assignments/asg_missing' });
    expectError(anon, 401, 'unauthenticated');
  });
});

describe('an auto-marked after_review test', () => {
  const AUTO_REVIEWED: TestInput = {
    title: 'Reviewed quiz',
    description: '',
    durationMinutes: 5,
    proctoring: 'record',
    marking: 'auto',
    resultVisibility: 'after_review',
    passPercent: null,
    questions: [{ id: 'x', type: 'numeric', prompt: '1 + 1', points: 1, answer: 2 }],
  };

  it('completes with no marks, confirming the auto score', async () => {
    const testId = await createPublishedTest(h, h.a, AUTO_REVIEWED);
    const a = await assign(h, h.a, { testId, externalUserId: 'review-auto' });
    const s = new Student(h);
    await s.start(a.startUrl);
    await s.page(a.assignmentId);
    await s.save(a.assignmentId, [{ questionId: 'x', value: '2', version: 1 }]);
    await s.submit(a.assignmentId);
    const pending = await readAssignment(h, h.a, a.assignmentId);
    expect(pending.status).toBe('marking');
    expect(pending.result.score).toMatchObject({ points: 1, gradingStatus: 'pending_review', passed: null });
    expect((await h.admin('GET', `/api/admin/v1/assignments/${a.assignmentId}`)).json().awaitingMarking).toEqual([]);
    const done = await marks(a.assignmentId, { marks: [], complete: true });
    expect(done.statusCode).toBe(200);
    const final = await readAssignment(h, h.a, a.assignmentId);
    expect(final.result).toEqual({ available: true, score: { points: 1, maxPoints: 1, percent: 100, passed: null, gradingStatus: 'final', markedAt: expect.any(String), markedBy: 'auto' }, reportUrl: expect.stringMatching(/^http:\/\/assay\.test\/reports\//) });
  });
});

describe('a manual test with nothing auto-markable', () => {
  it('emits exam.completed with score null, and grading.done with the reviewer score', async () => {
    const testId = await createPublishedTest(h, h.a, {
      title: 'Essay only',
      description: '',
      durationMinutes: 10,
      proctoring: 'none',
      marking: 'manual',
      resultVisibility: 'after_review',
      passPercent: 40,
      questions: [{ id: 'e', type: 'essay', prompt: 'Write.', points: 5 }],
    });
    const a = await assign(h, h.a, { testId, externalUserId: 'essay-only' });
    const s = new Student(h);
    await s.start(a.startUrl);
    await s.submit(a.assignmentId);
    const events = await eventsOf(a.assignmentId);
    expect(events.find((e) => e.type === 'exam.completed')!.data.score).toBeNull();
    expect((await readAssignment(h, h.a, a.assignmentId)).result).toEqual({ available: false, score: null });
    await marks(a.assignmentId, { marks: [{ questionId: 'e', points: 2 }], complete: true });
    expect((await readAssignment(h, h.a, a.assignmentId)).result.score).toMatchObject({ points: 2, maxPoints: 5, percent: 40, passed: true });
  });
});
