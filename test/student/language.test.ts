import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, manualClock, type Harness } from '../helpers/harness.js';
import { Student, assign } from '../helpers/student.js';
import { catalogue } from '../helpers/catalogues.js';

/**
 * The candidate's language on their pages (docs/languages.md): the partner's
 * `locale` chooses the catalogue and the region dates are written for, a
 * locale no catalogue serves falls back to the browser's language (or
 * English) and says so, and the intro page's Language menu keeps the
 * candidate's own choice on their assignment, for their assignment only.
 */
const clock = manualClock(new Date('2031-05-01T09:00:00Z'));
const DUE = new Date('2031-05-03T14:05:00Z');
let h: Harness;

beforeAll(async () => {
  h = await createHarness({ clock });
});
afterAll(() => h.close());

const en = catalogue('en');
const fr = catalogue('fr');
const de = catalogue('de');
const ja = catalogue('ja');

/** A student signed in through the assignment's start link, on its intro page. */
async function signedIn(overrides: Record<string, unknown>) {
  const a = await assign(h, h.a, overrides);
  const s = new Student(h);
  const opened = await s.open(a.startUrl);
  expect(opened.statusCode).toBe(303);
  return { id: a.assignmentId, s };
}

/** The intro page as a browser with these languages asks for it. */
const pageWith = (s: Student, id: string, acceptLanguage?: string) =>
  h.app.inject({ method: 'GET', url: `/a/${id}`, headers: { cookie: s.cookie!, ...(acceptLanguage ? { 'accept-language': acceptLanguage } : {}) } });
const candidateLocale = async (id: string) => (await h.pool.query('SELECT candidate_locale FROM assignments WHERE id = $1', [id])).rows[0].candidate_locale as string | null;

describe('the partner’s locale on the candidate’s pages', () => {
  it('fr-CA: the intro page is French, with its due date written for Canada', async () => {
    const { id, s } = await signedIn({ externalUserId: 'lang-fr-ca', locale: 'fr-CA', dueAt: DUE.toISOString() });
    const page = await s.page(id);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('<html lang="fr-CA" dir="ltr">');
    const canadian = new Intl.DateTimeFormat('fr-CA', {
      day: 'numeric', month: 'long', year: 'numeric', hour: 'numeric', minute: '2-digit', timeZoneName: 'short', timeZone: 'UTC',
    }).format(DUE);
    expect(canadian).toContain(' h ');
    expect(page.body).toContain(`<time datetime="${DUE.toISOString()}" data-local>${canadian}</time>`);
    expect(page.body).toContain(`<dt>${fr['intro.timeAllowed']}</dt>`);
    expect(page.body).toContain(`<dt>${fr['intro.beginBy']}</dt>`);
    expect(fr['intro.timeAllowed']).not.toBe(en['intro.timeAllowed']);
    expect(page.body).not.toContain(en['intro.timeAllowed']);
    // Asked for and served: no fallback note.
    expect(page.body).not.toContain('id="language-fallback"');
  });

  it('the partner’s locale wins over the browser’s languages', async () => {
    const { id, s } = await signedIn({ externalUserId: 'lang-fr-over-de', locale: 'fr-CA' });
    const page = await pageWith(s, id, 'de-DE,de;q=0.9');
    expect(page.body).toContain('<html lang="fr-CA" dir="ltr">');
    expect(page.body).toContain(fr['intro.timeAllowed']);
  });

  it('nl, which no catalogue serves: English without a browser language, and the note says so', async () => {
    const { id, s } = await signedIn({ externalUserId: 'lang-nl', locale: 'nl' });
    const page = await pageWith(s, id);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('<html lang="en-GB" dir="ltr">');
    expect(page.body).toContain(`<dt>${en['intro.timeAllowed']}</dt>`);
    expect(page.body).toMatch(/<p class="notice language-fallback" id="language-fallback">[^<]*Dutch[^<]*<\/p>/);
  });

  it('nl with a German browser: German, and the fallback note in German', async () => {
    const { id, s } = await signedIn({ externalUserId: 'lang-nl-de', locale: 'nl' });
    const page = await pageWith(s, id, 'nl-BE, de;q=0.8, en;q=0.5');
    expect(page.body).toContain('<html lang="de" dir="ltr">');
    expect(page.body).toContain(`<dt>${de['intro.timeAllowed']}</dt>`);
    expect(page.body).toMatch(/<p class="notice language-fallback" id="language-fallback">[^<]*Niederländisch[^<]*<\/p>/);
  });
});

describe('the intro page’s Language menu', () => {
  it('keeps the candidate’s choice: POST locale=ja answers 303 to the page, which is then Japanese', async () => {
    const { id, s } = await signedIn({ externalUserId: 'lang-menu', locale: 'fr' });
    const before = await s.page(id);
    expect(before.body).toContain('<select id="language-select" name="locale">');
    const res = await s.postForm(`/a/${id}/language`, { csrf: s.csrf!, locale: 'ja' });
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe(`/a/${id}`);
    expect(await candidateLocale(id)).toBe('ja');
    const after = await pageWith(s, id, 'de');
    expect(after.body).toContain('<html lang="ja" dir="ltr">');
    expect(after.body).toContain(`<dt>${ja['intro.timeAllowed']}</dt>`);
    expect(after.body).toContain('<option value="ja" lang="ja" selected>');
  });

  it('refuses a language not in the menu with 400, changing nothing', async () => {
    const { id, s } = await signedIn({ externalUserId: 'lang-menu-bad', locale: 'fr' });
    await s.page(id);
    for (const locale of ['nl', 'fr-CA', 'en-XA', '']) {
      const res = await s.postForm(`/a/${id}/language`, { csrf: s.csrf!, locale });
      expect(res.statusCode, locale).toBe(400);
    }
    expect(await candidateLocale(id)).toBeNull();
    expect((await s.page(id)).body).toContain('<html lang="fr" dir="ltr">');
  });

  it('refuses a post without the form’s token with 403, changing nothing', async () => {
    const { id, s } = await signedIn({ externalUserId: 'lang-menu-csrf' });
    await s.page(id);
    expect((await s.postForm(`/a/${id}/language`, { csrf: 'not-the-token', locale: 'ja' })).statusCode).toBe(403);
    expect(await candidateLocale(id)).toBeNull();
  });

  it('another candidate’s assignment: 404, and theirs keeps its language', async () => {
    const mine = await signedIn({ externalUserId: 'lang-mine' });
    const theirs = await signedIn({ externalUserId: 'lang-theirs', locale: 'de' });
    await mine.s.page(mine.id);
    const res = await mine.s.postForm(`/a/${theirs.id}/language`, { csrf: mine.s.csrf!, locale: 'ja' });
    expect(res.statusCode).toBe(404);
    expect(await candidateLocale(theirs.id)).toBeNull();
    expect(await candidateLocale(mine.id)).toBeNull();
    expect((await theirs.s.page(theirs.id)).body).toContain('<html lang="de" dir="ltr">');
  });
});
