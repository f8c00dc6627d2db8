import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../helpers/harness.js';
import { auditActions, portalGet, portalPost, signedIn, type PortalUser } from '../helpers/portal.js';
import { flagsOf, jpeg, proctoredTest, signal, startProctored, webm, type Proctored } from '../helpers/proctoring.js';
import { createPublishedTest } from '../helpers/student.js';

/**
 * Proctoring review in the portal: the record of a proctored attempt (flags,
 * recording players, evidence images) behind the right CSP, and a review per
 * critical flag through reviewFlags with the signed-in reviewer and an audit
 * entry; viewers cannot open it, another institution's staff get 404.
 */
let h: Harness;
let p: Proctored;
let critical: string[];
let reviewer: PortalUser;
let viewer: PortalUser;
let otherReviewer: PortalUser;
const page = () => `/portal/assignments/${p.assignmentId}/proctoring`;
const review = (user: PortalUser, fields: Record<string, string>) => portalPost(h, user, `${page()}/review`, fields);

beforeAll(async () => {
  h = await createHarness();
  const testId = await createPublishedTest(h, h.a, proctoredTest('live_ai'));
  p = await startProctored(h, h.a, testId, 'proctored-student');
  const t = h.clock.now().getTime();
  const flags = flagsOf(
    await p.heartbeat([signal('nf-0000001', 'no_face', 25, new Date(t - 25_000), false), signal('cam-000001', 'camera_stopped', 0, new Date(t - 1_000), false), signal('cp-0000001', 'copy_paste', 0, new Date(t), false)]),
  );
  critical = flags.filter((f) => f.severity === 'critical').map((f) => f.flagId);
  expect(critical).toHaveLength(2);
  expect((await p.snapshot(jpeg(), { flagId: critical[0] })).statusCode).toBeLessThan(300);
  expect((await p.segment(0, webm())).statusCode).toBeLessThan(300);
  reviewer = await signedIn(h, 'reviewer', h.a.institutionId, 'Dana Reviewer');
  viewer = await signedIn(h, 'viewer', h.a.institutionId);
  otherReviewer = await signedIn(h, 'reviewer', h.b.institutionId);
});
afterAll(() => h.close());

