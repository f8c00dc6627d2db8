import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../helpers/harness.js';
import { portalGet, portalPost, signedIn, type PortalUser } from '../helpers/portal.js';
import { ALL_TYPES_TEST, Student, assign, createPublishedTest } from '../helpers/student.js';

let h: Harness;
let viewer: PortalUser;
let testId: string;
let completedId: string;
beforeAll(async () => {
  h = await createHarness();
  viewer = await signedIn(h, 'viewer', h.a.institutionId);
  testId = await createPublishedTest(h, h.a, ALL_TYPES_TEST);
  for (let i = 0; i < 53; i++) await assign(h, h.a, { externalUserId: `page-${String(i).padStart(2, '0')}` });
  // One taken and marked: answers, marks, score and events to show.
  const a = await assign(h, h.a, { testId, externalUserId: 'taker-1' });
  const s = new Student(h);
  await s.start(a.startUrl);
  await s.page(a.assignmentId);
  await s.save(a.assignmentId, [
    { questionId: 'sc', value: 'b', version: 1 },
    { questionId: 'nu', value: '3.14', version: 1 },
    { questionId: 'es', value: 'Porridge.', version: 1 },
  ]);
  await s.submit(a.assignmentId);
  const reviewer = await signedIn(h, 'reviewer', h.a.institutionId);
  const form = await portalGet(h, reviewer, `/portal/marking/${a.assignmentId}`);
  const v = /name="version" value="([^"]+)"/.exec(form.body)![1]!;
  expect((await portalPost(h, reviewer, `/portal/marking/${a.assignmentId}`, { version: v, action: 'finish', 'points-es': '4', 'comment-es': 'Short.' })).statusCode).toBe(303);
  completedId = a.assignmentId;
  await assign(h, h.b, { externalUserId: 'page-b' });
});
afterAll(() => h.close());

describe('the Assignments page', () => {
  it('pages 50 at a time, newest first, with Older and Newer links', async () => {
    const first = await portalGet(h, viewer, '/portal/assignments');
    expect(first.statusCode).toBe(200);
    expect(first.body).toMatch(/<caption[^>]*>Assignments, newest first<\/caption>/);
    expect(first.body.match(/<tr><th scope="row">/g)).toHaveLength(50);
    expect(first.body).not.toContain('page-b');
    const older = /href="(\/portal\/assignments\?[^"]*dir=older)"/.exec(first.body)![1]!.replace(/&amp;/g, '&');
    const second = await portalGet(h, viewer, older);
    expect(second.body.match(/<tr><th scope="row">/g)).toHaveLength(4);
    expect(second.body).toContain('page-00');
    expect(second.body).toMatch(/rel="prev"/);
    expect(second.body).not.toMatch(/rel="next"/);
  });

  it('searches by externalUserId prefix and filters by status, test and date', async () => {
    const search = await portalGet(h, viewer, '/portal/assignments?q=page-5');
    expect(search.body.match(/<tr><th scope="row">/g)).toHaveLength(3);
    expect(search.body).toContain('Matching assignments');
    const completed = await portalGet(h, viewer, '/portal/assignments?status=completed');
    expect(completed.body).toContain('taker-1');
    expect(completed.body).not.toContain('page-01');
    const byTest = await portalGet(h, viewer, `/portal/assignments?testId=${testId}`);
    expect(byTest.body).toContain('taker-1');
    expect(byTest.body).not.toContain('page-01');
    const today = new Date().toISOString().slice(0, 10);
    expect((await portalGet(h, viewer, `/portal/assignments?from=${today}&to=${today}&q=taker`)).body).toContain('taker-1');
    expect((await portalGet(h, viewer, '/portal/assignments?from=2001-01-01&to=2001-01-02')).body).toContain('No assignment matches this search.');
    const badDate = await portalGet(h, viewer, '/portal/assignments?from=yesterday');
    expect(badDate.statusCode).toBe(400);
    expect(badDate.body).toContain('Enter the “Created from” date as a date');
  });

  it("shows an assignment's timeline, answers with option texts, marks and score", async () => {
    const page = await portalGet(h, viewer, `/portal/assignments/${completedId}`);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('Every Question Type for taker-1');
    // The choice answer as its option text ("Lyon"), with the correct one named.
    expect(page.body).toMatch(/<li class="chosen">Lyon <span class="badge">Chosen<\/span><\/li>/);
    expect(page.body).toMatch(/<li>Paris <span class="hint">\(correct answer\)<\/span><\/li>/);
    expect(page.body).toContain('Porridge.');
    expect(page.body).toMatch(/<strong>4 of 10 points<\/strong>, marked by reviewer-/);
    expect(page.body).toContain('Comment: Short.');
    expect(page.body).toContain('7 of 20 points (35%), not passed; final');
    for (const what of ['Assigned', 'Started by the student', 'Submitted', 'Waiting for marking', 'Completed']) expect(page.body).toContain(`<p class="what">${what}</p>`);
    for (const type of ['exam.started', 'exam.completed', 'grading.done']) expect(page.body).toContain(`Event <code>${type}</code>`);
    expect(page.body).toContain('No webhook endpoint was subscribed.');
  });

  it("is 404 for another institution's assignment", async () => {
    const other = await assign(h, h.b, { externalUserId: 'b-secret' });
    const res = await portalGet(h, viewer, `/portal/assignments/${other.assignmentId}`);
    expect(res.statusCode).toBe(404);
    expect(res.body).not.toContain('b-secret');
  });
});

describe('the Overview', () => {
  it('counts by status, and shows completions per day as a chart with the same figures as a table', async () => {
    // The average score per test comes from the statistics' rollup, which the worker keeps.
    await h.runJobs();
    const page = await portalGet(h, viewer, '/portal');
    expect(page.statusCode).toBe(200);
    expect(page.body).toMatch(/>Assigned<\/a><\/dt><dd>53<\/dd>/);
    expect(page.body).toMatch(/>Completed<\/a><\/dt><dd>1<\/dd>/);
    expect(page.body).toMatch(/<svg class="chart"[^>]*aria-hidden="true"/);
    const today = new Date().toISOString().slice(0, 10);
    expect(page.body).toMatch(new RegExp(`<time datetime="${today}">[^<]+</time></th><td class="num" data-label="Completed">1</td>`));
    expect(page.body).toMatch(/<td class="num" data-label="Completed">1<\/td><td class="num" data-label="Average score">35%<\/td>/);
    expect(page.body).toContain('No delivery settled in the last 7 days');
  });
});

describe('an assignment page (after the Overview, which counts the assignments above)', () => {
  it('shows the metadata as the partner sent it, with its keys in their order, not in the order the database keeps', async () => {
    // jsonb orders keys by length, then bytes: it would put "b" before "zeta".
    const a = await assign(h, h.a, { externalUserId: 'meta-order', metadata: { zeta: 1, b: 'two' } });
    const page = await portalGet(h, viewer, `/portal/assignments/${a.assignmentId}`);
    expect(page.statusCode).toBe(200);
    const shown = /<pre class="answer">([\s\S]*?)<\/pre>/.exec(page.body)![1]!.replace(/&quot;/g, '"');
    expect(shown).toBe('{\n  "zeta": 1,\n  "b": "two"\n}');
  });
});
