import { describe, expect, it } from 'vitest';
import { manualClock, type Harness } from '../helpers/harness.js';
import { LTI, type FakePlatform } from '../helpers/lti-platform.js';
import { launchFootprint, LtiBrowser, resourceLinkClaims, useLtiRig } from '../helpers/lti.js';

const clock = manualClock();
let h: Harness;
let platform: FakePlatform;

useLtiRig(clock, (rig) => ({ h, platform } = rig));

const M = 'http://purl.imsglobal.org/vocab/lis/v2/membership';

describe('who a launch is for (the LTI role vocabulary)', () => {
  it("shows a teaching assistant (the sub-role alone) and the short role Instructor the link's page, creating no assignment", async () => {
    const before = await launchFootprint(h);
    for (const [hint, roles] of [['ta-1', [`${M}/Instructor#TeachingAssistant`]], ['teacher-short', ['Instructor']]] as const) {
      const res = await new LtiBrowser(h).launch(platform, hint, resourceLinkClaims(h.a.testId, { linkId: 'roles-link', roles: [...roles] }));
      expect(res.statusCode).toBe(200);
      expect(res.body).toContain('<h2>Progress</h2>');
    }
    const after = await launchFootprint(h);
    expect(after.assignments).toBe(before.assignments);
    expect(after.link_assignments).toBe(before.link_assignments);
  });

  it('lets a teaching assistant open the deep-linking picker', async () => {
    const res = await new LtiBrowser(h).launch(platform, 'ta-2', {
      [`${LTI}message_type`]: 'LtiDeepLinkingRequest',
      [`${LTI}roles`]: [`${M}/Instructor#TeachingAssistant`],
      'https://purl.imsglobal.org/spec/lti-dl/claim/deep_linking_settings': { deep_link_return_url: `${platform.baseUrl}/deep-link-return`, accept_types: ['ltiResourceLink'] },
    });
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('<h1>Choose a test</h1>');
  });

  it('shows an observer (membership#Mentor, as Canvas sends) a page saying they cannot take the test, and creates nothing', async () => {
    const before = await launchFootprint(h);
    const res = await new LtiBrowser(h).launch(platform, 'observer-1', resourceLinkClaims(h.a.testId, { linkId: 'roles-link', roles: [`${M}#Mentor`] }));
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('<h1>Arithmetic</h1>');
    expect(res.body).toContain('as an observer, so you cannot take this test');
    expect(res.headers['set-cookie'] ?? '').not.toContain('assay_session');
    expect(await launchFootprint(h)).toEqual(before);
  });

  it('still gives a learner their assignment', async () => {
    const res = await new LtiBrowser(h).launch(platform, 'learner-short', resourceLinkClaims(h.a.testId, { linkId: 'roles-link', roles: ['Learner'] }));
    expect(res.statusCode).toBe(303);
    expect(String(res.headers.location)).toMatch(/^\/a\/asg_/);
  });
});

describe('a link that names no test (a tool URL added by hand)', () => {
  const noTest = (roles: string[]) => ({ ...resourceLinkClaims(h.a.testId, { linkId: 'hand-made', roles }), [`${LTI}custom`]: {} });

  it('tells the instructor that no test is chosen and how to choose one, not "could not be verified", creating nothing', async () => {
    const before = await launchFootprint(h);
    const res = await new LtiBrowser(h).launch(platform, 'teacher-nt', noTest([`${M}#Instructor`]));
    expect(res.statusCode).toBe(422);
    expect(res.body).toContain('<h1>No test is chosen for this link</h1>');
    expect(res.body).toContain('assay_test_id=tst_…');
    expect(res.body).toContain('Use this test');
    expect(res.body).not.toContain('could not be verified');
    expect(await launchFootprint(h)).toEqual(before);
  });

  it('tells a learner the activity has no test yet and to ask the instructor, creating nothing', async () => {
    const before = await launchFootprint(h);
    const res = await new LtiBrowser(h).launch(platform, 'learner-nt', noTest([`${M}#Learner`]));
    expect(res.statusCode).toBe(422);
    expect(res.body).toContain('<h1>This activity has no test yet</h1>');
    expect(res.body).toContain('Tell your instructor');
    expect(await launchFootprint(h)).toEqual(before);
  });
});
