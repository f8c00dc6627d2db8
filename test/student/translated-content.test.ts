import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestInput } from '../../src/modules/catalog/schemas.js';
import { rollUpAttempts } from '../../src/modules/results/statistics-repo.js';
import { createHarness, type Harness } from '../helpers/harness.js';
import { assign, createPublishedTest, readAssignment, Student } from '../helpers/student.js';

/**
 * A translated test as candidates read it (docs/test-format.md "Languages"):
 * the content language chosen when the attempt begins and kept with it, the
 * content marked with its language when the page speaks another, and the
 * marks and item statistics per question whatever language was read.
 */
const A = '/api/admin/v1';
let h: Harness;

beforeAll(async () => {
  h = await createHarness();
});
afterAll(() => h.close());

const TEST: TestInput = {
  title: 'Capitals',
  description: 'Two questions',
  durationMinutes: 10,
  proctoring: 'none',
  marking: 'auto',
  resultVisibility: 'immediate',
  language: 'en',
  questions: [
    { id: 'q1', type: 'single_choice', prompt: 'Capital of France?', points: 1, options: [{ id: 'a', text: 'Paris' }, { id: 'b', text: 'Lyon' }], correctOptionId: 'a' },
    { id: 'q2', type: 'short_text', prompt: 'Opposite of hot?', points: 1, acceptedAnswers: ['cold', 'froid'] },
  ],
  translations: {
    fr: { title: 'Capitales', questions: { q1: { prompt: 'Capitale de la France ?', 'options.b.text': 'Lyon (ville)' }, q2: { prompt: 'Le contraire de chaud ?' } } },
  },
};

describe('a translated test delivered', () => {
  it('shows French to the candidate whose assignment asks for it, keeps it once begun, and marks and counts both candidates alike', async () => {
    const testId = await createPublishedTest(h, h.a, TEST);
    const fr = await assign(h, h.a, { externalUserId: 'cand-fr', testId });
    const en = await assign(h, h.a, { externalUserId: 'cand-en', testId });
    // The partner's `locale` for the assignment (the column POST /assignments fills).
    await h.pool.query(`UPDATE assignments SET locale = 'fr' WHERE id = $1`, [fr.assignmentId]);

    const frStudent = new Student(h);
    const opened = await frStudent.open(fr.startUrl);
    const intro = (await frStudent.page(fr.assignmentId)).body;
    expect(intro).toContain('Capitales');
    await frStudent.begin(fr.assignmentId);
    const frPage = (await frStudent.page(fr.assignmentId)).body;
    expect(opened.statusCode).toBe(303);
    expect(frPage).toContain('Capitale de la France ?');
    expect(frPage).toContain('Lyon (ville)');
    // Paris has no French text of its own: the source's is shown.
    expect(frPage).toContain('>Paris</label>');
    // The page speaks French too: no mark is needed.
    expect(frPage).not.toMatch(/<fieldset[^>]* lang=/);
    const stored = await h.pool.query(`SELECT delivery->>'contentLanguage' AS lang FROM attempts WHERE assignment_id = $1`, [fr.assignmentId]);
    expect(stored.rows[0].lang).toBe('fr');

    // The candidate's page language changes after the attempt began: the questions stay French, marked as such.
    await h.pool.query(`UPDATE assignments SET candidate_locale = 'en' WHERE id = $1`, [fr.assignmentId]);
    const reloaded = (await frStudent.page(fr.assignmentId)).body;
    expect(reloaded).toContain('Capitale de la France ?');
    expect(reloaded).toMatch(/<fieldset class="question" id="question-1"[^>]* lang="fr" dir="ltr">/);

    const enStudent = new Student(h);
    await enStudent.start(en.startUrl);
    const enPage = (await enStudent.page(en.assignmentId)).body;
    expect(enPage).toContain('Capital of France?');
    expect(enPage).not.toContain('Capitale');
    expect(enPage).not.toMatch(/<fieldset[^>]* lang=/);

    // The same answers, read in two languages: the same marks.
    const answers = [
      { questionId: 'q1', value: 'a', version: 1 },
      { questionId: 'q2', value: 'froid', version: 1 },
    ];
    expect((await frStudent.save(fr.assignmentId, answers)).statusCode).toBe(200);
    expect((await enStudent.save(en.assignmentId, answers)).statusCode).toBe(200);
    expect((await frStudent.submit(fr.assignmentId)).statusCode).toBe(303);
    expect((await enStudent.submit(en.assignmentId)).statusCode).toBe(303);
    // The finished attempt's page keeps the language it was read in, whatever the candidate's browser says now.
    const done = await h.app.inject({ method: 'GET', url: `/a/${fr.assignmentId}`, headers: { cookie: frStudent.cookie!, 'accept-language': 'en' } });
    expect(done.body).toContain('Capitales');
    const frScore = (await readAssignment(h, h.a, fr.assignmentId)).result.score;
    const enScore = (await readAssignment(h, h.a, en.assignmentId)).result.score;
    expect(frScore).toMatchObject({ points: 2, maxPoints: 2 });
    expect({ ...enScore, markedAt: null }).toEqual({ ...frScore, markedAt: null });

    // Counted together, per question id.
    expect(await rollUpAttempts(h.pool, [fr.assignmentId, en.assignmentId])).toBe(2);
    const stats = (await h.admin('GET', `${A}/tests/${testId}/statistics?institutionId=${h.a.institutionId}`)).json();
    const q1 = stats.items.find((i: { questionId: string }) => i.questionId === 'q1');
    expect(q1).toMatchObject({ attempts: 2 });
    expect(q1.options.map((o: { optionId: string; chosen: number }) => [o.optionId, o.chosen])).toEqual([
      ['a', 2],
      ['b', 0],
    ]);
  });

  it('follows the browser before the attempt begins, and the test’s language for the page when nothing else is asked', async () => {
    const testId = await createPublishedTest(h, h.a, { ...TEST, language: 'fr', translations: { en: { title: 'Capitals (English)' } } });
    const a = await assign(h, h.a, { externalUserId: 'cand-browser', testId });
    const s = new Student(h);
    await s.open(a.startUrl);
    const plain = (await s.page(a.assignmentId)).body;
    // Nothing asked: the page speaks the test's language, French.
    expect(plain).toMatch(/<html lang="fr"/);
    expect(plain).toContain('Capitals<');
    const english = await h.app.inject({ method: 'GET', url: `/a/${a.assignmentId}`, headers: { cookie: s.cookie!, 'accept-language': 'en-GB,en;q=0.8' } });
    expect(english.body).toContain('Capitals (English)');
  });
});
