import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../helpers/harness.js';
import { auditActions, portalGet, portalPost, signedIn, type PortalUser } from '../helpers/portal.js';
import { ALL_TYPES_TEST, Student, assign, createPublishedTest, readAssignment } from '../helpers/student.js';

let h: Harness;
let testId: string;
let jo: PortalUser;
let kim: PortalUser;
beforeAll(async () => {
  h = await createHarness();
  testId = await createPublishedTest(h, h.a, ALL_TYPES_TEST);
  jo = await signedIn(h, 'reviewer', h.a.institutionId, 'Jo Reviewer');
  kim = await signedIn(h, 'reviewer', h.a.institutionId, 'Kim Reviewer');
});
afterAll(() => h.close());

async function submitted(externalUserId: string): Promise<string> {
  const a = await assign(h, h.a, { testId, externalUserId });
  const s = new Student(h);
  await s.start(a.startUrl);
  await s.page(a.assignmentId);
  await s.save(a.assignmentId, [
    { questionId: 'sc', value: 'a', version: 1 },
    { questionId: 'mc', value: ['two', 'three'], version: 1 },
    { questionId: 'es', value: 'Tea, then the news.', version: 1 },
  ]);
  expect((await s.submit(a.assignmentId)).statusCode).toBe(303);
  return a.assignmentId;
}

const version = (body: string) => /name="version" value="([^"]+)"/.exec(body)![1]!;

describe('the marking queue and form', () => {
  it('lists submissions oldest first with counts; the item shows answers with option texts beside each question, and a points field labelled with the prompt', async () => {
    const first = await submitted('mark-1');
    const second = await submitted('mark-2');
    const queue = await portalGet(h, jo, '/portal/marking');
    expect(queue.statusCode).toBe(200);
    expect(queue.body).toMatch(/<strong>2<\/strong> submissions wait for a reviewer/);
    expect(queue.body.indexOf(`/portal/marking/${first}`)).toBeLessThan(queue.body.indexOf(`/portal/marking/${second}`));
    expect(queue.body).toContain('Every Question Type');

    const item = await portalGet(h, jo, `/portal/marking/${first}`);
    expect(item.statusCode).toBe(200);
    // Option texts, not ids: "Paris" chosen, and the picks of the multiple choice.
    expect(item.body).toMatch(/<li class="chosen">Paris <span class="badge">Chosen<\/span>/);
    expect(item.body).toMatch(/<li class="chosen">3 <span class="badge">Chosen<\/span><\/li>/);
    expect(item.body).toContain('Tea, then the news.');
    expect(item.body).toMatch(/<label for="f-points-es">Points<span class="sr-only"> for “Describe your morning\.”<\/span><\/label>\n<p class="hint" id="f-points-es-hint">0 to 10<\/p>/);
    expect(item.body).toMatch(/<label for="f-comment-es">Comment<span class="sr-only"> on “Describe your morning\.”<\/span><\/label>/);
    expect(item.body).toContain('>Save draft</button>');
    expect(item.body).toContain('>Finish marking</button>');
    // Auto-marked items take no field.
    expect(item.body).not.toContain('f-points-sc');
  });

  it('tells a second reviewer who opened the item, keeps each reviewer’s draft, and refuses a stale finish with a page showing the other marks', async () => {
    const id = await submitted('mark-3');
    const joPage = await portalGet(h, jo, `/portal/marking/${id}`);
    expect(joPage.body).not.toContain('Someone else is marking this');
    const kimPage = await portalGet(h, kim, `/portal/marking/${id}`);
    expect(kimPage.body).toContain('Someone else is marking this');
    expect(kimPage.body).toMatch(/<strong>Jo Reviewer<\/strong> opened this (just now|1 minute ago)/);

    const draft = await portalPost(h, jo, `/portal/marking/${id}`, { version: version(joPage.body), action: 'save', 'points-es': '6', 'comment-es': 'Brief.' });
    expect(draft.statusCode, draft.body).toBe(303);
    const back = await portalGet(h, jo, draft.headers.location as string);
    expect(back.body).toContain('Your draft was saved.');
    expect(back.body).toMatch(/id="f-points-es" name="points-es" type="number" value="6"/);
    expect(back.body).toContain('Brief.</textarea>');
    // Kim does not see Jo's draft.
    expect((await portalGet(h, kim, `/portal/marking/${id}`)).body).toMatch(/id="f-points-es" name="points-es" type="number" value=""/);

    const bad = await portalPost(h, jo, `/portal/marking/${id}`, { version: version(joPage.body), action: 'finish', 'points-es': '12' });
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toContain('must be between 0 and 10');
    const notNumber = await portalPost(h, jo, `/portal/marking/${id}`, { version: version(joPage.body), action: 'finish', 'points-es': 'seven' });
    expect(notNumber.statusCode).toBe(400);
    expect(notNumber.body).toContain('Enter the points as a number');
    expect(notNumber.body).toContain('value="seven"');

    const done = await portalPost(h, jo, `/portal/marking/${id}`, { version: version(joPage.body), action: 'finish', 'points-es': '7.5', 'comment-es': 'Clear.' });
    expect(done.statusCode).toBe(303);
    expect(done.headers.location).toBe('/portal/marking?done=marking-finished');
    const read = await readAssignment(h, h.a, id);
    expect(read.status).toBe('completed');
    expect(read.result.score).toMatchObject({ gradingStatus: 'final', points: 9.5, maxPoints: 20 });
    const { rows } = await h.pool.query("SELECT marked_by FROM marks WHERE assignment_id = $1 AND question_id = 'es'", [id]);
    expect(rows[0].marked_by).toBe(jo.email);

    const stale = await portalPost(h, kim, `/portal/marking/${id}`, { version: version(kimPage.body), action: 'finish', 'points-es': '2' });
    expect(stale.statusCode).toBe(409);
    expect(stale.body).toContain('Your marks were not saved');
    expect(stale.body).toContain(`marked by ${jo.email}`);
    expect(stale.body).toContain('You entered: 2 points');
    expect((await readAssignment(h, h.a, id)).result.score.points).toBe(9.5);

    const actions = (await auditActions(h, h.a.institutionId)).filter((e) => e.object_id === id);
    expect(actions.map((e) => [e.action, e.actor_id])).toEqual([
      ['marking.draft_saved', jo.staffId],
      ['marking.completed', jo.staffId],
    ]);
  });

  it('refuses a save based on marks another reviewer changed meanwhile', async () => {
    const id = await submitted('mark-4');
    const joPage = await portalGet(h, jo, `/portal/marking/${id}`);
    const kimPage = await portalGet(h, kim, `/portal/marking/${id}`);
    expect((await portalPost(h, kim, `/portal/marking/${id}`, { version: version(kimPage.body), action: 'finish', 'points-es': '3' })).statusCode).toBe(303);
    const stale = await portalPost(h, jo, `/portal/marking/${id}`, { version: version(joPage.body), action: 'save', 'points-es': '9' });
    expect(stale.statusCode).toBe(409);
    expect(stale.body).toContain('marking has been finished');
  });

  it('shows a finished item read-only', async () => {
    const id = await submitted('mark-5');
    const page = await portalGet(h, jo, `/portal/marking/${id}`);
    await portalPost(h, jo, `/portal/marking/${id}`, { version: version(page.body), action: 'finish', 'points-es': '1' });
    const after = await portalGet(h, jo, `/portal/marking/${id}`);
    expect(after.statusCode).toBe(200);
    expect(after.body).toContain('This submission is not waiting for marking');
    expect(after.body).not.toContain('>Finish marking</button>');
  });
});
