import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUTO_TEST, assignmentBody, createHarness, type Harness } from '../helpers/harness.js';
import { detailFields, expectError } from '../helpers/expect-error.js';
import { signedIn, type PortalUser } from '../helpers/portal.js';
import { portalJson } from '../helpers/authoring.js';
import { assign } from '../helpers/student.js';

/**
 * Drafts and versions (docs/authoring.md): saves with a revision, two
 * editors refused rather than overwritten, publish validating in full and
 * writing nothing when it refuses, versions pinned by assignments, the
 * diff, soft delete, institution-owned tests published to their owner only,
 * and the audit entries.
 */
const A = '/api/admin/v1';
const P = '/portal/authoring/tests';
let h: Harness;
let authorA: PortalUser;
let secondAuthorA: PortalUser;

beforeAll(async () => {
  h = await createHarness();
  authorA = await signedIn(h, 'author', h.a.institutionId);
  secondAuthorA = await signedIn(h, 'author', h.a.institutionId);
});
afterAll(() => h.close());

const versionsOf = async (testId: string) =>
  (await h.pool.query<{ version: number }>('SELECT version FROM test_versions WHERE test_id = $1 ORDER BY version', [testId])).rows.map((r) => r.version);
const pinnedVersion = async (assignmentId: string) =>
  (await h.pool.query<{ version: number }>('SELECT tv.version FROM assignments a JOIN test_versions tv ON tv.id = a.test_version_id WHERE a.id = $1', [assignmentId])).rows[0]!.version;
const auditOf = async (testId: string) =>
  (await h.pool.query<{ action: string; actor_id: string | null; institution_id: string | null; details: Record<string, unknown> }>(
    'SELECT action, actor_id, institution_id, details FROM audit_log WHERE object_type = $1 AND object_id = $2 ORDER BY id',
    ['test', testId],
  )).rows;

describe('an incomplete draft', () => {
  it('is stored as written, with what publishing would refuse at its field path, and no version is made', async () => {
    const created = await h.admin('POST', `${A}/tests/drafts`, { content: { title: 'Half written', questions: [{ type: 'numeric', prompt: '' }] } });
    expect(created.statusCode).toBe(201);
    const draft = created.json();
    expect(draft).toMatchObject({ revision: 1, ownerInstitutionId: null, nextVersion: 1, content: { title: 'Half written' }, updatedBy: 'operator_token' });
    const fields = draft.problems.map((p: { field: string }) => p.field);
    expect(fields).toEqual(expect.arrayContaining(['durationMinutes', 'questions.0.points']));
    expect(await versionsOf(draft.testId)).toEqual([]);
    // No version: nothing for the operator's read of a test, or any partner.
    expectError(await h.admin('GET', `${A}/tests/${draft.testId}`), 404, 'not_found');
    const read = await h.admin('GET', `${A}/tests/${draft.testId}/draft`);
    expect(read.json()).toMatchObject({ revision: 1, content: draft.content });
  });

  it('cannot be published: 400 with every problem at its field path, and nothing changes', async () => {
    const draft = (await h.admin('POST', `${A}/tests/drafts`, { content: { ...AUTO_TEST, marking: 'auto', questions: [{ type: 'essay', prompt: 'Why?', points: 2, rubric: 'r' }], passPercent: 150 } })).json();
    const res = await h.admin('POST', `${A}/tests/${draft.testId}/versions`, { revision: 1 });
    expectError(res, 400, 'invalid_request');
    expect(detailFields(res)).toContain('passPercent');
    // The schema passes once passPercent is in range; then the authoring rules speak.
    await h.admin('PUT', `${A}/tests/${draft.testId}/draft`, { revision: 1, content: { ...draft.content, passPercent: 50 } });
    const again = await h.admin('POST', `${A}/tests/${draft.testId}/versions`, { revision: 2 });
    expectError(again, 400, 'invalid_request');
    expect(detailFields(again)).toEqual(['questions.0.type']);
    expect(await versionsOf(draft.testId)).toEqual([]);
    expect((await h.admin('GET', `${A}/tests/${draft.testId}/draft`)).json()).toMatchObject({ revision: 2, nextVersion: 1 });
    expect((await auditOf(draft.testId)).map((e) => e.action)).not.toContain('test.version_published');
  });
});

