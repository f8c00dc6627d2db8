import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAsset } from '../../src/modules/catalog/content-assets/assets-service.js';
import { wipeTestData } from '../../src/modules/sandbox/wipe-test-data.js';
import { AUTO_TEST, createHarness, type Harness } from '../helpers/harness.js';
import { portalJson } from '../helpers/authoring.js';
import { portalGet, portalPost, signedIn, type PortalUser } from '../helpers/portal.js';
import { Student } from '../helpers/student.js';
import { testModeTenant } from '../helpers/test-mode.js';

/**
 * The editor's preview of the saved draft and "Try it": who may use them,
 * that the preview never fails on an unfinished draft and follows saves
 * (its rendering is tested in draft-preview.test.ts), and that a trial run
 * is a test-mode assignment that no listing, event, webhook or version
 * number shows, wiped with the test data.
 */
let h: Harness;
const users = {} as Record<'admin' | 'author' | 'reviewer' | 'viewer' | 'operator', PortalUser>;
let authorB: PortalUser;
let assetId: string;
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');

beforeAll(async () => {
  h = await createHarness();
  for (const role of ['admin', 'author', 'reviewer', 'viewer'] as const) users[role] = await signedIn(h, role, h.a.institutionId);
  users.operator = await signedIn(h, 'operator');
  authorB = await signedIn(h, 'author', h.b.institutionId);
  assetId = (await createAsset(h.ctx, { contentType: 'image/png', body: PNG, ownerInstitutionId: h.a.institutionId })).assetId;
});
afterAll(() => h?.close());

const MATH_TEST = () => ({
  ...AUTO_TEST,
  title: 'Powers',
  contentFormat: 'markdown',
  sections: [
    {
      title: 'Formulas',
      questions: [
        { type: 'numeric', prompt: 'What is $x^2$ for $x = 3$?', points: 1, answer: 9 },
        { type: 'single_choice', prompt: `Which is the square? ![A square with side x](asset:${assetId})`, points: 1, options: [{ id: 'a', text: '$x^2$' }, { id: 'b', text: '$x^3$' }], correctOptionId: 'a' },
      ],
    },
    { title: 'Words', questions: [{ type: 'short_text', prompt: 'Name it.', points: 1, acceptedAnswers: ['square'] }] },
  ],
  questions: undefined,
});

async function draftTest(author: PortalUser, content: Record<string, unknown>): Promise<{ testId: string; revision: number }> {
  const res = await portalJson(h, author, 'POST', '/portal/authoring/tests', { content });
  expect(res.statusCode, res.body).toBe(201);
  return { testId: res.json().testId, revision: res.json().revision };
}

async function counts(testId: string) {
  const { rows } = await h.pool.query(
    `SELECT (SELECT count(*)::int FROM test_versions WHERE test_id = $1) AS versions,
            (SELECT count(*)::int FROM assignments WHERE test_id = $1) AS assignments`,
    [testId],
  );
  return rows[0];
}

