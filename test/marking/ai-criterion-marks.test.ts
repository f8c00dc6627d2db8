import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chatCompletion } from '../helpers/fake-chat-server.js';
import { ESSAY, aiTest, createPublishedTest, markingView, openAiRig, reply, submitEssay, type AiRig } from '../helpers/ai-marking.js';

/** A mark the model makes or a reviewer accepts keeps the model's points per criterion as the mark's criterion marks. */
let rig: AiRig;
let decideTest: string;
let suggestTest: string;
beforeAll(async () => {
  rig = await openAiRig();
  decideTest = await createPublishedTest(rig.h, rig.h.a, aiTest('decide', 0.8));
  suggestTest = await createPublishedTest(rig.h, rig.h.a, aiTest('suggest'));
});
afterAll(() => rig?.close());

describe('criterion marks from AI marking', () => {
  it('decide mode: the model’s mark carries its criterion points, their sum the mark’s points', async () => {
    const { h, fake, ai } = rig;
    fake.respond = () => ({ body: chatCompletion(reply(5, 3, 0.93)) });
    const id = await submitEssay(h, h.a, decideTest, ESSAY, { externalUserId: 'decide-crit' });
    expect(await ai.drain()).toBe(1);
    const es = (await markingView(h, id)).items.find((i: any) => i.questionId === 'es');
    expect(es.mark).toMatchObject({ source: 'ai', points: 8 });
    expect(es.mark.criteria).toEqual([
      { criterion: 'Process', points: 5, maxPoints: 6, comment: null },
      { criterion: 'Products', points: 3, maxPoints: 4, comment: null },
    ]);
  });

  it('suggest mode: accepting the suggestion records the model’s criterion points as the reviewer’s criterion marks', async () => {
    const { h, fake, ai } = rig;
    fake.respond = () => ({ body: chatCompletion(reply(4, 2, 0.6)) });
    const id = await submitEssay(h, h.a, suggestTest, ESSAY, { externalUserId: 'accept-crit' });
    expect(await ai.drain()).toBe(1);
    const res = await h.admin('POST', `/api/admin/v1/assignments/${id}/ai-suggestions/accept`, { complete: true, markedBy: 'bot' });
    expect(res.statusCode, res.body).toBe(200);
    const es = res.json().items.find((i: any) => i.questionId === 'es');
    expect(es.mark).toMatchObject({ source: 'reviewer', points: 6 });
    expect(es.mark.criteria).toEqual([
      { criterion: 'Process', points: 4, maxPoints: 6, comment: null },
      { criterion: 'Products', points: 2, maxPoints: 4, comment: null },
    ]);
  });
});
