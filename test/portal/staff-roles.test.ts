import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../helpers/harness.js';
import { portalGet, signedIn, type PortalUser } from '../helpers/portal.js';

/**
 * The Staff page names every institution role with what it may do, read
 * from the roles' permissions: the author among them, and no role credited
 * with what it cannot do.
 */
let h: Harness;
let admin: PortalUser;

beforeAll(async () => {
  h = await createHarness();
  admin = await signedIn(h, 'admin', h.a.institutionId);
});
afterAll(() => h.close());

/** The role list as { role name: [what it may do] }. */
function roleList(body: string): Record<string, string[]> {
  const list = /<dl class="facts role-list">([\s\S]*?)<\/dl>/.exec(body)?.[1] ?? '';
  const out: Record<string, string[]> = {};
  for (const m of list.matchAll(/<dt id="role-[a-z]+"><strong>([^<]+)<\/strong><\/dt><dd[^>]*><ul>([\s\S]*?)<\/ul><\/dd>/g)) {
    out[m[1]!] = [...m[2]!.matchAll(/<li>([^<]+)<\/li>/g)].map((li) => li[1]!.replace(/&#39;/g, "'"));
  }
  return out;
}

describe('the Staff page’s roles', () => {
  it('lists admin, author, reviewer and viewer, each with what it can do', async () => {
    const res = await portalGet(h, admin, '/portal/staff');
    expect(res.statusCode).toBe(200);
    const roles = roleList(res.body);
    expect(Object.keys(roles)).toEqual(['Admin', 'Author', 'Reviewer', 'Viewer']);
    const read = "See the institution's assignments, results, statistics and proctoring records";
    const author = "Write, try, publish and delete the institution's own tests";
    const mark = "Mark answers that need a person's judgement";
    expect(roles.Author).toEqual([read, author]);
    expect(roles.Viewer).toEqual([read]);
    expect(roles.Reviewer).toEqual([read, mark, 'Review proctoring flags and recordings']);
    expect(roles.Admin).toEqual([
      read,
      mark,
      'Review proctoring flags and recordings',
      'Manage API keys, webhooks, callback domains and LTI platforms',
      'Invite staff, change their roles and remove them',
      author,
    ]);
    // The invitation offers the same roles.
    expect([...res.body.matchAll(/<option value="([a-z]+)"/g)].map((m) => m[1])).toEqual(expect.arrayContaining(['admin', 'author', 'reviewer', 'viewer']));
  });
});
