import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../helpers/harness.js';
import { portalGet, signedIn, type PortalUser } from '../helpers/portal.js';
import { ALL_TYPES_TEST, Student, assign, createPublishedTest } from '../helpers/student.js';

/** The marking queue names the student when the partner sent a name, with the external id beside it. */
let h: Harness;
let testId: string;
let jo: PortalUser;
beforeAll(async () => {
  h = await createHarness();
  testId = await createPublishedTest(h, h.a, ALL_TYPES_TEST);
  jo = await signedIn(h, 'reviewer', h.a.institutionId, 'Jo Reviewer');
});
afterAll(() => h?.close());

async function submitted(overrides: Record<string, unknown>): Promise<string> {
  const a = await assign(h, h.a, { testId, ...overrides });
  const s = new Student(h);
  await s.start(a.startUrl);
  await s.page(a.assignmentId);
  expect((await s.submit(a.assignmentId)).statusCode).toBe(303);
  return a.assignmentId;
}

describe('the marking queue shows who submitted', () => {
  it('shows the student’s name with the external user id beside it, and the id alone when no name was sent', async () => {
    const named = await submitted({ externalUserId: 'stu-4711', user: { email: 'ada@example.org', name: 'Ada Lovelace' } });
    const anonymous = await submitted({ externalUserId: 'stu-0815', user: { email: 'anon@example.org' } });
    const queue = await portalGet(h, jo, '/portal/marking');
    expect(queue.statusCode).toBe(200);
    const row = (id: string) => queue.body.split('<tr>').find((r) => r.includes(`/portal/marking/${id}`))!;
    expect(row(named)).toMatch(/Ada Lovelace <span class="hint">\(stu-4711\)<\/span>/);
    expect(row(named)).toContain('the submission of Ada Lovelace (stu-4711)');
    expect(queue.body).toMatch(/<th[^>]*>Student<\/th>/);
    expect(row(anonymous)).toContain('stu-0815');
    expect(row(anonymous)).not.toContain('(stu-0815)');

    // The marking item names the student as well.
    const item = await portalGet(h, jo, `/portal/marking/${named}`);
    expect(item.body).toMatch(/<h1>Every Question Type <span class="hint">for<\/span> Ada Lovelace <span class="hint">\(stu-4711\)<\/span><\/h1>/);
  });

  it('a name is escaped as text', async () => {
    const id = await submitted({ externalUserId: 'stu-x', user: { email: 'x@example.org', name: '<b>Bold</b>' } });
    const queue = await portalGet(h, jo, '/portal/marking');
    const row = queue.body.split('<tr>').find((r) => r.includes(`/portal/marking/${id}`))!;
    expect(row).toContain('&lt;b&gt;Bold&lt;/b&gt;');
    expect(row).not.toContain('<b>Bold</b>');
  });
});
