import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../helpers/harness.js';
import { auditActions, portalGet, portalPost, signedIn, type PortalUser } from '../helpers/portal.js';

let h: Harness;
let operator: PortalUser;
let admin: PortalUser;
beforeAll(async () => {
  h = await createHarness();
  operator = await signedIn(h, 'operator');
  admin = await signedIn(h, 'admin', h.a.institutionId);
});
afterAll(() => h.close());

describe('Institutions (operators)', () => {
  it('creates, suspends and reactivates an institution, and its keys follow; audited', async () => {
    const bad = await portalPost(h, operator, '/portal/institutions', { name: 'Gamma', domains: 'gamma.example\nnot a host' });
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toContain('&quot;not&quot; is not a host name');
    const created = await portalPost(h, operator, '/portal/institutions', { name: 'Gamma College', domains: 'gamma.example\n*.lms.gamma.example' });
    expect(created.statusCode).toBe(303);
    const id = /\/portal\/institutions\/(ins_[0-9A-Za-z]+)\?done=institution-created/.exec(created.headers.location as string)![1]!;
    const page = await portalGet(h, operator, created.headers.location as string);
    expect(page.body).toContain('The institution was created.');
    expect(page.body).toContain('*.lms.gamma.example, gamma.example');
    expect(page.body).toContain(`/portal/api-keys?institution=${id}`);

    expect((await portalPost(h, operator, `/portal/institutions/${h.b.institutionId}/status`, { status: 'suspended' })).statusCode).toBe(303);
    expect((await h.partner(h.b, 'GET', '/api/partner/v1/tests')).statusCode).toBe(403);
    expect((await portalPost(h, operator, `/portal/institutions/${h.b.institutionId}/status`, { status: 'active' })).statusCode).toBe(303);
    expect((await h.partner(h.b, 'GET', '/api/partner/v1/tests')).statusCode).toBe(200);

    const list = await portalGet(h, operator, '/portal/institutions');
    expect(list.body).toContain('Gamma College');
    expect(list.body).toContain('Alpha College');
    const entries = await auditActions(h, null);
    expect(entries.filter((e) => e.actor_id === operator.staffId).map((e) => e.action)).toEqual(['institution.created', 'institution.suspended', 'institution.reactivated']);
  });

  it("lets an operator act on a chosen institution's pages, carrying the choice along", async () => {
    const choose = await portalGet(h, operator, '/portal/api-keys');
    expect(choose.statusCode).toBe(200);
    expect(choose.body).toContain('Choose the institution to work on.');
    const keys = await portalGet(h, operator, `/portal/api-keys?institution=${h.b.institutionId}`);
    expect(keys.body).toContain('Keys of Beta Academy');
    expect(keys.body).toContain(`name="institution" value="${h.b.institutionId}"`);
    const created = await portalPost(h, operator, '/portal/api-keys', { label: 'by operator', institution: h.b.institutionId });
    expect(created.statusCode).toBe(201);
    const key = /(ak_live_[0-9A-Za-z]{40})/.exec(created.body)![1]!;
    expect((await h.partner(key, 'GET', '/api/partner/v1/tests')).statusCode).toBe(200);
    expect((await portalGet(h, operator, '/portal/api-keys?institution=ins_doesnotexist')).statusCode).toBe(404);
  });
});

const GOOD_TEST = {
  title: 'Portal Authored',
  description: 'Written in the portal.',
  durationMinutes: 15,
  proctoring: 'none',
  marking: 'auto',
  resultVisibility: 'immediate',
  passPercent: 50,
  questions: [{ id: 'q1', type: 'single_choice', prompt: 'Pick b', points: 1, options: [{ id: 'a', text: 'A' }, { id: 'b', text: 'B' }], correctOptionId: 'b' }],
};

