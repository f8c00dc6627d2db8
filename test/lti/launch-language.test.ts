import { describe, expect, it } from 'vitest';
import { manualClock, type Harness } from '../helpers/harness.js';
import { LTI, type FakePlatform } from '../helpers/lti-platform.js';
import { launchFootprint, LtiBrowser, resourceLinkClaims, useLtiRig } from '../helpers/lti.js';

const clock = manualClock();
let h: Harness;
let platform: FakePlatform;

useLtiRig(clock, (rig) => ({ h, platform } = rig));

const M = 'http://purl.imsglobal.org/vocab/lis/v2/membership';
const title = (body: string) => /<h1>([^<]*)<\/h1>/.exec(body)?.[1];

describe("the LTI pages a learner sees, in the learner's language", () => {
  it("refuses a launch in French when its launch presentation says fr, whatever the browser's language", async () => {
    const before = await launchFootprint(h);
    // Verified, then refused: the test is not published to the platform's institution.
    const claims = { ...resourceLinkClaims(h.a.testId, { linkId: 'fr-refused', locale: 'fr' }), [`${LTI}custom`]: { assay_test_id: h.b.testId } };
    const res = await new LtiBrowser(h).launch(platform, 'learner-fr', claims, { 'accept-language': 'de-DE,de;q=0.9' });
    expect(res.statusCode).toBe(401);
    expect(res.body).toContain('<html lang="fr" dir="ltr">');
    expect(title(res.body)).toBe('Ce lancement n’a pas pu être vérifié');
    expect(res.body).toContain('<title>Ce lancement n’a pas pu être vérifié – Assay</title>');
    expect(res.body).toContain('Aller au contenu principal');
    expect(res.body).not.toContain('could not be verified');
    expect(await launchFootprint(h)).toEqual(before);
  });

  it('reads the locale of a token refused before it was verified (another browser posted it): fr-CA, with its region', async () => {
    const b = new LtiBrowser(h);
    const posted = await b.authorize(platform, 'learner-fr-ca', resourceLinkClaims(h.a.testId, { linkId: 'fr-ca-refused', locale: 'fr-CA' }));
    const res = await new LtiBrowser(h).postForm('/lti/launch', { id_token: posted.id_token, state: posted.state });
    expect(res.statusCode).toBe(401);
    expect(res.body).toContain('<html lang="fr-CA" dir="ltr">');
    expect(title(res.body)).toBe('Ce lancement n’a pas pu être vérifié');
  });

  it("refuses a launch without a locale claim in the browser's language: Arabic, right to left", async () => {
    const res = await new LtiBrowser(h).postForm('/lti/launch', { state: 'no-token' }, { 'accept-language': 'ar-EG,ar;q=0.9,en;q=0.5' });
    expect(res.statusCode).toBe(400);
    expect(res.body).toContain('<html lang="ar-EG" dir="rtl">');
    expect(title(res.body)).toBe('تعذّر التحقق من فتح هذا النشاط');
    expect(res.body).toContain('الانتقال إلى المحتوى الرئيسي');
    // A token that is not a JWT names no language: the browser's is kept.
    const garbled = await new LtiBrowser(h).postForm('/lti/launch', { id_token: 'x.y.z', state: 's' }, { 'accept-language': 'ar' });
    expect(garbled.body).toContain('<html lang="ar" dir="rtl">');
  });

  it('ignores a malformed locale claim and falls back to the browser, then to English', async () => {
    const claims = { ...resourceLinkClaims(h.a.testId, { linkId: 'bad-locale-refused', locale: 'fr_FR' }), [`${LTI}custom`]: { assay_test_id: h.b.testId } };
    const ja = await new LtiBrowser(h).launch(platform, 'learner-bad', claims, { 'accept-language': 'ja' });
    expect(ja.body).toContain('<html lang="ja" dir="ltr">');
    expect(title(ja.body)).toBe('この起動を確認できませんでした');
    const en = await new LtiBrowser(h).launch(platform, 'learner-bad', claims);
    expect(en.body).toContain('<html lang="en-GB" dir="ltr">');
    expect(title(en.body)).toBe('This launch could not be verified');
  });

  it('offers the test in a new window in the launch language (Hebrew, right to left)', async () => {
    const res = await new LtiBrowser(h).launch(platform, 'learner-he', resourceLinkClaims(h.a.testId, { linkId: 'he-link', locale: 'he' }), { 'sec-fetch-dest': 'iframe' });
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('<html lang="he" dir="rtl">');
    expect(res.body).toMatch(/<a class="button primary" href="\/s\/[^"]+" target="_blank" rel="noopener">פתיחת המבחן בחלון חדש<span class="sr-only"> \(נפתח בחלון חדש\)<\/span><\/a>/);
  });

  it("tells an observer, and a learner whose link has no test, in the browser's language", async () => {
    const observer = await new LtiBrowser(h).launch(platform, 'observer-de', resourceLinkClaims(h.a.testId, { linkId: 'de-link', roles: [`${M}#Mentor`] }), { 'accept-language': 'de' });
    expect(observer.statusCode).toBe(200);
    expect(observer.body).toContain('<html lang="de" dir="ltr">');
    expect(observer.body).toContain('Sie begleiten „Biology 101“ als beobachtende Person');
    const noTest = { ...resourceLinkClaims(h.a.testId, { linkId: 'uk-hand-made', locale: 'uk' }), [`${LTI}custom`]: {} };
    const learner = await new LtiBrowser(h).launch(platform, 'learner-uk', noTest);
    expect(learner.statusCode).toBe(422);
    expect(learner.body).toContain('<html lang="uk" dir="ltr">');
    expect(title(learner.body)).toBe('У цієї активності ще немає тесту');
    expect(learner.body).toContain('«Week 3 quiz» відкриває Assay');
  });

  it("keeps the instructor's pages in English, like the staff portal, whatever the launch's locale", async () => {
    const res = await new LtiBrowser(h).launch(platform, 'teacher-fr', resourceLinkClaims(h.a.testId, { linkId: 'fr-staff', locale: 'fr', roles: [`${M}#Instructor`] }), { 'accept-language': 'fr' });
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('<html lang="en-GB" dir="ltr">');
    expect(res.body).toContain('<h2>Progress</h2>');
  });

  it("answers the page a finished test returns to in the browser's language", async () => {
    const res = await h.app.inject({ method: 'GET', url: '/lti/return', headers: { 'accept-language': 'zh-CN' } });
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('<html lang="zh-CN" dir="ltr">');
    expect(title(res.body)).toBe('您可以返回课程了');
  });
});