describe('the proctoring record', () => {
  it('shows the flags, a player per segment and the evidence snapshot, with media-src and img-src for the signed file URLs', async () => {
    const res = await portalGet(h, reviewer, page());
    expect(res.statusCode, res.body).toBe(200);
    const csp = res.headers['content-security-policy'] as string;
    expect(csp).toMatch(/media-src 'self'/);
    expect(csp).toMatch(/img-src 'self'/);
    expect(csp).toMatch(/script-src 'self'/);
    expect(res.body).toContain('No face in view');
    expect(res.body).toContain('Camera stopped');
    expect(res.body).toContain('Copy or paste');
    expect(res.body).toMatch(/<video controls preload="none" src="[^"]*\/files\/[^"]+"/);
    expect(res.body).toMatch(/<img src="[^"]*\/files\/[^"]+" alt="Webcam snapshot taken for the flag “No face in view”/);
    // Two critical flags, two forms, each with labelled radios and a note; the copy/paste warning gets none.
    expect(res.body.match(/<form method="post" action="\/portal\/assignments\/[^"]+\/proctoring\/review"/g)).toHaveLength(2);
    expect(res.body).toContain('<label for="f-outcome-1-confirmed">Confirmed: a breach of the rules</label>');
    // The signed URL really serves the file.
    const src = /<video controls preload="none" src="[^"]*(\/files\/[^"]+)"/.exec(res.body)![1]!;
    const file = await h.app.inject({ method: 'GET', url: src.replace(/&amp;/g, '&') });
    expect(file.statusCode).toBe(200);
  });

  it('the assignment page links to it for reviewers, not for viewers', async () => {
    expect((await portalGet(h, reviewer, `/portal/assignments/${p.assignmentId}`)).body).toContain(`href="/portal/assignments/${p.assignmentId}/proctoring"`);
    const asViewer = await portalGet(h, viewer, `/portal/assignments/${p.assignmentId}`);
    expect(asViewer.body).toContain('2 critical');
    expect(asViewer.body).not.toContain(`/proctoring"`);
  });

  it('a viewer gets 403, another institution 404, and neither can review', async () => {
    expect((await portalGet(h, viewer, page())).statusCode).toBe(403);
    expect((await review(viewer, { flagId: critical[0]!, outcome: 'confirmed', note: 'x' })).statusCode).toBe(403);
    expect((await portalGet(h, otherReviewer, page())).statusCode).toBe(404);
    expect((await review(otherReviewer, { flagId: critical[0]!, outcome: 'confirmed', note: 'x' })).statusCode).toBe(404);
    const { rows } = await h.pool.query('SELECT count(*)::int AS n FROM proctoring_flags WHERE review_outcome IS NOT NULL');
    expect(rows[0].n).toBe(0);
  });
});

describe('reviewing', () => {
  it('before submission the form shows why nothing was recorded', async () => {
    const res = await review(reviewer, { flagId: critical[0]!, outcome: 'confirmed', note: 'Empty chair.' });
    expect(res.statusCode).toBe(400);
    expect(res.body).toContain('after the attempt is submitted');
    expect((await auditActions(h, h.a.institutionId)).filter((e) => e.action === 'proctoring.flag_reviewed')).toHaveLength(0);
  });

  it('a missing outcome or note is shown against its field', async () => {
    expect((await p.student.submit(p.assignmentId)).statusCode).toBe(303);
    // Submitted with critical flags undecided: in the review queue of its institution only.
    const queue = await portalGet(h, reviewer, '/portal/proctoring');
    expect(queue.body).toContain(`href="/portal/assignments/${p.assignmentId}/proctoring"`);
    expect(queue.body).toContain('2 of 2');
    expect((await portalGet(h, otherReviewer, '/portal/proctoring')).body).not.toContain(p.assignmentId);
    expect((await portalGet(h, viewer, '/portal/proctoring')).statusCode).toBe(403);
    const res = await review(reviewer, { flagId: critical[0]!, note: '' });
    expect(res.statusCode).toBe(400);
    expect(res.body).toMatch(/href="#f-outcome-(\d)-confirmed"[\s\S]*href="#f-note-\1"/);
  });

  it('records the signed-in reviewer and an audit entry; the last flag completes the review (integrity.reviewed)', async () => {
    const first = await review(reviewer, { flagId: critical[0]!, outcome: 'confirmed', note: 'Nobody at the desk for 25 s.' });
    expect(first.statusCode, first.body).toBe(303);
    expect(first.headers.location).toBe(`${page()}?done=flag-reviewed`);
    const after = await portalGet(h, reviewer, first.headers.location as string);
    expect(after.body).toContain('Your review was recorded');
    expect(after.body).toContain(`by ${reviewer.email}`);
    expect(after.body.match(/proctoring\/review"/g)).toHaveLength(1);

    expect((await review(reviewer, { flagId: critical[1]!, outcome: 'dismissed', note: 'Camera glitch.' })).statusCode).toBe(303);
    const admin = await h.admin('GET', `/api/admin/v1/assignments/${p.assignmentId}/proctoring`);
    expect(admin.json().summary).toMatchObject({ confirmed: 1, dismissed: 1, reviewStatus: 'reviewed' });
    expect(admin.json().flags.find((f: { id: string }) => f.id === critical[0]).review).toMatchObject({ outcome: 'confirmed', reviewer: reviewer.email });
    const events = await h.pool.query("SELECT count(*)::int AS n FROM events WHERE assignment_id = $1 AND type = 'integrity.reviewed'", [p.assignmentId]);
    expect(events.rows[0].n).toBe(1);

    const entries = (await auditActions(h, h.a.institutionId)).filter((e) => e.action === 'proctoring.flag_reviewed');
    expect(entries).toHaveLength(2);
    expect(entries[0]).toMatchObject({ actor_id: reviewer.staffId, object_id: p.assignmentId, details: { flagId: critical[0], outcome: 'confirmed', reviewStatus: 'pending' } });
    expect(entries[1]!.details).toMatchObject({ flagId: critical[1], outcome: 'dismissed', reviewStatus: 'reviewed' });
    expect((await portalGet(h, reviewer, '/portal/proctoring')).body).toContain('No submitted attempt has a critical flag waiting for review.');
  });

  it('a decision is final: another outcome on a reviewed flag is refused and writes no audit entry', async () => {
    const res = await review(reviewer, { flagId: critical[0]!, outcome: 'dismissed', note: 'Changed my mind.' });
    expect(res.statusCode).toBe(400);
    expect(res.body).toContain('a review is final');
    expect((await auditActions(h, h.a.institutionId)).filter((e) => e.action === 'proctoring.flag_reviewed')).toHaveLength(2);
  });
});