describe('GET /portal/tests/{testId}/draft/preview', () => {
  it('renders an empty draft and one whose fields have the wrong types', async () => {
    for (const content of [{}, { title: 7, sections: 'x', durationMinutes: -1 }, { sections: [null, { questions: [null] }] }]) {
      const { testId } = await draftTest(users.author, content);
      const res = await portalGet(h, users.author, `/portal/tests/${testId}/draft/preview`);
      expect(res.statusCode, JSON.stringify(content)).toBe(200);
      expect(res.body).toContain('Untitled test');
    }
  });

  it('follows saves: a new revision renders anew', async () => {
    const { testId, revision } = await draftTest(users.author, MATH_TEST());
    expect((await portalGet(h, users.author, `/portal/tests/${testId}/draft/preview`)).body).toContain('Powers');
    const saved = await portalJson(h, users.author, 'PUT', `/portal/authoring/tests/${testId}/draft`, { revision, content: { ...MATH_TEST(), title: 'Roots' } });
    expect(saved.statusCode, saved.body).toBe(200);
    const again = await portalGet(h, users.author, `/portal/tests/${testId}/draft/preview?revision=${saved.json().revision}`);
    expect(again.body).toContain('Roots');
    expect(again.body).not.toContain('Powers');
  });

  it('by role: viewer and reviewer 403, author and admin of A on their test 200, B’s test and the catalogue 404, operator 200, signed out to sign-in', async () => {
    const { testId } = await draftTest(users.author, MATH_TEST());
    const b = await draftTest(authorB, AUTO_TEST as unknown as Record<string, unknown>);
    const url = (id: string) => `/portal/tests/${id}/draft/preview`;
    for (const role of ['viewer', 'reviewer'] as const) expect((await portalGet(h, users[role], url(testId))).statusCode, role).toBe(403);
    for (const role of ['author', 'admin'] as const) {
      expect((await portalGet(h, users[role], url(testId))).statusCode, role).toBe(200);
      expect((await portalGet(h, users[role], url(b.testId))).statusCode, role).toBe(404);
      expect((await portalGet(h, users[role], url(h.a.testId))).statusCode, role).toBe(404);
    }
    expect((await portalGet(h, users.operator, url(b.testId))).statusCode).toBe(200);
    const out = await portalGet(h, null, url(testId));
    expect(out.statusCode).toBe(303);
    expect(out.headers.location).toMatch(/^\/portal\/sign-in/);
  });
});

