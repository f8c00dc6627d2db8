import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportSPKI, generateKeyPair, SignJWT, type JWTPayload } from 'jose';
import { createHarness, manualClock, type Harness } from '../helpers/harness.js';
import { ALL_TYPES_TEST, createPublishedTest, readAssignment } from '../helpers/student.js';
import { CLIENT_ID, DEPLOYMENT_ID, INSTRUCTOR, ISSUER, LTI, startFakePlatform, type FakePlatform } from '../helpers/lti-platform.js';
import { launchFootprint, LtiBrowser, registerPlatform, resourceLinkClaims } from '../helpers/lti.js';

const clock = manualClock();
let h: Harness;
let platform: FakePlatform;
let platformId: string;

beforeAll(async () => {
  h = await createHarness({ clock, config: { allowInsecureUrls: true } });
  platform = await startFakePlatform({ toolJwks: async () => (await h.app.inject({ method: 'GET', url: '/lti/jwks' })).json(), now: () => clock.now() });
  platformId = await registerPlatform(h, h.a, platform);
});
afterAll(async () => {
  await platform?.close();
  await h?.close();
});

/** Drives a signed-in student through the test: the page, Begin, answers, Submit. */
async function takeTest(b: LtiBrowser, assignmentId: string, answers: Array<{ questionId: string; value: unknown }>) {
  const page = await b.get(`/a/${assignmentId}`);
  expect(page.statusCode).toBe(200);
  const csrf = /name="csrf" value="([^"]+)"/.exec(page.body)![1]!;
  expect((await b.postForm(`/a/${assignmentId}/begin`, { csrf })).statusCode).toBe(303);
  const running = await b.get(`/a/${assignmentId}`);
  const token = /name="csrf" value="([^"]+)"/.exec(running.body)![1]!;
  const saved = await h.app.inject({
    method: 'POST',
    url: `/a/${assignmentId}/answers`,
    headers: { 'content-type': 'application/json', cookie: `assay_session=${b.cookies.get('assay_session')}`, 'x-csrf-token': token },
    payload: JSON.stringify({ answers: answers.map((a) => ({ ...a, version: 1 })) }),
  });
  expect(`${saved.statusCode} ${saved.body}`).toMatch(/^200 /);
  expect((await b.postForm(`/a/${assignmentId}/submit`, { csrf: token })).statusCode).toBe(303);
}

const assignmentOf = (res: { statusCode: number; headers: Record<string, unknown> }) => {
  expect(res.statusCode).toBe(303);
  return String(res.headers.location).replace('/a/', '');
};