describe('Tests (operators)', () => {
  it('shows JSON syntax errors with their line and column', async () => {
    const res = await portalPost(h, operator, '/portal/tests', { json: '{\n  "title": "x",\n  "description": "y"\n  "durationMinutes": 5\n}' });
    expect(res.statusCode).toBe(400);
    expect(res.body).toContain('Line 4, column 3: Expected “,” or “}” but found “&quot;”.');
  });

  it('places schema and authoring errors on the line of the JSON they concern', async () => {
    const wrong = { ...GOOD_TEST, durationMinutes: 0, questions: [{ ...GOOD_TEST.questions[0], correctOptionId: 'z' }] };
    const json = JSON.stringify(wrong, null, 2);
    const res = await portalPost(h, operator, '/portal/tests', { json });
    expect(res.statusCode).toBe(400);
    const lineOf = (needle: string) => json.split('\n').findIndex((l) => l.includes(needle)) + 1;
    expect(res.body).toContain(`Line ${lineOf('"durationMinutes"')}: <code>durationMinutes</code>`);
    const authoring = await portalPost(h, operator, '/portal/tests', { json: JSON.stringify({ ...GOOD_TEST, questions: wrong.questions }, null, 2) });
    expect(authoring.statusCode).toBe(400);
    expect(authoring.body).toContain(`Line ${lineOf('"correctOptionId"')}: <code>questions.0.correctOptionId</code> &quot;z&quot; is not one of the options`);
  });

  it('creates, edits into a new version, previews in a sandbox, and publishes per institution; audited', async () => {
    const created = await portalPost(h, operator, '/portal/tests', { json: JSON.stringify(GOOD_TEST) });
    expect(created.statusCode).toBe(303);
    const testId = /\/portal\/tests\/(tst_[0-9A-Za-z]+)/.exec(created.headers.location as string)![1]!;
    const editor = await portalGet(h, operator, `/portal/tests/${testId}`);
    expect(editor.statusCode).toBe(200);
    expect(editor.headers['content-security-policy']).toContain("frame-src 'self'");
    expect(editor.body).toContain('<iframe class="preview-frame"');
    // No script and no forms in the frame; its origin kept only so its images carry the staff session (test-pages.ts).
    expect(editor.body).toContain('sandbox="allow-same-origin"');
    expect(editor.body).toContain('&quot;title&quot;: &quot;Portal Authored&quot;');

    const preview = await portalGet(h, operator, `/portal/tests/${testId}/preview`);
    expect(preview.statusCode).toBe(200);
    expect(preview.headers['content-security-policy']).toContain('sandbox');
    expect(preview.headers['content-security-policy']).not.toContain('script-src');
    expect(preview.body).toContain('Pick b');

    const edited = await portalPost(h, operator, `/portal/tests/${testId}`, { json: JSON.stringify({ ...GOOD_TEST, title: 'Portal Authored v2' }) });
    expect(edited.statusCode).toBe(303);
    expect((await portalGet(h, operator, `/portal/tests/${testId}`)).body).toContain('Version 2');

    expect((await portalPost(h, operator, `/portal/tests/${testId}/publications`, { institution: h.a.institutionId, action: 'publish' })).statusCode).toBe(303);
    const listed = await h.partner(h.a, 'GET', '/api/partner/v1/tests');
    expect(listed.json().data.map((t: { title: string }) => t.title)).toContain('Portal Authored v2');
    expect((await portalPost(h, operator, `/portal/tests/${testId}/publications`, { institution: h.a.institutionId, action: 'unpublish' })).statusCode).toBe(303);
    expect((await h.partner(h.a, 'GET', '/api/partner/v1/tests')).json().data.map((t: { title: string }) => t.title)).not.toContain('Portal Authored v2');

    const actions = (await auditActions(h, null)).filter((e) => e.object_id === testId).map((e) => e.action);
    expect(actions).toEqual(['test.created', 'test.updated', 'test.published', 'test.unpublished']);
    expect((await portalGet(h, operator, '/portal/tests')).body).toContain('Portal Authored v2');
  });
});

describe('Staff and Audit log (admins)', () => {
  it('invites, changes a role and removes through the staff service, keeping the last admin, and lists the audit log', async () => {
    const bad = await portalPost(h, admin, '/portal/staff', { email: 'not-an-address', role: 'reviewer' });
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toContain('Enter an email address like name@example.com.');
    const invited = await portalPost(h, admin, '/portal/staff', { email: 'Rita@Alpha.example', name: 'Rita', role: 'reviewer' });
    expect(invited.statusCode).toBe(303);
    const page = await portalGet(h, admin, '/portal/staff');
    expect(page.body).toContain('rita@alpha.example');
    const ritaId = /\/portal\/staff\/(stf_[0-9A-Za-z]+)\/remove">Remove<span class="sr-only"> rita@/.exec(page.body)![1]!;
    expect((await portalPost(h, admin, `/portal/staff/${ritaId}/role`, { role: 'viewer' })).statusCode).toBe(303);
    expect((await portalGet(h, admin, `/portal/staff/${ritaId}/remove`)).body).toContain('Remove Rita?');
    expect((await portalPost(h, admin, `/portal/staff/${ritaId}/remove`)).statusCode).toBe(303);
    expect((await portalGet(h, admin, '/portal/staff')).body).not.toContain('rita@alpha.example');
    const lastAdmin = await portalPost(h, admin, `/portal/staff/${admin.staffId}/role`, { role: 'viewer' });
    expect(lastAdmin.statusCode).toBe(409);
    expect(lastAdmin.body).toContain('must keep at least one admin');

    const audit = await portalGet(h, admin, '/portal/audit');
    expect(audit.statusCode).toBe(200);
    for (const action of ['staff.invited', 'staff.role_changed', 'staff.removed']) expect(audit.body).toContain(`<code>${action}</code>`);
    expect(audit.body).toContain(admin.email);
    // Another institution's entries are not there.
    expect(audit.body).not.toContain('institution.suspended');
    const all = await portalGet(h, operator, '/portal/audit');
    expect(all.body).toContain('Every change on the platform');
    expect(all.body).toContain('institution.suspended');
  });
});
