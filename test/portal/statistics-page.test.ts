import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestInput } from '../../src/modules/catalog/schemas.js';
import { createHarness, type Harness } from '../helpers/harness.js';
import { portalGet, signedIn, type PortalUser } from '../helpers/portal.js';
import { publishedVersion, seedAttempts } from '../helpers/results.js';

/**
 * The portal's Statistics page of a test: the figures of the acting
 * institution's completed attempts (the same as the operator API's), the
 * flags in words, live and test-mode data apart, an empty state, and who may
 * see it (every role with `read`, on a test published to their institution;
 * another institution's test is a 404; operators choose an institution).
 */
const TEST: TestInput = {
  title: 'Three items',
  description: '',
  durationMinutes: 10,
  proctoring: 'none',
  marking: 'auto',
  resultVisibility: 'immediate',
  passPercent: 50,
  questions: [
    { id: 'q1', type: 'single_choice', prompt: 'Pick the first letter', points: 1, options: [{ id: 'a', text: 'Alpha' }, { id: 'b', text: 'Beta' }, { id: 'c', text: 'Gamma' }], correctOptionId: 'a' },
    { id: 'q2', type: 'numeric', prompt: '1 + 1?', points: 1, answer: 2 },
    { id: 'q3', type: 'numeric', prompt: '2 + 2?', points: 1, answer: 4 },
  ],
};
const flat = { sections: [{ sectionId: 'main', questionIds: ['q1', 'q2', 'q3'] }], optionOrder: {}, itemOrder: {} };
const attempt = (who: string, q1: string, q2: number, q3: number) => ({ externalUserId: who, delivery: flat, answers: { q1 }, marks: { q1: q1 === 'a' ? 1 : 0, q2, q3 } });

let h: Harness;
let test: { testId: string; testVersionId: string };
let completedIds: string[];
const users = {} as Record<'admin' | 'author' | 'reviewer' | 'viewer' | 'operator' | 'otherViewer', PortalUser>;

beforeAll(async () => {
  h = await createHarness();
  test = await publishedVersion(h, h.a, TEST);
  completedIds = await seedAttempts(h, h.a, test, 3, [attempt('s1', 'a', 1, 1), attempt('s2', 'a', 1, 0), attempt('s3', 'b', 0, 1), attempt('s4', 'b', 0, 0), attempt('s5', 'a', 1, 1)]);
  await seedAttempts(h, h.a, test, 3, [attempt('t1', 'c', 0, 0)], { livemode: false });
  for (const role of ['admin', 'author', 'reviewer', 'viewer'] as const) users[role] = await signedIn(h, role, h.a.institutionId);
  users.operator = await signedIn(h, 'operator');
  users.otherViewer = await signedIn(h, 'viewer', h.b.institutionId);
});
afterAll(() => h.close());

const url = (q = '') => `/portal/tests/${test.testId}/statistics${q}`;

