import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../helpers/harness.js';
import { portalGet, portalPost, signedIn, type PortalUser } from '../helpers/portal.js';
import { ALL_TYPES_TEST, Student, assign, createPublishedTest, readAssignment } from '../helpers/student.js';

/**
 * Feedback for the candidate: written while marking (operator API and the
 * portal's marking form, one service), stored, and shown to the candidate
 * (completion page, report page and PDF) and to the partner
 * (`result.feedback`) only once the result is released.
 */
let h: Harness;
let testId: string;
let reviewer: PortalUser;
beforeAll(async () => {
  h = await createHarness();
  testId = await createPublishedTest(h, h.a, ALL_TYPES_TEST);
  reviewer = await signedIn(h, 'reviewer', h.a.institutionId, 'Rita Reviewer');
});
afterAll(() => h.close());

async function submitted(externalUserId: string): Promise<{ id: string; student: Student }> {
  const a = await assign(h, h.a, { testId, externalUserId });
  const student = new Student(h);
  await student.start(a.startUrl);
  await student.page(a.assignmentId);
  await student.save(a.assignmentId, [
    { questionId: 'sc', value: 'a', version: 1 },
    { questionId: 'es', value: 'Tea, then the news.', version: 1 },
  ]);
  expect((await student.submit(a.assignmentId)).statusCode).toBe(303);
  return { id: a.assignmentId, student };
}

const marks = (id: string, body: unknown) => h.admin('POST', `/api/admin/v1/assignments/${id}/marks`, body);
const stored = async (id: string) => (await h.pool.query('SELECT overall, questions FROM candidate_feedback WHERE assignment_id = $1', [id])).rows[0] ?? null;
const version = (body: string) => /name="version" value="([^"]+)"/.exec(body)![1]!;

async function pdfText(reportUrl: string): Promise<string | null> {
  const url = new URL(reportUrl);
  const pdf = await h.app.inject({ method: 'GET', url: `${url.pathname}?format=pdf` });
  expect(pdf.statusCode).toBe(200);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'assay-feedback-'));
  fs.writeFileSync(path.join(dir, 'r.pdf'), pdf.rawPayload);
  try {
    return execFileSync('pdftotext', [path.join(dir, 'r.pdf'), '-'], { encoding: 'utf8' });
  } catch {
    return null; // poppler-utils missing: the page holds the same content (report-content.ts builds both).
  }
}

