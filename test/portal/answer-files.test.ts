import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestInput } from '../../src/modules/catalog/schemas.js';
import { createHarness, manualClock, type Harness } from '../helpers/harness.js';
import { portalGet, portalPost, signedIn, type PortalUser } from '../helpers/portal.js';
import { Student, assign, createPublishedTest, readAssignment } from '../helpers/student.js';

/**
 * File answers for staff: the marking page shows them (image and PDF
 * inline, anything else as a link with name, type and size), the assignment
 * page names them, /portal/files/{fileId} sends reviewers, admins and
 * operators on to a signed link valid 15 minutes; and the end to
 * end: a reviewer marks a file answer of a sectioned hybrid test, then the
 * partner's read shows `completed` with section scores, as does grading.done.
 */
const clock = manualClock(new Date('2031-03-01T09:00:00Z'));
const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(100, 1)]);
const PDF = Buffer.from('%PDF-1.4\n%%EOF\n');
const DOCX = Buffer.concat(
  ['[Content_Types].xml', 'word/document.xml'].map((name) => {
    const header = Buffer.alloc(30);
    header.writeUInt32LE(0x04034b50, 0);
    header.writeUInt16LE(name.length, 26);
    return Buffer.concat([header, Buffer.from(name)]);
  }),
);

const FILES_TEST: TestInput = {
  title: 'Design Exam',
  description: 'Two sections, one of them marked by a reviewer',
  durationMinutes: 60,
  proctoring: 'none',
  marking: 'hybrid',
  resultVisibility: 'after_review',
  passPercent: 50,
  sections: [
    {
      id: 'basics',
      title: 'Basics',
      questions: [
        { id: 'sc', type: 'single_choice', prompt: 'Primary colour?', points: 2, options: [{ id: 'r', text: 'Red' }, { id: 'g', text: 'Grey' }], correctOptionId: 'r' },
        { id: 'ord', type: 'ordering', prompt: 'Smallest first', points: 2, items: [{ id: 'one', text: '1' }, { id: 'two', text: '2' }, { id: 'three', text: '3' }] },
      ],
    },
    {
      id: 'studio',
      title: 'Studio work',
      questions: [
        { id: 'sketch', type: 'file_upload', prompt: 'Upload your sketch', points: 6, accept: ['image/*', 'application/pdf'], maxBytes: 100_000 },
        { id: 'report', type: 'file_upload', prompt: 'Upload your report', points: 4, accept: ['application/vnd.openxmlformats-officedocument.wordprocessingml.document'] },
      ],
    },
  ],
};

let h: Harness;
let testId: string;
let reviewer: PortalUser;
let admin: PortalUser;
let viewer: PortalUser;
let operator: PortalUser;
let otherReviewer: PortalUser;
beforeAll(async () => {
  h = await createHarness({ clock });
  testId = await createPublishedTest(h, h.a, FILES_TEST);
  reviewer = await signedIn(h, 'reviewer', h.a.institutionId, 'Rae Reviewer');
  admin = await signedIn(h, 'admin', h.a.institutionId);
  viewer = await signedIn(h, 'viewer', h.a.institutionId);
  operator = await signedIn(h, 'operator');
  otherReviewer = await signedIn(h, 'reviewer', h.b.institutionId);
});
afterAll(() => h.close());

function upload(s: Student, assignmentId: string, questionId: string, body: Buffer, type: string, name: string, version = 1) {
  return h.app.inject({
    method: 'POST',
    url: `/a/${assignmentId}/files/${questionId}`,
    headers: { 'content-type': type, 'x-file-name': encodeURIComponent(name), 'x-answer-version': String(version), cookie: s.cookie!, 'x-csrf-token': s.csrf! },
    payload: body,
  });
}

/** A submitted attempt: choice and ordering answered, a sketch (PNG or PDF) and a docx report uploaded. */
async function submitted(externalUserId: string, sketch: { body: Buffer; type: string; name: string } = { body: PNG, type: 'image/png', name: 'sketch.png' }) {
  const a = await assign(h, h.a, { testId, externalUserId });
  const s = new Student(h);
  await s.start(a.startUrl);
  await s.page(a.assignmentId);
  expect((await s.save(a.assignmentId, [{ questionId: 'sc', value: 'r', version: 1 }, { questionId: 'ord', value: ['one', 'two', 'three'], version: 1 }])).statusCode).toBe(200);
  const sk = await upload(s, a.assignmentId, 'sketch', sketch.body, sketch.type, sketch.name);
  expect(sk.statusCode, sk.body).toBe(200);
  const rep = await upload(s, a.assignmentId, 'report', DOCX, 'application/vnd.openxmlformats-officedocument.wordprocessingml.document', 'Report – final.docx');
  expect(rep.statusCode, rep.body).toBe(200);
  expect((await s.submit(a.assignmentId)).statusCode).toBe(303);
  return { assignmentId: a.assignmentId, sketchId: sk.json().fileId as string, reportId: rep.json().fileId as string };
}