describe('two editors on one draft', () => {
  it('refuses the stale save with 409 naming the current revision and who saved it; nothing is lost', async () => {
    const created = await portalJson(h, authorA, 'POST', P, { content: { ...AUTO_TEST, title: 'Shared' } });
    expect(created.statusCode).toBe(201);
    const { testId } = created.json();
    // Both open revision 1.
    const first = await portalJson(h, authorA, 'PUT', `${P}/${testId}/draft`, { revision: 1, content: { ...AUTO_TEST, title: 'First editor' } });
    expect(first.statusCode).toBe(200);
    expect(first.json()).toMatchObject({ revision: 2, updatedBy: authorA.email, problems: [] });
    const second = await portalJson(h, secondAuthorA, 'PUT', `${P}/${testId}/draft`, { revision: 1, content: { ...AUTO_TEST, title: 'Second editor' } });
    const body = expectError(second, 409, 'invalid_state');
    expect(body.error.message).toContain('revision 2');
    expect(body.error.message).toContain(authorA.email);
    expect(body.error.details).toEqual([{ field: 'revision', message: expect.stringContaining(authorA.email) }]);
    const read = (await portalJson(h, secondAuthorA, 'GET', `${P}/${testId}/draft`)).json();
    expect(read).toMatchObject({ revision: 2, content: { title: 'First editor' }, updatedBy: authorA.email });
    // Reloaded, the second editor saves on top of the first.
    const retry = await portalJson(h, secondAuthorA, 'PUT', `${P}/${testId}/draft`, { revision: 2, content: { ...AUTO_TEST, title: 'Second editor' } });
    expect(retry.json()).toMatchObject({ revision: 3, updatedBy: secondAuthorA.email });
  });

  it('lets exactly one of two saves racing from the same revision through', async () => {
    const { testId } = (await portalJson(h, authorA, 'POST', P, { content: { title: 'Race' } })).json();
    const results = await Promise.all(
      [authorA, secondAuthorA].map((u, i) => portalJson(h, u, 'PUT', `${P}/${testId}/draft`, { revision: 1, content: { title: `Racer ${i}` } })),
    );
    expect(results.map((r) => r.statusCode).sort()).toEqual([200, 409]);
    const winner = results.find((r) => r.statusCode === 200)!.json();
    expect((await portalJson(h, authorA, 'GET', `${P}/${testId}/draft`)).json()).toMatchObject({ revision: 2, content: winner.content });
  });

  it('refuses publishing a revision the draft has moved past', async () => {
    const { testId } = (await portalJson(h, authorA, 'POST', P, { content: AUTO_TEST })).json();
    await portalJson(h, secondAuthorA, 'PUT', `${P}/${testId}/draft`, { revision: 1, content: { ...AUTO_TEST, title: 'Changed' } });
    expectError(await portalJson(h, authorA, 'POST', `${P}/${testId}/versions`, { revision: 1 }), 409, 'invalid_state');
    expect(await versionsOf(testId)).toEqual([]);
  });
});