describe('POST /portal/tests/{testId}/try', () => {
  it('makes a test-mode trial assignment and sends the staff member to its start link; the student page says test mode', async () => {
    const { testId } = await draftTest(users.author, MATH_TEST());
    const res = await portalPost(h, users.author, `/portal/tests/${testId}/try`);
    expect(res.statusCode, res.body).toBe(303);
    expect(String(res.headers.location)).toMatch(/^http:\/\/assay\.test\/s\//);
    const { rows } = await h.pool.query(
      `SELECT a.livemode, a.trial, a.callback_url, u.external_user_id, tv.version, tv.trial AS version_trial
         FROM assignments a JOIN users u ON u.id = a.user_id JOIN test_versions tv ON tv.id = a.test_version_id WHERE a.test_id = $1`,
      [testId],
    );
    expect(rows).toEqual([
      { livemode: false, trial: true, callback_url: `http://assay.test/portal/tests/${testId}/edit`, external_user_id: `portal-try:${users.author.staffId}`, version: -2, version_trial: true },
    ]);
    const student = new Student(h);
    const opened = await student.open(String(res.headers.location));
    expect(opened.statusCode).toBe(303);
    const assignmentId = String(opened.headers.location).replace('/a/', '');
    const intro = await student.page(assignmentId);
    expect(intro.statusCode).toBe(200);
    expect(intro.body).toContain('Test mode');
    expect((await student.begin(assignmentId)).statusCode).toBe(303);
    const page = await student.page(assignmentId);
    expect(page.body).toContain('<math');
    expect((await student.submit(assignmentId)).statusCode).toBe(303);
    const done = await student.get(`/a/${assignmentId}`);
    expect(done.body).toContain(`http://assay.test/portal/tests/${testId}/edit`);
    // No event (so no webhook and nothing in GET /events) for the whole run.
    const events = await h.pool.query('SELECT count(*)::int AS n FROM events WHERE assignment_id = $1', [assignmentId]);
    expect(events.rows[0].n).toBe(0);
    const deliveries = await h.pool.query('SELECT count(*)::int AS n FROM events WHERE institution_id = $1 AND created_at > now() - interval \'1 minute\' AND assignment_id = $2', [h.a.institutionId, assignmentId]);
    expect(deliveries.rows[0].n).toBe(0);
  });

  it('leaves no trace in the versions list, the version numbering, the partner listing (live or test) or the test-mode assignments list', async () => {
    const { testId, revision } = await draftTest(users.author, MATH_TEST());
    expect((await portalPost(h, users.author, `/portal/tests/${testId}/try`)).statusCode).toBe(303);
    expect((await portalPost(h, users.author, `/portal/tests/${testId}/try`)).statusCode).toBe(303);
    const versions = await portalJson(h, users.author, 'GET', `/portal/authoring/tests/${testId}/versions`);
    expect(versions.json().data).toEqual([]);
    const draft = await portalJson(h, users.author, 'GET', `/portal/authoring/tests/${testId}/draft`);
    expect(draft.json().nextVersion).toBe(1);
    const test = await testModeTenant(h, h.a);
    for (const key of [h.a, test]) {
      const listed = await h.partner(key, 'GET', '/api/partner/v1/tests?limit=100');
      expect(listed.statusCode).toBe(200);
      expect(JSON.stringify(listed.json())).not.toContain(testId);
      const assign = await h.partner(key, 'POST', '/api/partner/v1/assignments', { testId, externalUserId: 'x', user: { email: 'x@example.com' }, callbackUrl: key.callbackUrl });
      expect(assign.statusCode).toBe(422);
    }
    // Publishing still makes version 1, and the trials stay out of its listing.
    const published = await portalJson(h, users.author, 'POST', `/portal/authoring/tests/${testId}/versions`, { revision });
    expect(published.statusCode, published.body).toBe(201);
    expect(published.json().version).toBe(1);
    expect((await portalJson(h, users.author, 'GET', `/portal/authoring/tests/${testId}/versions`)).json().data.map((v: { version: number }) => v.version)).toEqual([1]);
    const listed = await h.partner(h.a, 'GET', '/api/partner/v1/tests?limit=100');
    expect((listed.json().data as Array<{ testId: string }>).filter((t) => t.testId === testId)).toHaveLength(1);
  });

  it('refuses a draft that could not be published, with the problems in words, and writes nothing', async () => {
    const { testId } = await draftTest(users.author, { title: 'Half', questions: [{ type: 'single_choice', prompt: 'No options', points: 1 }] });
    const before = await counts(testId);
    const res = await portalPost(h, users.author, `/portal/tests/${testId}/try`);
    expect(res.statusCode).toBe(400);
    expect(res.body).toContain('cannot be tried yet');
    expect(res.body).toContain('questions.0');
    expect(await counts(testId)).toEqual(before);
  });

  it('by role: viewer and reviewer 403, B’s test and the catalogue 404, admin 303, operator 303 on an owned test, signed out refused; nothing written when refused', async () => {
    const { testId } = await draftTest(users.author, MATH_TEST());
    const b = await draftTest(authorB, AUTO_TEST as unknown as Record<string, unknown>);
    const url = (id: string) => `/portal/tests/${id}/try`;
    const before = await counts(testId);
    for (const role of ['viewer', 'reviewer'] as const) expect((await portalPost(h, users[role], url(testId))).statusCode, role).toBe(403);
    for (const role of ['author', 'admin'] as const) {
      expect((await portalPost(h, users[role], url(b.testId))).statusCode, role).toBe(404);
      expect((await portalPost(h, users[role], url(h.a.testId))).statusCode, role).toBe(404);
    }
    expect([303, 403]).toContain((await portalPost(h, null, url(testId))).statusCode);
    expect((await portalPost(h, users.author, url(testId), { csrf: 'wrong' })).statusCode).toBe(403);
    expect(await counts(testId)).toEqual(before);
    expect((await portalPost(h, users.admin, url(testId))).statusCode).toBe(303);
    expect((await portalPost(h, users.operator, url(b.testId))).statusCode).toBe(303);
    const ops = await h.pool.query('SELECT a.institution_id FROM assignments a WHERE a.test_id = $1', [b.testId]);
    expect(ops.rows).toEqual([{ institution_id: h.b.institutionId }]);
  });

  it('is wiped with the institution’s test data, the trial version with it', async () => {
    const { testId } = await draftTest(users.author, MATH_TEST());
    expect((await portalPost(h, users.author, `/portal/tests/${testId}/try`)).statusCode).toBe(303);
    expect(await counts(testId)).toEqual({ versions: 1, assignments: 1 });
    await wipeTestData(h.ctx, h.a.institutionId);
    expect(await counts(testId)).toEqual({ versions: 0, assignments: 0 });
  });
});