const tokenPath = (location: string) => new URL(location).pathname;

describe('file answers on the marking and assignment pages', () => {
  it('marking page: an image inline with alt text naming the file, a docx as a link with name, type and size; the page may load them', async () => {
    const { assignmentId, sketchId, reportId } = await submitted('files-1');
    const page = await portalGet(h, reviewer, `/portal/marking/${assignmentId}`);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain(`<img src="/portal/files/${sketchId}" alt="The student's file: sketch.png" class="answer-file-image">`);
    expect(page.body).toContain(`<a href="/portal/files/${reportId}" download="Report – final.docx">Download Report – final.docx</a> <span class="hint">(Word document, ${DOCX.length} bytes)</span>`);
    // Reviewers mark the file answers with points, as essays.
    expect(page.body).toContain('name="points-sketch"');
    expect(page.body).toContain('name="points-report"');
    const csp = String(page.headers['content-security-policy']);
    expect(csp).toContain("img-src 'self' http://assay.test");
    expect(csp).toContain("frame-src 'self' http://assay.test");
  });

  it('marking page: a PDF in a titled frame with the download link', async () => {
    const { assignmentId, sketchId } = await submitted('files-2', { body: PDF, type: 'application/pdf', name: 'sketch.pdf' });
    const page = await portalGet(h, reviewer, `/portal/marking/${assignmentId}`);
    expect(page.body).toContain(`<iframe src="/portal/files/${sketchId}" title="The student's file: sketch.pdf (PDF)" class="answer-file-pdf"></iframe>`);
    expect(page.body).toContain(`Download sketch.pdf</a> <span class="hint">(PDF, ${PDF.length} bytes)</span>`);
  });

  it('assignment page: the file name with a download link for reviewers; viewers see the name only', async () => {
    const { assignmentId, reportId } = await submitted('files-3');
    const forReviewer = await portalGet(h, reviewer, `/portal/assignments/${assignmentId}`);
    expect(forReviewer.body).toContain(`<a href="/portal/files/${reportId}" download="Report – final.docx">Download Report – final.docx</a>`);
    const forViewer = await portalGet(h, viewer, `/portal/assignments/${assignmentId}`);
    expect(forViewer.statusCode).toBe(200);
    expect(forViewer.body).toContain('File: Report – final.docx');
    expect(forViewer.body).not.toContain('/portal/files/');
  });
});