describe("an institution's own test", () => {
  let testId: string;

  it('is published to its institution with its first version: listed and assignable with its key, not with another', async () => {
    testId = (await portalJson(h, authorA, 'POST', P, { content: { ...AUTO_TEST, title: 'Alpha own' } })).json().testId;
    const published = await portalJson(h, authorA, 'POST', `${P}/${testId}/versions`, { revision: 1 });
    expect(published.statusCode).toBe(201);
    expect(published.json()).toEqual({ testId, version: 1, publishedRevision: 1, revision: 2 });
    const listA = (await h.partner(h.a, 'GET', '/api/partner/v1/tests?limit=100')).json();
    expect(listA.data.map((t: { testId: string }) => t.testId)).toContain(testId);
    const listB = (await h.partner(h.b, 'GET', '/api/partner/v1/tests?limit=100')).json();
    expect(listB.data.map((t: { testId: string }) => t.testId)).not.toContain(testId);
    const asg = await assign(h, h.a, { testId, externalUserId: 'own-1' });
    expect(await pinnedVersion(asg.assignmentId)).toBe(1);
    const refused = await h.partner(h.b, 'POST', '/api/partner/v1/assignments', assignmentBody(h.b, { testId, externalUserId: 'b-1' }));
    expectError(refused, 422, 'test_not_available');
  });

  it('cannot be published to another institution, even by an operator', async () => {
    expectError(await h.admin('PUT', `${A}/tests/${testId}/publications/${h.b.institutionId}`), 409, 'invalid_state');
    expect((await h.pool.query('SELECT institution_id FROM publications WHERE test_id = $1', [testId])).rows).toEqual([{ institution_id: h.a.institutionId }]);
  });

  it('keeps assignments on the version they pinned when version 2 is published, and lists and diffs the versions', async () => {
    const before = await assign(h, h.a, { testId, externalUserId: 'own-2' });
    const draft = (await portalJson(h, authorA, 'GET', `${P}/${testId}/draft`)).json();
    const questions = draft.content.questions as Array<Record<string, unknown>>;
    const content = {
      ...draft.content,
      title: 'Alpha own, revised',
      questions: [{ ...questions[0], points: 2 }, { type: 'short_text', id: 'added', prompt: 'Name a prime', points: 1, acceptedAnswers: ['2', '3'] }],
    };
    const saved = await portalJson(h, authorA, 'PUT', `${P}/${testId}/draft`, { revision: draft.revision, content });
    expect(saved.statusCode).toBe(200);
    const published = await portalJson(h, authorA, 'POST', `${P}/${testId}/versions`, { revision: saved.json().revision });
    expect(published.json().version).toBe(2);
    expect(await pinnedVersion(before.assignmentId)).toBe(1);
    const after = await assign(h, h.a, { testId, externalUserId: 'own-3' });
    expect(await pinnedVersion(after.assignmentId)).toBe(2);

    const versions = (await portalJson(h, authorA, 'GET', `${P}/${testId}/versions`)).json();
    expect(versions.data.map((v: { version: number; title: string }) => [v.version, v.title])).toEqual([[2, 'Alpha own, revised'], [1, 'Alpha own']]);
    const diff = (await portalJson(h, authorA, 'GET', `${P}/${testId}/versions/2/diff`)).json();
    const removedId = questions[1]!.id as string;
    expect(diff).toEqual({
      version: 2,
      previous: 1,
      changes: [
        { kind: 'test_changed', fields: ['title'], text: 'Test settings changed: Title “Alpha own” → “Alpha own, revised”.' },
        { kind: 'question_removed', questionId: removedId, sectionId: 'main', text: `Question ${removedId} removed.` },
        { kind: 'question_changed', questionId: questions[0]!.id, fields: ['points'], text: `Question ${questions[0]!.id} changed: Points 1 → 2.` },
        { kind: 'question_added', questionId: 'added', sectionId: 'main', text: 'Question added added.' },
      ],
    });
    const first = (await portalJson(h, authorA, 'GET', `${P}/${testId}/versions/1/diff`)).json();
    expect(first.previous).toBeNull();
    expect(first.changes.filter((c: { kind: string }) => c.kind === 'question_added')).toHaveLength(2);
    expectError(await portalJson(h, authorA, 'GET', `${P}/${testId}/versions/3/diff`), 404, 'not_found');
  });

  it('once deleted, leaves the lists and the partner, while existing assignments keep working', async () => {
    const existing = await assign(h, h.a, { testId, externalUserId: 'own-4' });
    const res = await portalJson(h, authorA, 'DELETE', `${P}/${testId}`);
    expect(res.statusCode).toBe(204);
    const listA = (await h.partner(h.a, 'GET', '/api/partner/v1/tests?limit=100')).json();
    expect(listA.data.map((t: { testId: string }) => t.testId)).not.toContain(testId);
    expect(listA.total).toBe(listA.data.length);
    expectError(await h.partner(h.a, 'POST', '/api/partner/v1/assignments', assignmentBody(h.a, { testId, externalUserId: 'own-5' })), 422, 'test_not_available');
    expect((await h.partner(h.a, 'GET', `/api/partner/v1/assignments/${existing.assignmentId}`)).statusCode).toBe(200);
    const start = await h.app.inject({ method: 'GET', url: new URL(existing.startUrl).pathname + new URL(existing.startUrl).search });
    expect(start.statusCode).toBeLessThan(400);
    const own = (await portalJson(h, authorA, 'GET', P)).json();
    expect(own.data.map((t: { testId: string }) => t.testId)).not.toContain(testId);
    expectError(await portalJson(h, authorA, 'GET', `${P}/${testId}/draft`), 404, 'not_found');
    expectError(await h.admin('GET', `${A}/tests/${testId}`), 404, 'not_found');
  });

  it('left audit entries for creating, saving, publishing and deleting, in the institution, by the author', async () => {
    const entries = await auditOf(testId);
    // The one save came within ten minutes of creating it, by the same author: coalesced into the creation's entry.
    expect(entries.map((e) => e.action)).toEqual(['test.created', 'test.version_published', 'test.version_published', 'test.deleted']);
    for (const e of entries) expect(e).toMatchObject({ actor_id: authorA.staffId, institution_id: h.a.institutionId });
    expect(entries[1]!.details).toMatchObject({ version: 1, revision: 1, title: 'Alpha own' });
  });
});

