import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUTO_TEST, createHarness, type Harness } from '../helpers/harness.js';
import { signedIn, type PortalUser } from '../helpers/portal.js';
import { portalJson } from '../helpers/authoring.js';

/**
 * The editor page names its browser tab with each save. A save from an
 * older revision is no conflict when every revision since was that same
 * person's in that same tab (a reload overtaking its own last save); anyone
 * else's save in between — another person, or the same person in another
 * tab — still makes it a 409.
 */
let h: Harness;
let ada: PortalUser;
let bob: PortalUser;
let testId: string;
const TAB = 'tab-ada-0001';
const OTHER_TAB = 'tab-ada-0002';

beforeAll(async () => {
  h = await createHarness();
  ada = await signedIn(h, 'author', h.a.institutionId, 'Ada');
  bob = await signedIn(h, 'author', h.a.institutionId, 'Bob');
  const created = await portalJson(h, ada, 'POST', '/portal/authoring/tests', { content: AUTO_TEST });
  expect(created.statusCode).toBe(201);
  testId = created.json().testId;
});
afterAll(() => h.close());

const save = (user: PortalUser, revision: number, title: string, editorId?: string) =>
  portalJson(h, user, 'PUT', `/portal/authoring/tests/${testId}/draft`, { revision, content: { ...AUTO_TEST, title }, ...(editorId ? { editorId } : {}) });
const stored = async () => (await h.pool.query('SELECT revision, content->>$2 AS title FROM test_drafts WHERE test_id = $1', [testId, 'title'])).rows[0];

describe('saves from one editor tab', () => {
  it('are never a conflict with each other, while another person’s or another tab’s save in between still is', async () => {
    expect((await save(ada, 1, 'First', TAB)).json().revision).toBe(2);
    // The tab reloaded before its save's answer came: the page saves again from revision 1.
    const again = await save(ada, 1, 'First, and more', TAB);
    expect(again.statusCode, again.body).toBe(200);
    expect(await stored()).toEqual({ revision: 3, title: 'First, and more' });

    // The same person in another tab, or without a tab's id, from an old revision: a conflict, nothing written.
    for (const res of [await save(ada, 2, 'Other tab', OTHER_TAB), await save(ada, 2, 'No tab')]) {
      expect(res.statusCode).toBe(409);
      expect(res.json().error.code).toBe('invalid_state');
    }
    expect(await stored()).toEqual({ revision: 3, title: 'First, and more' });

    // Another person saves: the tab's older revisions are now in conflict with them.
    expect((await save(bob, 3, 'Bob was here', 'tab-bob-0001')).json().revision).toBe(4);
    const stale = await save(ada, 3, 'Over Bob', TAB);
    expect(stale.statusCode).toBe(409);
    expect(stale.json().error.message).toContain(bob.email);
    expect(await stored()).toEqual({ revision: 4, title: 'Bob was here' });

    // From Bob's revision on, the tab's run starts again: its own later saves never conflict, an earlier base still does.
    expect((await save(ada, 4, 'After Bob', TAB)).json().revision).toBe(5);
    expect((await save(ada, 4, 'After Bob, reloaded', TAB)).json().revision).toBe(6);
    expect((await save(ada, 3, 'Before Bob', TAB)).statusCode).toBe(409);
    expect(await stored()).toEqual({ revision: 6, title: 'After Bob, reloaded' });
  });

  it('refuses a tab id of the wrong shape, writing nothing', async () => {
    const res = await save(ada, 6, 'Bad id', 'x y');
    expect(res.statusCode).toBe(400);
    expect(res.json().error.code).toBe('invalid_request');
    expect((await stored()).revision).toBe(6);
  });
});