describe('download links', () => {
  it('reviewers, admins and operators get a signed link that serves the file; viewers are refused; another institution: 404', async () => {
    const { sketchId, reportId } = await submitted('links-1');
    for (const who of [reviewer, admin]) {
      const res = await portalGet(h, who, `/portal/files/${sketchId}`);
      expect(res.statusCode, who.role).toBe(303);
      expect(res.headers.location).toMatch(/^http:\/\/assay\.test\/answer-files\/[^/]+$/);
    }
    const op = await portalGet(h, operator, `/portal/files/${reportId}?institution=${h.a.institutionId}`);
    expect(op.statusCode).toBe(303);
    expect((await portalGet(h, viewer, `/portal/files/${sketchId}`)).statusCode).toBe(403);
    expect((await portalGet(h, otherReviewer, `/portal/files/${sketchId}`)).statusCode).toBe(404);
    expect((await portalGet(h, operator, `/portal/files/${sketchId}?institution=${h.b.institutionId}`)).statusCode).toBe(404);

    const image = await h.app.inject({ method: 'GET', url: tokenPath((await portalGet(h, reviewer, `/portal/files/${sketchId}`)).headers.location as string) });
    expect(image.statusCode).toBe(200);
    expect(image.headers['content-type']).toBe('image/png');
    expect(image.headers['content-disposition']).toBe(`inline; filename="sketch.png"; filename*=UTF-8''sketch.png`);
    expect(image.headers['x-content-type-options']).toBe('nosniff');
    expect(image.headers['cache-control']).toBe('no-store');
    expect(image.rawPayload.equals(PNG)).toBe(true);

    const doc = await h.app.inject({ method: 'GET', url: tokenPath(op.headers.location as string) });
    expect(doc.statusCode).toBe(200);
    expect(doc.headers['content-disposition']).toBe(`attachment; filename="Report final.docx"; filename*=UTF-8''${encodeURIComponent('Report – final.docx')}`);
    expect(doc.rawPayload.equals(DOCX)).toBe(true);
  });

  it('a link expires after 15 minutes (410); a tampered one is not found (404)', async () => {
    const { sketchId } = await submitted('links-2');
    const path = tokenPath((await portalGet(h, reviewer, `/portal/files/${sketchId}`)).headers.location as string);
    clock.advance(14 * 60_000);
    expect((await h.app.inject({ method: 'GET', url: path })).statusCode).toBe(200);
    clock.advance(61_000);
    const expired = await h.app.inject({ method: 'GET', url: path });
    expect(expired.statusCode).toBe(410);
    expect(expired.json().error.code).toBe('link_expired');

    const fresh = tokenPath((await portalGet(h, reviewer, `/portal/files/${sketchId}`)).headers.location as string);
    const [kid, payload, mac] = fresh.replace('/answer-files/', '').split('.') as [string, string, string];
    const otherFile = Buffer.from(Buffer.from(payload, 'base64url').toString().replace(/fil_\w+/, 'fil_0000000000000000000000')).toString('base64url');
    for (const bad of [`${kid}.${otherFile}.${mac}`, `${kid}.${payload}.${mac.slice(0, -2)}xx`, `zzzzzzzz.${payload}.${mac}`, 'nonsense']) {
      expect((await h.app.inject({ method: 'GET', url: `/answer-files/${bad}` })).statusCode, bad).toBe(404);
    }
    // A proctoring file link's route does not take an answer file's token either.
    expect((await h.app.inject({ method: 'GET', url: fresh.replace('/answer-files/', '/files/') })).statusCode).toBe(404);
  });
});

describe('the issue end to end', () => {
  it('a reviewer marks the file answers in the portal; the partner reads completed with section scores, and grading.done carries them', async () => {
    const { assignmentId } = await submitted('e2e-1');
    const before = await readAssignment(h, h.a, assignmentId);
    expect(before.status).toBe('marking');

    const page = await portalGet(h, reviewer, `/portal/marking/${assignmentId}`);
    const version = /name="version" value="([^"]+)"/.exec(page.body)![1]!;
    const done = await portalPost(h, reviewer, `/portal/marking/${assignmentId}`, { version, action: 'finish', 'points-sketch': '4.5', 'points-report': '3', 'comment-sketch': 'Good lines.' });
    expect(done.statusCode, done.body).toBe(303);

    const read = await readAssignment(h, h.a, assignmentId);
    expect(read.status).toBe('completed');
    // By hand: Basics 2 (choice) + 2 (ordering in order) = 4 of 4; Studio 4.5 + 3 = 7.5 of 10; total 11.5 of 14.
    expect(read.result.score).toMatchObject({ gradingStatus: 'final', points: 11.5, maxPoints: 14 });
    expect(read.result.score.sections).toEqual([
      { sectionId: 'basics', title: 'Basics', points: 4, maxPoints: 4, percent: 100 },
      { sectionId: 'studio', title: 'Studio work', points: 7.5, maxPoints: 10, percent: 75 },
    ]);

    const { rows } = await h.pool.query("SELECT data FROM events WHERE assignment_id = $1 AND type = 'grading.done'", [assignmentId]);
    expect(rows).toHaveLength(1);
    expect(JSON.stringify(rows[0].data)).toContain('"sections"');
    const events = await h.partner(h.a, 'GET', `/api/partner/v1/events?type=grading.done&limit=100`);
    const mine = (events.json().data as Array<{ type: string; data: { assignmentId?: string; partnerAssignmentId?: string; score?: unknown; result?: { score?: unknown } } }>).find(
      (e) => JSON.stringify(e.data).includes(assignmentId),
    );
    expect(mine, events.body.slice(0, 500)).toBeDefined();
    const score = (mine!.data.score ?? mine!.data.result?.score) as { sections: unknown };
    expect(score.sections).toEqual(read.result.score.sections);
  });
});
