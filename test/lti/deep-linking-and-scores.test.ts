import { describe, expect, it } from 'vitest';
import { createLocalJWKSet, jwtVerify } from 'jose';
import { AUTO_TEST, manualClock, type Harness } from '../helpers/harness.js';
import { readAssignment } from '../helpers/student.js';
import { CLIENT_ID, INSTRUCTOR, ISSUER, LTI, type FakePlatform } from '../helpers/lti-platform.js';
import { launchFootprint, LtiBrowser, resourceLinkClaims, useLtiRig } from '../helpers/lti.js';
import { createTest, publishTest } from '../../src/modules/catalog/tests-service.js';

const clock = manualClock();
let h: Harness;
let platform: FakePlatform;

useLtiRig(clock, (rig) => ({ h, platform } = rig));

const DL = 'https://purl.imsglobal.org/spec/lti-dl/claim/';

describe('deep linking', () => {
  it("shows the institution's published tests, and answers with a signed ltiResourceLink whose launch opens that test", async () => {
    const second = await createTest(h.pool, { ...AUTO_TEST, title: 'Cell biology quiz' });
    await publishTest(h.pool, second.testId, h.a.institutionId);
    const b = new LtiBrowser(h);
    const returnUrl = `${platform.baseUrl}/deep-link-return`;
    const picker = await b.launch(platform, 'teacher-1', {
      [`${LTI}message_type`]: 'LtiDeepLinkingRequest',
      [`${LTI}roles`]: [INSTRUCTOR],
      [`${DL}deep_linking_settings`]: { deep_link_return_url: returnUrl, accept_types: ['ltiResourceLink'], accept_presentation_document_targets: ['iframe', 'window'], data: 'opaque-123' },
    });
    expect(picker.statusCode).toBe(200);
    expect(picker.body).toContain('<h1>Choose a test</h1>');
    // Each test in a row that names it, with its button; the other institution's test is not offered.
    expect(picker.body.match(/>Use this test</g)).toHaveLength(2);
    expect(picker.body).toContain(`<h2 id="t-${h.a.testId}">Arithmetic</h2>`);
    expect(picker.body).toContain('Cell biology quiz');
    expect(picker.body).not.toContain(h.b.testId);
    const requestId = /name="picker_token" value="([^"]+)"/.exec(picker.body)![1]!;

    const search = await b.get(`/lti/deep-link?picker_token=${requestId}&q=cell`);
    expect(search.body.match(/>Use this test</g)).toHaveLength(1);
    expect(search.body).toContain('Cell biology quiz');

    const chosen = await b.postForm('/lti/deep-link', { picker_token: requestId, testId: h.a.testId });
    expect(chosen.statusCode).toBe(200);
    expect(chosen.headers['content-security-policy']).toContain(`form-action 'self' ${platform.baseUrl}`);
    expect(chosen.body).toContain(`<form id="lti-return" method="post" action="${returnUrl}">`);
    expect(chosen.body).toContain('<script src="/lti/assets/auto-post.js" defer></script>');
    const jwt = /name="JWT" value="([^"]+)"/.exec(chosen.body)![1]!;

    const jwks = createLocalJWKSet((await h.app.inject({ method: 'GET', url: '/lti/jwks' })).json());
    const { payload, protectedHeader } = await jwtVerify(jwt, jwks, { algorithms: ['RS256'], issuer: CLIENT_ID, audience: ISSUER, currentDate: clock.now() });
    expect(protectedHeader.kid).toEqual(expect.any(String));
    expect(payload[`${LTI}message_type`]).toBe('LtiDeepLinkingResponse');
    expect(payload[`${LTI}version`]).toBe('1.3.0');
    expect(payload[`${LTI}deployment_id`]).toBe('deployment-1');
    expect(payload[`${DL}data`]).toBe('opaque-123');
    expect(payload.nonce).toEqual(expect.any(String));
    const items = payload[`${DL}content_items`] as Array<Record<string, any>>;
    expect(items).toHaveLength(1);
    expect(items[0]).toMatchObject({
      type: 'ltiResourceLink',
      title: 'Arithmetic',
      url: 'http://assay.test/lti/launch',
      custom: { assay_test_id: h.a.testId },
      lineItem: { scoreMaximum: 2, label: 'Arithmetic' },
    });

    // The platform creates the link from the item; a learner's launch of it opens that test.
    const launched = await new LtiBrowser(h).launch(platform, 'learner-dl', {
      ...resourceLinkClaims(items[0]!.custom.assay_test_id, { linkId: 'created-by-deep-link' }),
      [`${LTI}custom`]: items[0]!.custom,
    });
    expect(launched.statusCode).toBe(303);
    const assignmentId = String(launched.headers.location).replace('/a/', '');
    expect((await readAssignment(h, h.a, assignmentId)).testId).toBe(h.a.testId);
  });

  it("refuses another institution's test, an unknown picker request, and a deep-linking launch without a return URL, creating nothing", async () => {
    const b = new LtiBrowser(h);
    const picker = await b.launch(platform, 'teacher-2', {
      [`${LTI}message_type`]: 'LtiDeepLinkingRequest',
      [`${LTI}roles`]: [INSTRUCTOR],
      [`${DL}deep_linking_settings`]: { deep_link_return_url: `${platform.baseUrl}/r`, accept_types: ['ltiResourceLink'] },
    });
    const requestId = /name="picker_token" value="([^"]+)"/.exec(picker.body)![1]!;
    const other = await b.postForm('/lti/deep-link', { picker_token: requestId, testId: h.b.testId });
    expect(other.statusCode).toBe(401);
    expect(other.body).not.toContain('JWT');
    expect((await b.postForm('/lti/deep-link', { picker_token: 'nope', testId: h.a.testId })).statusCode).toBe(401);
    const before = await launchFootprint(h);
    const noReturn = await b.launch(platform, 'teacher-3', { [`${LTI}message_type`]: 'LtiDeepLinkingRequest', [`${LTI}roles`]: [INSTRUCTOR] });
    expect(noReturn.statusCode).toBe(401);
    const learner = await b.launch(platform, 'learner-dl-2', {
      [`${LTI}message_type`]: 'LtiDeepLinkingRequest',
      [`${DL}deep_linking_settings`]: { deep_link_return_url: `${platform.baseUrl}/r`, accept_types: ['ltiResourceLink'] },
    });
    expect(learner.statusCode).toBe(401);
    expect(await launchFootprint(h)).toEqual(before);
  });
});