describe('feedback through the operator marking API', () => {
  it('is stored while marking, hidden from the partner read and the candidate until marking finishes, then released everywhere', async () => {
    const { id, student } = await submitted('fb-api-1');
    const draft = await marks(id, {
      marks: [{ questionId: 'es', points: 6, comment: 'Reviewer-only note.' }],
      complete: false,
      feedback: { overall: '  Good structure.\r\n\r\nWork on detail.  ', questions: [{ questionId: 'es', feedback: 'Say more about the news.' }, { questionId: 'sc', feedback: '' }] },
    });
    expect(draft.statusCode).toBe(200);
    expect(draft.json().feedback).toEqual({ overall: 'Good structure.\n\nWork on detail.', questions: [{ questionId: 'es', feedback: 'Say more about the news.' }] });
    expect(await stored(id)).toEqual({ overall: 'Good structure.\n\nWork on detail.', questions: [{ questionId: 'es', feedback: 'Say more about the news.' }] });

    // Before release: not in the partner read, not on the candidate's page.
    const before = await readAssignment(h, h.a, id);
    expect(before.status).toBe('marking');
    expect(before.result).not.toHaveProperty('feedback');
    const waiting = await student.page(id);
    expect(waiting.body).toContain('Marking in progress');
    expect(waiting.body).not.toContain('Say more about the news.');
    expect(waiting.body).not.toContain('Feedback from your reviewer');

    // Finishing without `feedback` keeps what was written.
    expect((await marks(id, { marks: [{ questionId: 'es', points: 7 }], complete: true })).statusCode).toBe(200);
    const after = await readAssignment(h, h.a, id);
    expect(after.status).toBe('completed');
    expect(after.result.feedback).toEqual({ overall: 'Good structure.\n\nWork on detail.', questions: [{ questionId: 'es', feedback: 'Say more about the news.' }] });
    expect(Object.keys(after.result)).toEqual(['available', 'score', 'reportUrl', 'feedback']);

    const done = (await student.page(id)).body;
    expect(done).toContain('<h2 id="feedback-heading">Feedback from your reviewer</h2>');
    expect(done).toContain('<h3>Overall</h3><p class="feedback-text" dir="auto">Good structure.</p><p class="feedback-text" dir="auto">Work on detail.</p>');
    // The essay is the fifth question the candidate saw.
    expect(done).toContain('<h3>Question 5</h3><p class="feedback-text" dir="auto">Say more about the news.</p>');
    expect(done).not.toContain('Reviewer-only note.');

    const url = new URL(after.result.reportUrl);
    const page = await h.app.inject({ method: 'GET', url: url.pathname });
    expect(page.body).toContain('<h2 id="feedback">Feedback from the reviewer</h2>');
    expect(page.body).toContain('<h3>Question 5</h3><p dir="auto">Say more about the news.</p>');
    const text = await pdfText(after.result.reportUrl);
    if (text !== null) {
      expect(text).toContain('Feedback from the reviewer');
      expect(text).toContain('Work on detail.');
      expect(text).toContain('Say more about the news.');
    }

    // The webhook events keep their shape: the score, no feedback.
    const { rows } = await h.pool.query("SELECT data FROM events WHERE assignment_id = $1 AND type = 'grading.done'", [id]);
    expect(rows[0].data).not.toHaveProperty('feedback');
  });

  it('refuses feedback on a question the candidate was not given, over the length limit or with control characters, storing nothing (marks included)', async () => {
    const { id } = await submitted('fb-api-2');
    const cases: Array<[unknown, string]> = [
      [{ questions: [{ questionId: 'nope', feedback: 'x' }] }, 'feedback.questions.0.questionId'],
      [{ questions: [{ questionId: 'es', feedback: 'a' }, { questionId: 'es', feedback: 'b' }] }, 'feedback.questions.1.questionId'],
      [{ overall: 'x'.repeat(5001) }, 'feedback.overall'],
      [{ questions: [{ questionId: 'es', feedback: 'bad\u0000byte' }] }, 'feedback.questions.0.feedback'],
    ];
    for (const [feedback, field] of cases) {
      const res = await marks(id, { marks: [{ questionId: 'es', points: 5 }], complete: false, feedback });
      expect(res.statusCode).toBe(400);
      expect(res.json().error.code).toBe('invalid_request');
      expect(res.json().error.details.map((d: { field: string }) => d.field)).toContain(field);
    }
    const unknownField = await marks(id, { marks: [], complete: false, feedback: { general: 'x' } });
    expect(unknownField.statusCode).toBe(400);
    expect(await stored(id)).toBeNull();
    expect((await h.pool.query('SELECT 1 FROM marks WHERE assignment_id = $1 AND source = $2', [id, 'reviewer'])).rowCount).toBe(0);
    // 5,000 characters is allowed; an empty text removes what was written.
    expect((await marks(id, { marks: [], complete: false, feedback: { overall: 'é'.repeat(5000) } })).statusCode).toBe(200);
    expect((await stored(id)).overall).toHaveLength(5000);
    expect((await marks(id, { marks: [], complete: false, feedback: { overall: '   ' } })).statusCode).toBe(200);
    expect(await stored(id)).toBeNull();
  });
});

