import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestInput } from '../../src/modules/catalog/schemas.js';
import { createHarness, type Harness } from '../helpers/harness.js';
import { portalGet, signedIn, type PortalUser } from '../helpers/portal.js';
import { Student, assign, createPublishedTest } from '../helpers/student.js';

/**
 * The author's texts in the portal (docs/languages.md "The test's own
 * language"): an Arabic test's title, section, prompts and options on the
 * marking page and the assignment page carry `lang="ar" dir="rtl"` while the
 * page stays English and left to right; the candidate's own words run in
 * their own direction (`dir="auto"`); a test in English gets no marks.
 */
const ARABIC: TestInput = {
  title: 'اختبار الكتابة',
  description: '',
  durationMinutes: 10,
  proctoring: 'none',
  marking: 'hybrid',
  resultVisibility: 'after_review',
  language: 'ar',
  sections: [
    {
      id: 's1',
      title: 'الجزء الأول',
      questions: [
        { id: 'sc', type: 'single_choice', prompt: 'ما عاصمة فرنسا؟', points: 1, options: [{ id: 'a', text: 'باريس' }, { id: 'b', text: 'ليون' }], correctOptionId: 'a' },
        { id: 'es', type: 'essay', prompt: 'صف صباحك.', points: 5 },
      ],
    },
  ],
};
const ENGLISH: TestInput = {
  ...ARABIC,
  title: 'Writing check',
  language: 'en',
  sections: [{ id: 's1', title: 'Part one', questions: [{ id: 'es', type: 'essay', prompt: 'Describe your morning.', points: 5 }] }],
};

let h: Harness;
let reviewer: PortalUser;
beforeAll(async () => {
  h = await createHarness();
  reviewer = await signedIn(h, 'reviewer', h.a.institutionId);
});
afterAll(() => h?.close());

let lastTestId = '';
async function submitted(input: TestInput, externalUserId: string, answers: Array<{ questionId: string; value: string }>): Promise<string> {
  const testId = await createPublishedTest(h, h.a, input);
  lastTestId = testId;
  const a = await assign(h, h.a, { testId, externalUserId });
  const s = new Student(h);
  await s.start(a.startUrl);
  await s.page(a.assignmentId);
  await s.save(a.assignmentId, answers.map((x) => ({ ...x, version: 1 })));
  expect((await s.submit(a.assignmentId)).statusCode).toBe(303);
  return a.assignmentId;
}

const AR = 'lang="ar" dir="rtl"';

describe('the author’s texts in the portal', () => {
  it('marks an Arabic test’s texts with their language on the English marking and assignment pages, and the answer with dir="auto"', async () => {
    const id = await submitted(ARABIC, 'ar-1', [
      { questionId: 'sc', value: 'a' },
      { questionId: 'es', value: 'I drink tea.' },
    ]);
    for (const path of [`/portal/marking/${id}`, `/portal/assignments/${id}`]) {
      const res = await portalGet(h, reviewer, path);
      expect(res.statusCode, path).toBe(200);
      const page = res.body;
      // The page itself stays English, left to right.
      expect(page, path).toMatch(/<html lang="en">/);
      expect(page, path).toContain(`<bdi ${AR}>اختبار الكتابة</bdi>`);
      expect(page, path).toMatch(new RegExp(`<h[234] class="section-head" id="section-1"><bdi ${AR}>الجزء الأول</bdi></h[234]>`));
      expect(page, path).toContain(`<p class="prompt"><bdi ${AR}>ما عاصمة فرنسا؟</bdi></p>`);
      expect(page, path).toContain(`<p class="prompt"><bdi ${AR}>صف صباحك.</bdi></p>`);
      expect(page, path).toContain(`<bdi ${AR}>باريس</bdi>`);
      // The candidate's own words: their own direction, no language claimed.
      expect(page, path).toContain('<p class="answer" dir="auto">I drink tea.</p>');
      // Nothing of the portal's own is claimed to be Arabic: every Arabic mark holds Arabic text.
      for (const m of page.matchAll(/<bdi lang="ar" dir="rtl">([^<]*)<\/bdi>/g)) expect(m[1], path).toMatch(/[\u0600-\u06FF]/);
    }
    // The Statistics page names the test in its language too.
    const stats = await portalGet(h, reviewer, `/portal/tests/${lastTestId}/statistics`);
    expect(stats.statusCode).toBe(200);
    expect(stats.body).toMatch(new RegExp(`<h1>[^<]*<bdi ${AR}>اختبار الكتابة</bdi>`));
  });

  it('leaves an English test’s texts unmarked on the English pages', async () => {
    const id = await submitted(ENGLISH, 'en-1', [{ questionId: 'es', value: 'Tea.' }]);
    const page = (await portalGet(h, reviewer, `/portal/marking/${id}`)).body;
    expect(page).toContain('<p class="prompt">Describe your morning.</p>');
    expect(page).not.toMatch(/<bdi/);
    expect(page).toContain('<p class="answer" dir="auto">Tea.</p>');
  });
});
