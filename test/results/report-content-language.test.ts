import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestInput } from '../../src/modules/catalog/schemas.js';
import { createHarness, type Harness } from '../helpers/harness.js';
import { readAssignment } from '../helpers/student.js';
import { publishedVersion, seedAttempts } from '../helpers/results.js';

/**
 * The author's texts on the candidate's report (docs/languages.md "The test's
 * own language"): an Arabic test's title, section and passage titles on an
 * English report carry `lang="ar" dir="rtl"` while the report stays English
 * and left to right; a translated test's report shows the translation the
 * candidate read, marked with its language; a test that says no language is
 * isolated (`<bdi>`, no `lang`) on a report in another language than English.
 */
const ARABIC: TestInput = {
  title: 'اختبار القراءة',
  description: '',
  durationMinutes: 10,
  proctoring: 'none',
  marking: 'auto',
  resultVisibility: 'immediate',
  language: 'ar',
  passages: [{ id: 'p1', title: 'النص الأول', text: 'نص قصير.' }],
  sections: [
    {
      id: 'a',
      title: 'الجزء الأول',
      questions: [
        { id: 'q1', type: 'numeric', prompt: '١ + ١؟', points: 1, answer: 2, passageId: 'p1' },
        { id: 'q2', type: 'numeric', prompt: '٢ + ٢؟', points: 1, answer: 4 },
      ],
    },
  ],
};
const TRANSLATED: TestInput = {
  ...ARABIC,
  title: 'Reading check',
  language: 'en',
  passages: [{ id: 'p1', title: 'First text', text: 'A short text.' }],
  sections: [{ ...ARABIC.sections![0]!, title: 'Part one' }],
  translations: { ar: { title: 'اختبار القراءة', sections: { a: { title: 'الجزء الأول' } }, passages: { p1: { title: 'النص الأول' } } } },
};
const UNDECLARED: TestInput = { ...TRANSLATED, language: undefined, translations: undefined, title: 'Undeclared check' };

let h: Harness;
const ids = new Map<string, string>();
const delivery = (contentLanguage?: string) => ({ sections: [{ sectionId: 'a', questionIds: ['q1', 'q2'] }], optionOrder: {}, itemOrder: {}, ...(contentLanguage ? { contentLanguage } : {}) });

beforeAll(async () => {
  h = await createHarness();
  await h.admin('PATCH', `/api/admin/v1/institutions/${h.a.institutionId}/settings`, { reportShowsQuestions: true });
  const seed = async (input: TestInput, runs: Array<[string, string | undefined]>) => {
    const test = await publishedVersion(h, h.a, input);
    const made = await seedAttempts(h, h.a, test, 2, runs.map(([name, lang]) => ({ externalUserId: name, name: 'Grace Hopper', delivery: delivery(lang), answers: {}, marks: { q1: 1, q2: 0 } })));
    runs.forEach(([name], i) => ids.set(name, made[i]!));
  };
  await seed(ARABIC, [['arabic', undefined]]);
  await seed(TRANSLATED, [['read-ar', 'ar'], ['read-en', 'en'], ['read-ar-page-ar', 'ar']]);
  await seed(UNDECLARED, [['undeclared-en', undefined], ['undeclared-fr', undefined]]);
  await h.pool.query(`UPDATE assignments SET candidate_locale = 'ar' WHERE id = $1`, [ids.get('read-ar-page-ar')]);
  await h.pool.query(`UPDATE assignments SET candidate_locale = 'fr' WHERE id = $1`, [ids.get('undeclared-fr')]);
}, 60_000);
afterAll(() => h?.close());

async function reportOf(name: string, format?: 'pdf') {
  const { result } = await readAssignment(h, h.a, ids.get(name)!);
  const url = new URL(result.reportUrl);
  const res = await h.app.inject({ method: 'GET', url: `${url.pathname}${format ? '?format=pdf' : ''}`, headers: { 'accept-language': 'en-GB' } });
  expect(res.statusCode).toBe(200);
  return res;
}

describe('the author’s texts on the report', () => {
  it('marks an Arabic test’s title, section and passage with lang="ar" dir="rtl" on an English report that stays left to right', async () => {
    const page = (await reportOf('arabic')).body;
    expect(page).toMatch(/<html lang="en-GB" dir="ltr">/);
    expect(page).toMatch(/<h1>[^<]*<bdi lang="ar" dir="rtl">اختبار القراءة<\/bdi>/);
    // The per-question table's section and passage columns.
    expect(page).toContain('<td class="num"><bdi lang="ar" dir="rtl">الجزء الأول</bdi></td><td class="num"><bdi lang="ar" dir="rtl">النص الأول</bdi></td>');
    // The report's own words and values are not claimed to be Arabic: the title twice (heading, facts), two sections, one passage.
    expect(page.match(/lang="ar"/g)).toHaveLength(5);
  });

  it('shows the translation the candidate read, marked with its language, and the source unmarked for one who read it', async () => {
    const ar = (await reportOf('read-ar')).body;
    expect(ar).toMatch(/<h1>[^<]*<bdi lang="ar" dir="rtl">اختبار القراءة<\/bdi>/);
    expect(ar).toContain('<bdi lang="ar" dir="rtl">الجزء الأول</bdi>');
    expect(ar).toContain('<bdi lang="ar" dir="rtl">النص الأول</bdi>');
    expect(ar).not.toContain('Reading check');

    const en = (await reportOf('read-en')).body;
    expect(en).toContain('Reading check');
    expect(en).toContain('<td class="num">Part one</td><td class="num">First text</td>');
    expect(en).not.toMatch(/<bdi lang=/);
  });

  it('needs no mark when the report is in the language the candidate read', async () => {
    const page = (await reportOf('read-ar-page-ar')).body;
    expect(page).toMatch(/<html lang="ar" dir="rtl">/);
    expect(page).toContain('اختبار القراءة');
    expect(page).not.toMatch(/<bdi lang=/);
  });

  it('isolates a test that says no language on a French report, claiming no language, and leaves it alone on an English one', async () => {
    const fr = (await reportOf('undeclared-fr')).body;
    expect(fr).toMatch(/<html lang="fr" dir="ltr">/);
    expect(fr).toMatch(/<h1>[^<]*<bdi>Undeclared check<\/bdi>/);
    expect(fr).toContain('<td class="num"><bdi>Part one</bdi></td><td class="num"><bdi>First text</bdi></td>');
    expect(fr).not.toMatch(/<bdi lang=/);
    const en = (await reportOf('undeclared-en')).body;
    expect(en).not.toMatch(/<bdi/);
  });

  it('keeps the PDF drawable with the marks (the isolates are steering marks, never drawn)', async () => {
    const res = await reportOf('arabic', 'pdf');
    expect(res.headers['content-type']).toBe('application/pdf');
    expect(res.rawPayload.subarray(0, 5).toString()).toBe('%PDF-');
  });
});