describe('feedback on the portal marking page', () => {
  it('is saved with the draft, recorded when marking finishes, and shown to the candidate only then; escaped everywhere', async () => {
    const { id, student } = await submitted('fb-portal-1');
    const form = await portalGet(h, reviewer, `/portal/marking/${id}`);
    expect(form.body).toMatch(/<label for="f-feedback-es">Feedback for the candidate<span class="sr-only"> on “Describe your morning\.”<\/span><\/label>/);
    expect(form.body).toContain('<label for="f-feedback-overall">Overall feedback</label>');

    const fields = { version: version(form.body), 'points-es': '8', 'comment-es': '', 'feedback-es': 'Nice <b>detail</b>.', 'feedback-overall': 'Line one\nLine two' };
    const saved = await portalPost(h, reviewer, `/portal/marking/${id}`, { ...fields, action: 'save' });
    expect(saved.statusCode).toBe(303);
    expect(await stored(id)).toBeNull(); // a draft is the reviewer's alone
    const reopened = await portalGet(h, reviewer, `/portal/marking/${id}`);
    expect(reopened.body).toContain('Nice &lt;b&gt;detail&lt;/b&gt;.</textarea>');
    expect(reopened.body).toContain('Line one\nLine two</textarea>');
    expect((await student.page(id)).body).not.toContain('Line one');

    const finished = await portalPost(h, reviewer, `/portal/marking/${id}`, { ...fields, action: 'finish' });
    expect(finished.statusCode).toBe(303);
    expect(await stored(id)).toEqual({ overall: 'Line one\nLine two', questions: [{ questionId: 'es', feedback: 'Nice <b>detail</b>.' }] });
    expect((await h.pool.query('SELECT written_by FROM candidate_feedback WHERE assignment_id = $1', [id])).rows[0].written_by).toBe(reviewer.email);

    const done = (await student.page(id)).body;
    expect(done).toContain('<p class="feedback-text" dir="auto">Line one<br>Line two</p>');
    expect(done).toContain('Nice &lt;b&gt;detail&lt;/b&gt;.');
    expect((await readAssignment(h, h.a, id)).result.feedback.questions).toEqual([{ questionId: 'es', feedback: 'Nice <b>detail</b>.' }]);
    // The finished item shows the feedback given, read only.
    const item = await portalGet(h, reviewer, `/portal/marking/${id}`);
    expect(item.body).toContain('<dd class="feedback-text" dir="auto">Line one\nLine two</dd>');
    // And so does the assignment's page, for every role that reads it.
    const viewer = await signedIn(h, 'viewer', h.a.institutionId);
    const record = await portalGet(h, viewer, `/portal/assignments/${id}`);
    expect(record.body).toContain('<h2 id="feedback-given-heading">Feedback for the candidate</h2>');
    expect(record.body).toContain('<dt>Question 5</dt><dd class="feedback-text" dir="auto">Nice &lt;b&gt;detail&lt;/b&gt;.</dd>');
  });

  it('keeps feedback the operator API wrote on a question the form has no field for', async () => {
    const { id } = await submitted('fb-portal-3');
    expect((await marks(id, { marks: [], complete: false, feedback: { questions: [{ questionId: 'sc', feedback: 'Right: Paris.' }] } })).statusCode).toBe(200);
    const form = await portalGet(h, reviewer, `/portal/marking/${id}`);
    const res = await portalPost(h, reviewer, `/portal/marking/${id}`, { version: version(form.body), action: 'finish', 'points-es': '6', 'feedback-es': 'More detail.' });
    expect(res.statusCode).toBe(303);
    expect(await stored(id)).toEqual({ overall: null, questions: [{ questionId: 'sc', feedback: 'Right: Paris.' }, { questionId: 'es', feedback: 'More detail.' }] });
  });

  it('refuses feedback over the limit with the error beside its field, storing nothing', async () => {
    const { id } = await submitted('fb-portal-2');
    const form = await portalGet(h, reviewer, `/portal/marking/${id}`);
    const res = await portalPost(h, reviewer, `/portal/marking/${id}`, { version: version(form.body), action: 'finish', 'points-es': '5', 'feedback-overall': 'y'.repeat(5001) });
    expect(res.statusCode).toBe(400);
    expect(res.body).toContain('The feedback must be at most 5,000 characters.');
    expect(res.body).toMatch(/<textarea id="f-feedback-overall"[^>]* aria-invalid="true"/);
    expect(await stored(id)).toBeNull();
    expect((await readAssignment(h, h.a, id)).status).toBe('marking');
  });

  it('is written only by those who can mark: admins and reviewers of the institution; authors, viewers and the other institution change nothing', async () => {
    const { id } = await submitted('fb-roles-1');
    const post = async (user: PortalUser) => {
      const form = await portalGet(h, reviewer, `/portal/marking/${id}`);
      return portalPost(h, user, `/portal/marking/${id}`, { version: version(form.body), action: 'finish', 'points-es': '4', 'feedback-overall': `From ${user.role}` });
    };
    for (const role of ['viewer', 'author'] as const) {
      const res = await post(await signedIn(h, role, h.a.institutionId));
      expect(res.statusCode).toBe(403);
    }
    const foreign = await post(await signedIn(h, 'reviewer', h.b.institutionId));
    expect(foreign.statusCode).toBe(404);
    const foreignAdmin = await post(await signedIn(h, 'admin', h.b.institutionId));
    expect(foreignAdmin.statusCode).toBe(404);
    expect(await stored(id)).toBeNull();
    expect((await readAssignment(h, h.a, id)).status).toBe('marking');

    const admin = await post(await signedIn(h, 'admin', h.a.institutionId));
    expect(admin.statusCode).toBe(303);
    expect((await stored(id)).overall).toBe('From admin');
    expect((await readAssignment(h, h.a, id)).result.feedback).toEqual({ overall: 'From admin', questions: [] });
    // The other institution's key cannot read it either.
    expect((await h.partner(h.b, 'GET', `/api/partner/v1/assignments/${id}`)).statusCode).toBe(404);
  });
});