describe('a resource-link launch', () => {
  it('lands the learner on the start page, and the platform receives FullyGraded equal to the partner read', async () => {
    const b = new LtiBrowser(h);
    const res = await b.launch(platform, 'learner-1', resourceLinkClaims(h.a.testId, { lineItem: platform.lineItemUrl('li-1'), returnUrl: 'https://lms.example.edu/courses/1/modules' }));
    const assignmentId = assignmentOf(res);
    expect(b.cookies.get('assay_session')).toBeTruthy();
    // The state's cookie is spent.
    expect([...b.cookies.keys()].filter((k) => k.startsWith('assay_lti_'))).toEqual([]);

    const before = await readAssignment(h, h.a, assignmentId);
    expect(before.status).toBe('assigned');
    expect(before.externalUserId).toBe(`lti:${platformId}:learner-1`);
    expect(before.metadata).toEqual({ lti: { ltiPlatformId: platformId, contextId: 'course-1', contextTitle: 'Biology 101', resourceLinkId: 'link-1' } });
    const user = await h.pool.query('SELECT u.name, u.email, a.callback_url FROM assignments a JOIN users u ON u.id = a.user_id WHERE a.id = $1', [assignmentId]);
    expect(user.rows[0]).toEqual({ name: 'Lee Learner', email: 'lee@lms.example.edu', callback_url: 'https://lms.example.edu/courses/1/modules' });

    const items = (await h.admin('GET', `/api/admin/v1/assignments/${assignmentId}`)).json().items as Array<{ questionId: string }>;
    await takeTest(b, assignmentId, [
      { questionId: items[0]!.questionId, value: 'b' },
      { questionId: items[1]!.questionId, value: '2.5' },
    ]);
    await h.runJobs();
    const read = await readAssignment(h, h.a, assignmentId);
    expect(read.status).toBe('completed');
    expect(platform.scores).toHaveLength(1);
    const [score] = platform.scores;
    expect(score!.contentType).toBe('application/vnd.ims.lis.v1.score+json');
    expect(score!.lineItem).toBe('li-1');
    expect(score!.query).toBe('?course=c1');
    expect(score!.body).toEqual({
      userId: 'learner-1',
      scoreGiven: read.result.score.points,
      scoreMaximum: read.result.score.maxPoints,
      activityProgress: 'Completed',
      gradingProgress: 'FullyGraded',
      timestamp: expect.stringMatching(/Z$/),
    });
    expect(read.result.score.points).toBe(2);
    // The completion page returns to the launch's return URL.
    const done = await b.get(`/a/${assignmentId}`);
    expect(done.body).toContain('https://lms.example.edu/courses/1/modules?');
  });

  it('keeps one assignment per (resource link, user): a second launch resumes it, another user or link gets their own', async () => {
    const b = new LtiBrowser(h);
    const first = assignmentOf(await b.launch(platform, 'learner-2', resourceLinkClaims(h.a.testId)));
    const again = assignmentOf(await new LtiBrowser(h).launch(platform, 'learner-2', resourceLinkClaims(h.a.testId)));
    expect(again).toBe(first);
    const otherLink = assignmentOf(await new LtiBrowser(h).launch(platform, 'learner-2', resourceLinkClaims(h.a.testId, { linkId: 'link-2' })));
    expect(otherLink).not.toBe(first);
    const otherUser = assignmentOf(await new LtiBrowser(h).launch(platform, 'learner-3', resourceLinkClaims(h.a.testId)));
    expect(otherUser).not.toBe(first);
    // Without a return URL the completion page returns to the tool's own page.
    const cb = await h.pool.query('SELECT callback_url FROM assignments WHERE id = $1', [first]);
    expect(cb.rows[0].callback_url).toBe('http://assay.test/lti/return');
    expect((await h.app.inject({ method: 'GET', url: '/lti/return' })).body).toContain('return to your course');
  });

  it("takes the launch presentation's locale as the assignment's: ar gives an Arabic, right-to-left page", async () => {
    const b = new LtiBrowser(h);
    const assignmentId = assignmentOf(await b.launch(platform, 'learner-ar', resourceLinkClaims(h.a.testId, { linkId: 'ar-link', locale: 'ar' })));
    expect((await readAssignment(h, h.a, assignmentId)).locale).toBe('ar');
    const page = await b.get(`/a/${assignmentId}`);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('<html lang="ar" dir="rtl">');
  });

  it('ignores a malformed launch locale: the launch goes ahead and the assignment has none', async () => {
    const b = new LtiBrowser(h);
    const assignmentId = assignmentOf(await b.launch(platform, 'learner-bad-locale', resourceLinkClaims(h.a.testId, { linkId: 'bad-locale-link', locale: 'fr_FR' })));
    expect((await readAssignment(h, h.a, assignmentId)).locale).toBeNull();
    expect((await b.get(`/a/${assignmentId}`)).body).toContain('<html lang="en-GB" dir="ltr">');
  });

  it('sends PendingManual for a hybrid test, then FullyGraded once a reviewer finishes marking', async () => {
    const testId = await createPublishedTest(h, h.a, ALL_TYPES_TEST);
    const b = new LtiBrowser(h);
    const assignmentId = assignmentOf(await b.launch(platform, 'learner-4', resourceLinkClaims(testId, { linkId: 'essay-link', lineItem: platform.lineItemUrl('li-2') })));
    await takeTest(b, assignmentId, [
      { questionId: 'sc', value: 'a' },
      { questionId: 'es', value: 'I woke up early and had tea.' },
    ]);
    const sent = platform.scores.length;
    await h.runJobs();
    expect(platform.scores.slice(sent).map((s) => s.body)).toEqual([
      { userId: 'learner-4', activityProgress: 'Completed', gradingProgress: 'PendingManual', timestamp: expect.any(String) },
    ]);
    const marked = await h.admin('POST', `/api/admin/v1/assignments/${assignmentId}/marks`, { marks: [{ questionId: 'es', points: 7 }], complete: true });
    expect(marked.statusCode).toBe(200);
    await h.runJobs();
    const read = await readAssignment(h, h.a, assignmentId);
    expect(read.status).toBe('completed');
    const last = platform.scores.at(-1)!;
    expect(platform.scores.length).toBe(sent + 2);
    expect(last.lineItem).toBe('li-2');
    expect(last.body).toMatchObject({ userId: 'learner-4', gradingProgress: 'FullyGraded', scoreGiven: read.result.score.points, scoreMaximum: read.result.score.maxPoints });
    expect(read.result.score.points).toBe(9);
  });

  it('in a frame, offers the test in a new window, where the link signs the learner in', async () => {
    const b = new LtiBrowser(h);
    const framed = await b.launch(platform, 'learner-framed', resourceLinkClaims(h.a.testId, { linkId: 'framed-link' }), { 'sec-fetch-dest': 'iframe' });
    expect(framed.statusCode).toBe(200);
    expect(framed.headers['content-security-policy']).toContain('frame-ancestors https: http:');
    expect(b.cookies.has('assay_session')).toBe(false);
    const href = /<a class="button primary" href="(\/s\/[^"]+)" target="_blank" rel="noopener">Open the test in a new window/.exec(framed.body)![1]!;
    const opened = await new LtiBrowser(h).get(href);
    expect(opened.statusCode).toBe(303);
    const assignmentId = String(opened.headers.location).replace('/a/', '');
    expect((await readAssignment(h, h.a, assignmentId)).externalUserId).toBe(`lti:${platformId}:learner-framed`);
    // Without Sec-Fetch-Dest, the platform's document_target says where the launch is shown.
    const claims = { ...resourceLinkClaims(h.a.testId, { linkId: 'framed-link' }), [`${LTI}launch_presentation`]: { document_target: 'iframe' } };
    expect((await new LtiBrowser(h).launch(platform, 'learner-framed', claims)).body).toContain('Open the test in a new window');
    // A top-level launch goes straight in, whatever the claim says.
    expect((await new LtiBrowser(h).launch(platform, 'learner-framed', claims, { 'sec-fetch-dest': 'document' })).statusCode).toBe(303);
  });

  it("shows an instructor the link's page (who launched, started, submitted, completed) and creates no assignment", async () => {
    const footprint = await launchFootprint(h);
    const res = await new LtiBrowser(h).launch(platform, 'teacher-1', resourceLinkClaims(h.a.testId, { roles: [INSTRUCTOR] }));
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('<h1>Arithmetic</h1>');
    expect(res.body).toMatch(/<dt>Completed<\/dt><dd>1<\/dd>/);
    expect(res.body).toContain('Lee Learner');
    expect(res.body).toContain('Score: sent to the gradebook.');
    const after = await launchFootprint(h);
    expect({ ...after, nonces: 0 }).toEqual({ ...footprint, nonces: 0 });
  });
});