describe('auditing saves', () => {
  it('writes at most one entry per editor per test in ten minutes, and one for each other editor', async () => {
    const { testId } = (await portalJson(h, authorA, 'POST', P, { content: { title: 'Autosaved' } })).json();
    let revision = 1;
    for (let i = 0; i < 3; i++) revision = (await portalJson(h, authorA, 'PUT', `${P}/${testId}/draft`, { revision, content: { title: `Autosaved ${i}` } })).json().revision;
    // Creating counts as the author's first entry: three saves within the window add none.
    expect((await auditOf(testId)).map((e) => e.action)).toEqual(['test.created']);
    revision = (await portalJson(h, secondAuthorA, 'PUT', `${P}/${testId}/draft`, { revision, content: { title: 'Other editor' } })).json().revision;
    revision = (await portalJson(h, authorA, 'PUT', `${P}/${testId}/draft`, { revision, content: { title: 'Back to the first' } })).json().revision;
    const entries = await auditOf(testId);
    expect(entries.map((e) => [e.action, e.actor_id])).toEqual([
      ['test.created', authorA.staffId],
      ['test.draft_saved', secondAuthorA.staffId],
      ['test.draft_saved', authorA.staffId],
    ]);
    // Past the window, the same editor's next save is recorded again.
    await h.pool.query(`UPDATE test_drafts SET audited_at = audited_at - interval '11 minutes' WHERE test_id = $1`, [testId]);
    await portalJson(h, authorA, 'PUT', `${P}/${testId}/draft`, { revision, content: { title: 'Later' } });
    expect((await auditOf(testId)).filter((e) => e.action === 'test.draft_saved')).toHaveLength(3);
  });
});

describe('the operators', () => {
  it('edit a catalogue test created before drafts: its draft starts from the current version at revision 0', async () => {
    const created = (await h.admin('POST', `${A}/tests`, AUTO_TEST)).json();
    const draft = (await h.admin('GET', `${A}/tests/${created.testId}/draft`)).json();
    expect(draft).toMatchObject({ revision: 0, nextVersion: 2, problems: [], updatedAt: null, ownerInstitutionId: null });
    expect(draft.content.questions.map((q: { id: string }) => q.id)).toEqual(created.questions.map((q: { id: string }) => q.id));
    const saved = await h.admin('PUT', `${A}/tests/${created.testId}/draft`, { revision: 0, content: { ...draft.content, durationMinutes: 25 } });
    expect(saved.json().revision).toBe(1);
    expectError(await h.admin('PUT', `${A}/tests/${created.testId}/draft`, { revision: 0, content: draft.content }), 409, 'invalid_state');
    expect((await h.admin('POST', `${A}/tests/${created.testId}/versions`, { revision: 1 })).json()).toMatchObject({ version: 2, publishedRevision: 1, revision: 2 });
    const diff = (await h.admin('GET', `${A}/tests/${created.testId}/versions/2/diff`)).json();
    expect(diff.changes).toEqual([{ kind: 'test_changed', fields: ['durationMinutes'] }]);
    // A catalogue test is published by the operator, to any institution.
    expect((await h.admin('PUT', `${A}/tests/${created.testId}/publications/${h.b.institutionId}`)).statusCode).toBe(204);
  });
});