describe('the Statistics page', () => {
  it('shows the same figures as the operator API, the flags in words, and each option', async () => {
    const api = (await h.admin('GET', `/api/admin/v1/tests/${test.testId}/statistics?institutionId=${h.a.institutionId}`)).json();
    const res = await portalGet(h, users.viewer, url());
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('<h1>Statistics: Three items</h1>');
    expect(res.body).toMatch(/<dt>Attempts<\/dt><dd>5<\/dd>/);
    expect(res.body).toContain(`${api.meanPercent.toFixed(1)} %`);
    expect(res.body).toContain(api.alpha === null ? '–' : api.alpha.toFixed(2));
    const q1 = api.items.find((i: { questionId: string }) => i.questionId === 'q1');
    expect(res.body).toContain(`${(q1.facility * 100).toFixed(0)} %`);
    expect(res.body).toContain('few attempts: under');
    expect(res.body).toContain('a distractor nobody chose');
    expect(res.body).toContain('Gamma');
    expect(res.body).toContain('<svg class="chart scatter wide"');
    expect(res.body).toContain('<svg class="chart scatter narrow"');
  });

  it('keeps test-mode data apart', async () => {
    const res = await portalGet(h, users.viewer, url('?mode=test'));
    expect(res.statusCode).toBe(200);
    expect(res.body).toMatch(/<dt>Attempts<\/dt><dd>1<\/dd>/);
    expect(res.body).toContain('test-mode data');
  });

  it('says so when there is nothing yet', async () => {
    const res = await portalGet(h, users.viewer, url('?version=1&mode=test').replace(test.testId, h.a.testId));
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('No completed attempt with a final score');
  });

  it('opens for every role with read on a test of their institution, and is a 404 to another institution', async () => {
    for (const role of ['admin', 'author', 'reviewer', 'viewer'] as const) expect((await portalGet(h, users[role], url())).statusCode, role).toBe(200);
    expect((await portalGet(h, users.otherViewer, url())).statusCode).toBe(404);
    expect((await portalGet(h, users.viewer, url('?version=99'))).statusCode).toBe(404);
  });

  it('asks an operator to choose an institution, then shows that institution’s figures', async () => {
    const choose = await portalGet(h, users.operator, url());
    expect(choose.statusCode).toBe(200);
    expect(choose.body).not.toContain('<dt>Attempts</dt>');
    const res = await portalGet(h, users.operator, url(`?institution=${h.a.institutionId}`));
    expect(res.body).toMatch(/<dt>Attempts<\/dt><dd>5<\/dd>/);
    expect((await portalGet(h, users.operator, url(`?institution=${h.b.institutionId}`))).statusCode).toBe(404);
  });

  it('is linked from an assignment of the test, whose page also links its printable report and PDF', async () => {
    const page = await portalGet(h, users.viewer, `/portal/assignments/${completedIds[0]}`);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain(`/portal/tests/${test.testId}/statistics?version=1&amp;mode=live`);
    const report = /href="(http[^"]*\/reports\/[^"?]+)"/.exec(page.body)![1]!;
    const path = new URL(report).pathname;
    const html = await h.app.inject({ method: 'GET', url: path });
    expect(html.statusCode).toBe(200);
    expect(html.body).toContain('Three items');
    const pdf = await h.app.inject({ method: 'GET', url: `${path}?format=pdf` });
    expect(pdf.statusCode).toBe(200);
    expect(pdf.headers['content-type']).toContain('application/pdf');
  });

  it('is in every role’s navigation, as the list of the institution’s tests each linking its Statistics page, and leads back there', async () => {
    for (const role of ['admin', 'author', 'reviewer', 'viewer'] as const) {
      const home = await portalGet(h, users[role], '/portal');
      expect(home.body, role).toMatch(/<a href="\/portal\/statistics">Statistics<\/a>/);
      const list = await portalGet(h, users[role], '/portal/statistics');
      expect(list.statusCode, role).toBe(200);
      expect(list.body, role).toContain(`<a href="/portal/tests/${test.testId}/statistics">Three items</a>`);
      expect(list.body, role).toMatch(/<a href="\/portal\/statistics" aria-current="page">Statistics<\/a>/);
    }
    // The test's row counts its live attempts, over every version.
    expect((await portalGet(h, users.viewer, '/portal/statistics')).body).toMatch(new RegExp(`${test.testId}</code></span></th>\\s*<td[^>]*>1</td>\\s*<td[^>]*>5</td>`));
    // Another institution's staff do not see the test.
    const other = await portalGet(h, users.otherViewer, '/portal/statistics');
    expect(other.statusCode).toBe(200);
    expect(other.body).not.toContain(test.testId);
    // The breadcrumb leads to a page every reader may open, never to the authors' Tests page.
    const page = await portalGet(h, users.viewer, url());
    expect(page.body).toMatch(/<nav class="breadcrumbs"[^>]*><ol><li><a href="\/portal\/statistics">Statistics<\/a><\/li>/);
    expect(page.body).not.toContain('href="/portal/tests"');
    expect((await portalGet(h, users.viewer, '/portal/tests')).statusCode).toBe(403);
    // Operators choose an institution, then the links carry it.
    expect((await portalGet(h, users.operator, '/portal/statistics')).body).toContain(`/portal/statistics?institution=${h.a.institutionId}`);
    const op = await portalGet(h, users.operator, `/portal/statistics?institution=${h.a.institutionId}`);
    expect(op.body).toContain(`/portal/tests/${test.testId}/statistics?institution=${h.a.institutionId}`);
    expect((await portalGet(h, users.viewer, '/portal/statistics?page=0')).statusCode).toBe(400);
  });

  it('sends a signed-out visitor to sign in', async () => {
    const res = await portalGet(h, null, url());
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toMatch(/^\/portal\/sign-in\?next=/);
  });
});
