import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assignmentBody, createHarness, manualClock, type Harness } from '../helpers/harness.js';
import { startFakePlatform, type FakePlatform } from '../helpers/lti-platform.js';
import { LtiBrowser, registerPlatform, resourceLinkClaims } from '../helpers/lti.js';
import { portalGet, signedIn, type PortalUser } from '../helpers/portal.js';

/**
 * The portal's assignment page shows the grades sent to the LMS for an
 * LTI-launched assignment: each score's gradingProgress and status, every
 * attempt in words, the next retry; never a token.
 */
const clock = manualClock();
let h: Harness;
let platform: FakePlatform;
let viewer: PortalUser;

beforeAll(async () => {
  h = await createHarness({ clock, config: { allowInsecureUrls: true } });
  platform = await startFakePlatform({ toolJwks: async () => (await h.app.inject({ method: 'GET', url: '/lti/jwks' })).json(), now: () => clock.now() });
  await registerPlatform(h, h.a, platform);
  viewer = await signedIn(h, 'viewer', h.a.institutionId);
});
afterAll(async () => {
  await platform?.close();
  await h?.close();
});

async function launchAndSubmit(hint: string, lineItem: string): Promise<string> {
  const b = new LtiBrowser(h);
  const launched = await b.launch(platform, hint, resourceLinkClaims(h.a.testId, { linkId: `link-${hint}`, lineItem: platform.lineItemUrl(lineItem) }));
  const assignmentId = String(launched.headers.location).replace('/a/', '');
  const page = await b.get(`/a/${assignmentId}`);
  const csrf = /name="csrf" value="([^"]+)"/.exec(page.body)![1]!;
  expect((await b.postForm(`/a/${assignmentId}/begin`, { csrf })).statusCode).toBe(303);
  expect((await b.postForm(`/a/${assignmentId}/submit`, { csrf })).statusCode).toBe(303);
  return assignmentId;
}

const panel = async (assignmentId: string) => {
  const res = await portalGet(h, viewer, `/portal/assignments/${assignmentId}`);
  expect(res.statusCode).toBe(200);
  const m = /<section class="panel" aria-labelledby="lti-scores-title">([^]*?)<\/section>/.exec(res.body);
  return { body: res.body, panel: m?.[1] ?? null };
};

describe('grades sent to the LMS, on the portal assignment page', () => {
  it('shows each attempt in words and the next retry, then the accepted score; no token anywhere', async () => {
    const assignmentId = await launchAndSubmit('learner-log', 'li-log');
    const waiting = await panel(assignmentId);
    expect(waiting.panel).toContain('Grades sent to the LMS');
    expect(waiting.panel).toContain('0 of 2 points, final (FullyGraded)');
    expect(waiting.panel).toContain('First attempt');

    platform.scoreAnswers.push(500, 200);
    await h.runJobs();
    const retrying = (await panel(assignmentId)).panel!;
    expect(retrying).toContain('The LMS had an error (HTTP 500).');
    expect(retrying).toContain('Sending');
    expect(retrying).toMatch(/Next attempt <time[^>]*datetime="[^"]+"/);

    clock.advance(5_000);
    await h.runJobs();
    const done = await panel(assignmentId);
    expect(done.panel).toContain('Accepted by the LMS (HTTP 200).');
    expect(done.panel).toContain('badge-completed');
    expect(done.panel).not.toContain('Next attempt');
    expect(platform.tokenRequests).toBeGreaterThan(0);
    // A JWT is 'eyJ' and base64url up to a dot: a random CSRF token can hold the three letters alone.
    expect(done.body).not.toMatch(/tok-\d|Bearer|client_assertion|eyJ[\w-]*\./);
  });

  it('says in words when the LMS refuses the score for good', async () => {
    const assignmentId = await launchAndSubmit('learner-refused', 'li-refused');
    platform.scoreAnswers.push(404);
    await h.runJobs();
    const { panel: p } = await panel(assignmentId);
    expect(p).toContain('Not accepted');
    expect(p).toContain('The gradebook column no longer exists in the LMS (HTTP 404)');
    expect(p).toContain('Assay stopped trying');

    // The institution's admins see it on the LTI platforms page, and on the platform's page in words.
    const admin = await signedIn(h, 'admin', h.a.institutionId);
    const [platformRow] = (await h.admin('GET', `/api/admin/v1/institutions/${h.a.institutionId}/lti-platforms`)).json().data;
    const list = await portalGet(h, admin, '/portal/lti');
    expect(list.body).toContain('<strong>1</strong> in 30 days: see the platform');
    const page = await portalGet(h, admin, `/portal/lti/${platformRow.ltiPlatformId}`);
    expect(page.statusCode).toBe(200);
    const refused = /<section class="panel" aria-labelledby="refused-title">([^]*?)<\/section>/.exec(page.body)![1]!;
    expect(refused).toContain(`href="/portal/assignments/${assignmentId}"`);
    expect(refused).toContain('The gradebook column no longer exists in the LMS (HTTP 404)');
  });

  it('is absent for an assignment made through the partner API', async () => {
    const made = await h.partner(h.a, 'POST', '/api/partner/v1/assignments', assignmentBody(h.a, { externalUserId: 'api-student' }));
    expect(made.statusCode).toBe(201);
    expect((await panel(made.json().assignmentId)).panel).toBeNull();
  });
});