describe('score posts (AGS)', () => {
  it("stop at a 4xx other than 401, 408 or 429, and the instructor's page says the gradebook refused it", async () => {
    const b = new LtiBrowser(h);
    const launched = await b.launch(platform, 'learner-403', resourceLinkClaims(h.a.testId, { linkId: 'refusing-link', lineItem: platform.lineItemUrl('li-403') }));
    const assignmentId = String(launched.headers.location).replace('/a/', '');
    const page = await b.get(`/a/${assignmentId}`);
    const csrf = /name="csrf" value="([^"]+)"/.exec(page.body)![1]!;
    await b.postForm(`/a/${assignmentId}/begin`, { csrf });
    await b.postForm(`/a/${assignmentId}/submit`, { csrf });
    platform.scoreAnswers.push(403);
    await h.runJobs();
    clock.advance(600_000);
    await h.runJobs();
    const posts = await h.pool.query('SELECT status, attempts FROM lti_score_posts WHERE assignment_id = $1', [assignmentId]);
    expect(posts.rows).toEqual([{ status: 'failed', attempts: 1 }]);
    const instructor = await new LtiBrowser(h).launch(platform, 'teacher-403', resourceLinkClaims(h.a.testId, { linkId: 'refusing-link', roles: [INSTRUCTOR] }));
    expect(instructor.body).toContain('Score: not accepted by the gradebook (it answered 403).');
  });


  it('retry when the platform is down, then answers 500, then 200: one score recorded, every attempt kept', async () => {
    const b = new LtiBrowser(h);
    const launched = await b.launch(platform, 'learner-retry', resourceLinkClaims(h.a.testId, { linkId: 'retry-link', lineItem: platform.lineItemUrl('li-retry') }));
    const assignmentId = String(launched.headers.location).replace('/a/', '');
    // Begun and submitted with no answer: a final score of 0.
    const page = await b.get(`/a/${assignmentId}`);
    const csrf = /name="csrf" value="([^"]+)"/.exec(page.body)![1]!;
    expect((await b.postForm(`/a/${assignmentId}/begin`, { csrf })).statusCode).toBe(303);
    expect((await b.postForm(`/a/${assignmentId}/submit`, { csrf })).statusCode).toBe(303);

    platform.scoreAnswers.push('drop', 500, 200);
    const before = platform.scores.length;
    await h.runJobs();
    expect(platform.scores.length).toBe(before);
    await h.runJobs();
    expect(platform.scores.length).toBe(before); // not due yet: the retry waits its backoff
    clock.advance(1_500);
    await h.runJobs();
    expect(platform.scores.length).toBe(before);
    clock.advance(3_000);
    await h.runJobs();
    expect(platform.scores.length).toBe(before + 1);
    clock.advance(60_000);
    await h.runJobs();
    expect(platform.scores.length).toBe(before + 1);
    expect(platform.scores.at(-1)!.body).toMatchObject({ userId: 'learner-retry', gradingProgress: 'FullyGraded', scoreGiven: 0, scoreMaximum: 2 });

    const posts = await h.pool.query('SELECT id, status, attempts FROM lti_score_posts WHERE assignment_id = $1', [assignmentId]);
    expect(posts.rows).toEqual([{ id: expect.any(String), status: 'delivered', attempts: 3 }]);
    const attempts = await h.pool.query('SELECT status_code, error_class FROM lti_score_attempts WHERE score_post_id = $1 ORDER BY id', [posts.rows[0].id]);
    expect(attempts.rows).toEqual([
      { status_code: null, error_class: expect.stringMatching(/connection_reset|network/) },
      { status_code: 500, error_class: null },
      { status_code: 200, error_class: null },
    ]);
    // The operator reads the same record.
    const read = await h.admin('GET', `/api/admin/v1/assignments/${assignmentId}/lti-scores`);
    expect(read.statusCode).toBe(200);
    expect(read.json().data).toEqual([
      expect.objectContaining({
        status: 'delivered',
        scoresUrl: `${platform.baseUrl}/lineitems/li-retry/scores?course=c1`,
        score: expect.objectContaining({ gradingProgress: 'FullyGraded' }),
        attempts: [
          expect.objectContaining({ statusCode: null }),
          expect.objectContaining({ statusCode: 500 }),
          expect.objectContaining({ statusCode: 200, errorClass: null }),
        ],
      }),
    ]);
    expect((await h.admin('GET', '/api/admin/v1/assignments/asg_unknown/lti-scores')).statusCode).toBe(404);
    // One token served every attempt (cached until it expires).
    expect(platform.tokenRequests).toBe(1);
  });
});
