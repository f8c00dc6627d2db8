import { describe, expect, it } from 'vitest';
import { redactUrl } from '../../platform/log/redact-url.js';
import { scoreBody, scoresUrlOf } from './ags.js';
import { bindingCookie } from './browser-binding.js';

describe('the URLs of LTI requests as logged', () => {
  it("hide the login's hints, the registration token and invite, and the picker's token", () => {
    expect(redactUrl('/lti/login?iss=https%3A%2F%2Flms.example.edu&login_hint=u1&lti_message_hint=eyJhbGci&client_id=c1')).toBe(
      '/lti/login?iss=https%3A%2F%2Flms.example.edu&login_hint=[redacted]&lti_message_hint=[redacted]&client_id=c1',
    );
    expect(redactUrl('/lti/register?invite=abc&openid_configuration=https%3A%2F%2Flms%2Fc&registration_token=eyJ')).toBe(
      '/lti/register?invite=[redacted]&openid_configuration=https%3A%2F%2Flms%2Fc&registration_token=[redacted]',
    );
    expect(redactUrl('/lti/deep-link?picker_token=s3cret&q=cell')).toBe('/lti/deep-link?picker_token=[redacted]&q=cell');
  });
});

describe('score posts', () => {
  it('go to the line item path + /scores, its query kept after the path', () => {
    expect(scoresUrlOf('https://lms.example.edu/api/lti/courses/1/line_items/7?type=x&y=1')).toBe('https://lms.example.edu/api/lti/courses/1/line_items/7/scores?type=x&y=1');
    expect(scoresUrlOf('https://lms.example.edu/mod/lti/services.php/2/lineitems/9/lineitem/')).toBe('https://lms.example.edu/mod/lti/services.php/2/lineitems/9/lineitem/scores');
  });

  it('carry the score when final (FullyGraded), and no score while marking remains (PendingManual)', () => {
    const at = new Date('2026-11-26T10:00:00Z');
    const score = { points: 7, maxPoints: 9, percent: 77.78, passed: true, gradingStatus: 'final' as const, markedAt: at.toISOString() };
    expect(scoreBody('sub-1', score, at)).toEqual({
      userId: 'sub-1', scoreGiven: 7, scoreMaximum: 9, activityProgress: 'Completed', gradingProgress: 'FullyGraded', timestamp: '2026-11-26T10:00:00.000Z',
    });
    expect(scoreBody('sub-1', { ...score, gradingStatus: 'pending_review', passed: null }, at)).toEqual({
      userId: 'sub-1', activityProgress: 'Completed', gradingProgress: 'PendingManual', timestamp: '2026-11-26T10:00:00.000Z',
    });
    expect(scoreBody('sub-1', null, at).gradingProgress).toBe('PendingManual');
  });
});

describe('the cookies that bind a login or a picker to the browser', () => {
  it('are SameSite=None; Secure; Partitioned behind https, so they live in the course frame, and Lax over plain http', () => {
    expect(bindingCookie(true, 600)).toEqual({ path: '/lti/', httpOnly: true, sameSite: 'none', secure: true, partitioned: true, maxAge: 600 });
    expect(bindingCookie(false, 600)).toEqual({ path: '/lti/', httpOnly: true, sameSite: 'lax', maxAge: 600 });
  });
});
