import { describe, expect, it } from 'vitest';
import { manualClock, type Harness } from '../helpers/harness.js';
import { INSTRUCTOR, LTI, type FakePlatform } from '../helpers/lti-platform.js';
import { LtiBrowser, useLtiRig } from '../helpers/lti.js';

const clock = manualClock();
let h: Harness;
let platform: FakePlatform;

useLtiRig(clock, (rig) => ({ h, platform } = rig));

/** A deep-linking launch in `b`: the picker page, its token, and the name of the picker's cookie. */
async function openPicker(b: LtiBrowser, hint: string) {
  const picker = await b.launch(platform, hint, {
    [`${LTI}message_type`]: 'LtiDeepLinkingRequest',
    [`${LTI}roles`]: [INSTRUCTOR],
    'https://purl.imsglobal.org/spec/lti-dl/claim/deep_linking_settings': { deep_link_return_url: `${platform.baseUrl}/deep-link-return`, accept_types: ['ltiResourceLink'] },
  });
  expect(picker.statusCode).toBe(200);
  const token = /name="picker_token" value="([^"]+)"/.exec(picker.body)![1]!;
  const cookie = [...b.cookies.keys()].find((k) => k.startsWith('assay_lti_dl_'));
  expect(cookie).toBeTruthy();
  return { token, cookie: cookie! };
}

const signedAnswer = (body: string) => /name="JWT" value="([^"]+)"/.exec(body)?.[1];
const pending = async () => (await h.pool.query('SELECT count(*)::int AS n FROM lti_deep_link_requests')).rows[0].n as number;

describe('the deep-linking picker token', () => {
  it('signs one response: the same choice posted again is refused', async () => {
    const b = new LtiBrowser(h);
    const { token } = await openPicker(b, 'teacher-once');
    const first = await b.postForm('/lti/deep-link', { picker_token: token, testId: h.a.testId }, { 'sec-fetch-site': 'same-origin' });
    expect(first.statusCode).toBe(200);
    expect(signedAnswer(first.body)).toBeTruthy();
    const again = await b.postForm('/lti/deep-link', { picker_token: token, testId: h.a.testId }, { 'sec-fetch-site': 'same-origin' });
    expect(again.statusCode).toBe(401);
    expect(signedAnswer(again.body)).toBeUndefined();
    // Nor can the used token search any more.
    expect((await b.get(`/lti/deep-link?picker_token=${token}`)).statusCode).toBe(401);
  });

  it('works only in the browser that received the picker (its cookie): another browser with the token is refused', async () => {
    const b = new LtiBrowser(h);
    const { token, cookie } = await openPicker(b, 'teacher-bound');
    const before = await pending();
    const stranger = new LtiBrowser(h);
    expect((await stranger.get(`/lti/deep-link?picker_token=${token}`)).statusCode).toBe(401);
    const stolen = await stranger.postForm('/lti/deep-link', { picker_token: token, testId: h.a.testId });
    expect(stolen.statusCode).toBe(401);
    expect(signedAnswer(stolen.body)).toBeUndefined();
    // A forged cookie value is no better.
    stranger.cookies.set(cookie, 'forged-value');
    expect((await stranger.postForm('/lti/deep-link', { picker_token: token, testId: h.a.testId })).statusCode).toBe(401);
    expect(await pending()).toBe(before);
    // The instructor's own browser still can.
    expect((await b.get(`/lti/deep-link?picker_token=${token}&q=arith`)).statusCode).toBe(200);
    const mine = await b.postForm('/lti/deep-link', { picker_token: token, testId: h.a.testId });
    expect(mine.statusCode).toBe(200);
    expect(signedAnswer(mine.body)).toBeTruthy();
  });

  it('refuses a choice the browser marks as posted from another site, and leaves the picker usable', async () => {
    const b = new LtiBrowser(h);
    const { token } = await openPicker(b, 'teacher-csrf');
    for (const site of ['cross-site', 'same-site']) {
      const res = await b.postForm('/lti/deep-link', { picker_token: token, testId: h.a.testId }, { 'sec-fetch-site': site });
      expect(res.statusCode).toBe(403);
      expect(signedAnswer(res.body)).toBeUndefined();
    }
    // The picker's own form (same-origin, or a browser without Fetch Metadata) is accepted.
    const ok = await b.postForm('/lti/deep-link', { picker_token: token, testId: h.a.testId }, { 'sec-fetch-site': 'same-origin' });
    expect(ok.statusCode).toBe(200);
    expect(ok.headers['set-cookie']).toEqual(expect.stringMatching(/^assay_lti_dl_[0-9a-f]{16}=; .*Path=\/lti\//));
  });
});
