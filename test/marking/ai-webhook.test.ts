import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chatCompletion } from '../helpers/fake-chat-server.js';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.js';
import { registerEndpoint, startDispatcher, type Dispatcher } from '../helpers/webhook-setup.js';
import { ESSAY, STUDENT, aiTest, createPublishedTest, openAiRig, reply, submitEssay, type AiRig } from '../helpers/ai-marking.js';

/** The partner's side of a decision by the model: a signed grading.done, verified with the public standardwebhooks package. */
let rig: AiRig;
let rx: Receiver;
let dispatcher: Dispatcher;
beforeAll(async () => {
  rig = await openAiRig({ allowInsecureUrls: true });
  rx = await startReceiver();
  dispatcher = startDispatcher(rig.h);
  await dispatcher.start();
});
afterAll(async () => {
  await dispatcher.stop();
  await rx.close();
  await rig.close();
});

describe('decide mode, seen by the partner', () => {
  it('sends exam.completed (pending review), then grading.done with the final score marked by the model', async () => {
    const { h, fake, ai } = rig;
    await registerEndpoint(h, h.a, rx, '/hooks');
    const testId = await createPublishedTest(h, h.a, aiTest('decide', 0.7));
    fake.respond = () => ({ body: chatCompletion(reply(6, 3, 0.88)) });
    const id = await submitEssay(h, h.a, testId, ESSAY);
    await ai.drain();

    await rx.waitFor(() => rx.received.some((r) => r.json.type === 'grading.done' && r.json.data.partnerAssignmentId === id), 10_000, 'grading.done');
    const ours = rx.received.filter((r) => r.json.data.partnerAssignmentId === id);
    for (const r of ours) expect(r.verifiedWith, `${r.json.type} verifies with standardwebhooks`).toEqual([true]);
    const completed = ours.find((r) => r.json.type === 'exam.completed')!.json.data;
    expect(completed.score).toMatchObject({ points: 2, gradingStatus: 'pending_review' });
    expect(completed.score).not.toHaveProperty('markedBy');
    const graded = ours.find((r) => r.json.type === 'grading.done')!.json.data;
    expect(graded).toMatchObject({
      status: 'completed',
      externalUserId: STUDENT.externalUserId,
      score: { points: 11, maxPoints: 12, percent: 91.67, passed: true, gradingStatus: 'final', markedBy: 'ai:test-model' },
    });
    // Only the documented provenance field was added to the score object.
    expect(Object.keys(graded.score).sort()).toEqual(['gradingStatus', 'markedAt', 'markedBy', 'maxPoints', 'passed', 'percent', 'points']);
  });
});