describe('a refused launch', () => {
  /** A login in `b`, then an id_token made by the test (the platform's key unless told) posted with the login's state. */
  async function craftedLaunch(
    claims: (base: JWTPayload) => JWTPayload,
    opts: { sign?: (payload: JWTPayload) => Promise<string>; browser?: LtiBrowser; poster?: LtiBrowser } = {},
  ) {
    const b = opts.browser ?? new LtiBrowser(h);
    const { state, nonce } = await b.authorize(platform, 'learner-x', {});
    const t = Math.floor(clock.now().getTime() / 1000);
    const base: JWTPayload = {
      iss: ISSUER,
      aud: CLIENT_ID,
      sub: 'learner-x',
      iat: t,
      exp: t + 300,
      nonce,
      [`${LTI}message_type`]: 'LtiResourceLinkRequest',
      [`${LTI}version`]: '1.3.0',
      [`${LTI}deployment_id`]: DEPLOYMENT_ID,
      ...resourceLinkClaims(h.a.testId, { linkId: 'refused-link' }),
    };
    const payload = claims(base);
    const idToken = opts.sign ? await opts.sign(payload) : await platform.sign(payload);
    return (opts.poster ?? b).postForm('/lti/launch', { id_token: idToken, state });
  }

  async function expectRefused(run: () => Promise<{ statusCode: number; body: string }>) {
    const before = await launchFootprint(h);
    const res = await run();
    expect(res.statusCode).toBe(401);
    expect(res.body).toContain('This launch could not be verified');
    expect(await launchFootprint(h)).toEqual(before);
    return res;
  }

  it('accepts the crafted launch when nothing is wrong (the cases below each change one thing)', async () => {
    const res = await craftedLaunch((p) => p);
    expect(res.statusCode).toBe(303);
  });

  it('refuses a bad signature', async () => {
    const other = await generateKeyPair('RS256');
    await expectRefused(() => craftedLaunch((p) => p, { sign: (p) => platform.sign(p, { key: other.privateKey }) }));
  });

  it('refuses a kid unknown even after fetching the key set again', async () => {
    clock.advance(10_000);
    const other = await generateKeyPair('RS256');
    const fetches = platform.jwksFetches;
    await expectRefused(() => craftedLaunch((p) => p, { sign: (p) => platform.sign(p, { kid: 'unknown-kid', key: other.privateKey }) }));
    expect(platform.jwksFetches).toBe(fetches + 1);
  });

  it('accepts a key the platform added since the last fetch (fetched again on the unknown kid)', async () => {
    clock.advance(10_000);
    const rotated = await platform.rotate();
    const res = await craftedLaunch((p) => p, { sign: (p) => platform.sign(p, { kid: rotated.kid, key: rotated.key }) });
    expect(res.statusCode).toBe(303);
  });

  it('refuses alg none', async () => {
    const unsigned = (p: JWTPayload) => {
      const enc = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
      return Promise.resolve(`${enc({ alg: 'none', typ: 'JWT' })}.${enc(p)}.`);
    };
    await expectRefused(() => craftedLaunch((p) => p, { sign: unsigned }));
  });

  it("refuses HS256 signed with the platform's public key as the secret", async () => {
    const { importJWK } = await import('jose');
    const pem = await exportSPKI((await importJWK(platform.publicJwk, 'RS256')) as CryptoKey);
    const hs = (p: JWTPayload) => new SignJWT(p).setProtectedHeader({ alg: 'HS256', kid: platform.kid }).sign(new TextEncoder().encode(pem));
    await expectRefused(() => craftedLaunch((p) => p, { sign: hs }));
  });

  it('refuses a wrong aud, and several audiences without azp', async () => {
    await expectRefused(() => craftedLaunch((p) => ({ ...p, aud: 'someone-else' })));
    await expectRefused(() => craftedLaunch((p) => ({ ...p, aud: [CLIENT_ID, 'someone-else'] })));
    await expectRefused(() => craftedLaunch((p) => ({ ...p, aud: [CLIENT_ID, 'someone-else'], azp: 'someone-else' })));
  });

  it('refuses an expired token, one issued in the future, and a wrong issuer', async () => {
    const t = Math.floor(clock.now().getTime() / 1000);
    await expectRefused(() => craftedLaunch((p) => ({ ...p, iat: t - 900, exp: t - 300 })));
    await expectRefused(() => craftedLaunch((p) => ({ ...p, iat: t + 600, exp: t + 900 })));
    await expectRefused(() => craftedLaunch((p) => ({ ...p, iss: 'https://evil.example' })));
  });

  it('refuses a replayed id_token: the same post again, or with a fresh login', async () => {
    const b = new LtiBrowser(h);
    const posted = await b.authorize(platform, 'learner-replay', resourceLinkClaims(h.a.testId, { linkId: 'replay-link' }));
    expect((await b.postForm('/lti/launch', { id_token: posted.id_token, state: posted.state })).statusCode).toBe(303);
    await expectRefused(() => b.postForm('/lti/launch', { id_token: posted.id_token, state: posted.state }));
    const fresh = await b.authorize(platform, 'learner-replay', resourceLinkClaims(h.a.testId, { linkId: 'replay-link' }));
    await expectRefused(() => b.postForm('/lti/launch', { id_token: posted.id_token, state: fresh.state }));
  });

  it('refuses a state started by another browser', async () => {
    await expectRefused(() => craftedLaunch((p) => p, { poster: new LtiBrowser(h) }));
  });

  it('refuses an unknown deployment, a wrong message type, a wrong version, a missing nonce match', async () => {
    await expectRefused(() => craftedLaunch((p) => ({ ...p, [`${LTI}deployment_id`]: 'deployment-unknown' })));
    await expectRefused(() => craftedLaunch((p) => ({ ...p, [`${LTI}message_type`]: 'LtiSubmissionReviewRequest' })));
    await expectRefused(() => craftedLaunch((p) => ({ ...p, [`${LTI}version`]: '1.1' })));
    await expectRefused(() => craftedLaunch((p) => ({ ...p, nonce: 'not-the-login-nonce' })));
  });

  it('refuses a test not published to the institution', async () => {
    await expectRefused(() => craftedLaunch((p) => ({ ...p, [`${LTI}custom`]: { assay_test_id: h.b.testId } })));
  });

  it('refuses an id_token issued 11 minutes ago (iat at most 5 minutes old) or more than 60 s in the future, whatever its exp', async () => {
    const t = Math.floor(clock.now().getTime() / 1000);
    await expectRefused(() => craftedLaunch((p) => ({ ...p, iat: t - 11 * 60, exp: t + 300 })));
    await expectRefused(() => craftedLaunch((p) => ({ ...p, iat: t - 5 * 60 - 1, exp: t + 300 })));
    await expectRefused(() => craftedLaunch((p) => ({ ...p, iat: t + 61, exp: t + 300 })));
    // The edges of the window are accepted.
    expect((await craftedLaunch((p) => ({ ...p, iat: t - 5 * 60, exp: t + 300 }))).statusCode).toBe(303);
    expect((await craftedLaunch((p) => ({ ...p, iat: t + 60, exp: t + 300 }))).statusCode).toBe(303);
  });

  it('refuses a login from an unknown issuer or deployment, or for another site, and a launch without a state', async () => {
    const b = new LtiBrowser(h);
    await expectRefused(() => b.login(platform, 'x', { iss: 'https://unknown.example' }));
    await expectRefused(() => b.login(platform, 'x', { lti_deployment_id: 'nope' }));
    await expectRefused(() => b.login(platform, 'x', { target_link_uri: 'https://elsewhere.example/lti/launch' }));
    const malformed = await b.get('/lti/login?iss=x');
    expect(malformed.statusCode).toBe(400);
    expect(malformed.body).toContain('This launch could not be verified');
  });

  it('answers 400 to a launch missing its parameters: an empty body, no state, no id_token, no body at all', async () => {
    const before = await launchFootprint(h);
    const b = new LtiBrowser(h);
    for (const res of [
      await h.app.inject({ method: 'POST', url: '/lti/launch', headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: '' }),
      await b.postForm('/lti/launch', {}),
      await b.postForm('/lti/launch', { id_token: 'x.y.z' }),
      await b.postForm('/lti/launch', { state: 'some-state' }),
      await h.app.inject({ method: 'POST', url: '/lti/launch' }),
    ]) {
      expect(res.statusCode).toBe(400);
      expect(res.body).toContain('This launch could not be verified');
    }
    expect(await launchFootprint(h)).toEqual(before);
  });
});
