import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { translator } from '../../src/platform/i18n/catalogue.js';
import { chooseLocale } from '../../src/platform/i18n/locales.js';
import { errorPage } from '../../src/modules/student/pages/message-pages.js';
import { createHarness, type Harness } from '../helpers/harness.js';
import { Student, assign, pathOf } from '../helpers/student.js';
import { catalogue } from '../helpers/catalogues.js';

// The pages outside the test itself (message pages, the completion page) in the candidate's language:
// the browser's Accept-Language where no assignment is known, the candidate's own choice where it is.

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(() => h.close());


describe('message pages in the browser’s language', () => {
  it('shows the invalid-link page in German, with <html lang="de">, when the browser asks for German', async () => {
    const de = catalogue('de');
    const res = await h.app.inject({ method: 'GET', url: '/s/not-a-real-token', headers: { 'accept-language': 'de-DE;q=0.9, de;q=0.8, en;q=0.5' } });
    expect(res.statusCode).toBe(404);
    expect(res.body).toMatch(/<html lang="de(-DE)?" dir="ltr">/);
    expect(res.body).toContain(`<h1>${de['message.invalidLink.title']}</h1>`);
    expect(res.body).toContain(`<p>${de['message.invalidLink.body']}</p>`);
    expect(res.body).not.toContain('This link is not valid');
  });

  it('stays English without Accept-Language', async () => {
    const res = await h.app.inject({ method: 'GET', url: '/s/not-a-real-token' });
    expect(res.body).toContain('<html lang="en-GB" dir="ltr">');
    expect(res.body).toContain('<h1>This link is not valid</h1>');
  });

  it('shows a page-route refusal (no session) in Hebrew, right to left', async () => {
    const he = catalogue('he');
    const res = await h.app.inject({ method: 'GET', url: '/a/asg_unknown', headers: { 'accept-language': 'he' } });
    expect(res.statusCode).toBe(404);
    expect(res.body).toContain('<html lang="he" dir="rtl">');
    expect(res.body).toContain(`<h1>${he['message.notAvailable.title']}</h1>`);
  });

  it('keeps the request id of the error page readable in Hebrew: isolated from the right-to-left sentence', () => {
    const he = catalogue('he');
    const page = errorPage('req-7f3a9', translator(chooseLocale({ acceptLanguage: 'he' })));
    expect(page).toContain('<html lang="he" dir="rtl">');
    expect(page).toContain(`<h1>${he['message.error.title']}</h1>`);
    const [before, after] = he['message.error.reference']!.split('{requestId}');
    expect(page).toContain(`<p>${before}<bdi>req-7f3a9</bdi>${after}</p>`);
    // English pages keep their markup as it was: no isolation is needed left to right.
    expect(errorPage('req-7f3a9')).toContain('<p>If it keeps happening, quote reference req-7f3a9 when you ask for help.</p>');
  });
});

describe('the completion page in the candidate’s language', () => {
  it('shows the result of a completed assignment in Arabic, right to left, with the score’s numbers isolated', async () => {
    const ar = catalogue('ar');
    const a = await assign(h, h.a, { externalUserId: 'arabic-1' });
    const s = new Student(h);
    await s.open(a.startUrl);
    await s.page(a.assignmentId);
    // The candidate's choice on the intro page's Language menu, kept on the assignment.
    expect((await s.postForm(`/a/${a.assignmentId}/language`, { csrf: s.csrf!, locale: 'ar' })).statusCode).toBe(303);
    const intro = await s.page(a.assignmentId);
    expect(intro.body).toContain('<html lang="ar" dir="rtl">');
    await s.begin(a.assignmentId);
    const q = (await h.admin('GET', `/api/admin/v1/assignments/${a.assignmentId}`)).json().items.map((i: { questionId: string }) => i.questionId);
    // One of the two questions right: 1 of 2 points, 50 %.
    expect((await s.save(a.assignmentId, [{ questionId: q[0], value: 'b', version: 1 }, { questionId: q[1], value: '7', version: 1 }])).statusCode).toBe(200);
    expect((await s.submit(a.assignmentId)).statusCode).toBe(303);

    const page = (await s.page(a.assignmentId)).body;
    const t = translator(chooseLocale({ candidate: 'ar' }));
    expect(page).toContain('<html lang="ar" dir="rtl">');
    expect(page).toContain(`<h1>${ar['completion.result']}</h1>`);
    expect(page).toContain(`<dt>${ar['completion.score']}</dt>`);
    expect(page).toContain(`<dt>${ar['completion.percentage']}</dt>`);
    // One of two points: Arabic's dual says "two points" in one word (نقطتين), with no number to isolate.
    expect(page).toContain(`<bdi>${t.number(1)}</bdi> من أصل نقطتين`);
    expect(page).toContain(`<dd>${t.number(0.5, { style: 'percent' })}</dd>`);
    expect(page).toContain(ar['message.returnTo']!.replace('{institution}', 'Alpha College'));
    expect(page).not.toMatch(/Your result|of 2 points|Return to/);
  });

  it('shows the start link’s expired page in the assignment’s language, before the browser’s', async () => {
    const fr = catalogue('fr');
    const a = await assign(h, h.a, { externalUserId: 'french-1' });
    await h.pool.query('UPDATE assignments SET locale = $2 WHERE id = $1', [a.assignmentId, 'fr-CA']);
    const stale = h.ctx.signer.issue(a.assignmentId, 1, new Date(h.clock.now().getTime() - 1000)).url;
    const res = await h.app.inject({ method: 'GET', url: pathOf(stale), headers: { 'accept-language': 'de' } });
    expect(res.statusCode).toBe(410);
    expect(res.body).toContain('<html lang="fr-CA" dir="ltr">');
    expect(res.body).toContain(`<h1>${fr['message.linkExpired.title']}</h1>`);
    expect(res.body).toContain(fr['message.linkExpired.openAgain']!.replace('{institution}', 'Alpha College'));
  });
});
