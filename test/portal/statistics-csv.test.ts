import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestInput } from '../../src/modules/catalog/schemas.js';
import { createHarness, type Harness } from '../helpers/harness.js';
import { portalGet, signedIn, type PortalUser } from '../helpers/portal.js';
import { publishedVersion, seedAttempts } from '../helpers/results.js';

/**
 * A Markdown test's Statistics page and its item analysis as CSV: the
 * question and option texts without their Markdown source (a short one
 * rendered, formulas as MathML; a long one as one plain line), the CSV's
 * rows, byte order mark, file name and formula guard, and who may download
 * it (every role with `read`; another institution's staff get a 404).
 */
const TEST: TestInput = {
  title: 'Algèbre : équations',
  description: '',
  durationMinutes: 10,
  proctoring: 'none',
  marking: 'auto',
  resultVisibility: 'immediate',
  passPercent: 50,
  contentFormat: 'markdown',
  questions: [
    {
      id: 'q1',
      type: 'single_choice',
      prompt: 'Solve $x^2 = 4$ for **positive** x.',
      points: 1,
      options: [
        { id: 'a', text: '$x = 2$' },
        { id: 'b', text: '=HYPERLINK("http://evil.example","click")' },
        { id: 'c', text: '*none*' },
      ],
      correctOptionId: 'a',
    },
    {
      id: 'q2',
      type: 'numeric',
      prompt: 'Read the table, then answer.\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\nWhat is $\\frac{a}{b}$ as a decimal?',
      points: 1,
      answer: 0.5,
    },
  ],
};
const flat = { sections: [{ sectionId: 'main', questionIds: ['q1', 'q2'] }], optionOrder: {}, itemOrder: {} };
const attempt = (who: string, q1: string, q2: number) => ({ externalUserId: who, delivery: flat, answers: { q1 }, marks: { q1: q1 === 'a' ? 1 : 0, q2 } });

let h: Harness;
let test: { testId: string; testVersionId: string };
const users = {} as Record<'admin' | 'author' | 'reviewer' | 'viewer' | 'operator' | 'otherAdmin', PortalUser>;

beforeAll(async () => {
  h = await createHarness();
  test = await publishedVersion(h, h.a, TEST);
  await seedAttempts(h, h.a, test, 2, [attempt('s1', 'a', 1), attempt('s2', 'a', 0), attempt('s3', 'b', 1), attempt('s4', 'b', 0)]);
  await seedAttempts(h, h.a, test, 2, [attempt('t1', 'a', 1)], { livemode: false });
  for (const role of ['admin', 'author', 'reviewer', 'viewer'] as const) users[role] = await signedIn(h, role, h.a.institutionId);
  users.operator = await signedIn(h, 'operator');
  users.otherAdmin = await signedIn(h, 'admin', h.b.institutionId);
});
afterAll(() => h.close());

const csvUrl = (q = '') => `/portal/tests/${test.testId}/statistics.csv${q}`;
const rowsOf = (body: string) => parse(body.replace(/^\uFEFF/, ''), { columns: true }) as Array<Record<string, string>>;

describe('question texts on the Statistics page', () => {
  it('renders a short Markdown text (formulas as MathML) and cuts a long one to plain words, never showing the source', async () => {
    const res = await portalGet(h, users.viewer, `/portal/tests/${test.testId}/statistics`);
    expect(res.statusCode).toBe(200);
    expect(res.body).toMatch(/<span class="stats-text">Solve <math[^]*?<\/math> for <strong>positive<\/strong> x\.<\/span>/);
    expect(res.body).toMatch(/<span class="stats-text"><math[^]*?<\/math><\/span>/); // option a
    expect(res.body).toContain('<span class="stats-text"><em>none</em></span>');
    expect(res.body).toContain('Read the table, then answer. a b 1 2 What is \\frac{a}{b} as a decimal?');
    for (const source of ['$x^2 = 4$', '**positive**', '$x = 2$', '|---|', '$\\frac']) expect(res.body, source).not.toContain(source);
    expect(res.body).toContain(`href="/portal/tests/${test.testId}/statistics.csv?version=1&amp;mode=live" download>Download CSV</a>`);
  });
});

describe('the item analysis as CSV', () => {
  it('has a row per question and per option with the page’s figures, plain texts, a BOM and the test’s title in its name', async () => {
    const api = (await h.admin('GET', `/api/admin/v1/tests/${test.testId}/statistics?institutionId=${h.a.institutionId}`)).json();
    const res = await portalGet(h, users.viewer, csvUrl());
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.headers['cache-control']).toContain('no-store');
    expect(res.body.startsWith('\uFEFFkind,number,questionId,optionId,section,type,text,correct,points,attempts,chosen,facility,discrimination,pointBiserial,flags\n')).toBe(true);
    const disposition = String(res.headers['content-disposition']);
    expect(disposition).toContain('attachment; filename="statistics-Algebre ');
    expect(disposition).toContain(`filename*=UTF-8''${encodeURIComponent('statistics-Algèbre équations-v1.csv')}`);
    const rows = rowsOf(res.body);
    expect(rows.map((r) => `${r.kind} ${r.number} ${r.optionId}`)).toEqual(['question 1 ', 'option 1 a', 'option 1 b', 'option 1 c', 'question 2 ']);
    const q1 = api.items[0];
    expect(rows[0]).toMatchObject({ questionId: 'q1', type: 'single_choice', text: 'Solve x^2 = 4 for positive x.', points: '1', attempts: '4' });
    expect(Number(rows[0]!.facility)).toBeCloseTo(q1.facility, 4);
    expect(rows[0]!.flags).toContain('few attempts: under 30');
    expect(rows[1]).toMatchObject({ text: 'x = 2', correct: 'yes', chosen: '2' });
    expect(Number(rows[1]!.pointBiserial)).toBeCloseTo(q1.options[0].pointBiserial, 4);
    expect(rows[3]).toMatchObject({ text: 'none', correct: 'no', chosen: '0', pointBiserial: '' });
    expect(rows[4]!.text).toBe('Read the table, then answer. a b 1 2 What is \\frac{a}{b} as a decimal?');
    // A text that a spreadsheet would run as a formula is written as text.
    expect(rows[2]!.text).toBe('\'=HYPERLINK("http://evil.example","click")');
  });

  it('follows the page’s version and data, and names test-mode data in the file name', async () => {
    const res = await portalGet(h, users.viewer, csvUrl('?mode=test&version=1'));
    expect(res.statusCode).toBe(200);
    expect(String(res.headers['content-disposition'])).toContain('-v1-test-mode.csv');
    expect(rowsOf(res.body)[0]).toMatchObject({ attempts: '1' });
    expect((await portalGet(h, users.viewer, csvUrl('?version=7'))).statusCode).toBe(404);
    expect((await portalGet(h, users.viewer, csvUrl('?mode=all'))).statusCode).toBe(400);
  });

  it('is for every role with read of the institution; another institution gets a 404, an operator names the institution', async () => {
    for (const role of ['admin', 'author', 'reviewer', 'viewer'] as const) expect((await portalGet(h, users[role], csvUrl())).statusCode, role).toBe(200);
    const other = await portalGet(h, users.otherAdmin, csvUrl());
    expect(other.statusCode).toBe(404);
    expect(other.body).not.toContain('Solve');
    expect((await portalGet(h, users.otherAdmin, csvUrl(`?institution=${h.a.institutionId}`))).statusCode).toBe(404);
    expect((await portalGet(h, users.operator, csvUrl())).statusCode).toBe(404);
    expect((await portalGet(h, users.operator, csvUrl(`?institution=${h.a.institutionId}`))).statusCode).toBe(200);
    expect((await portalGet(h, users.operator, csvUrl(`?institution=${h.b.institutionId}`))).statusCode).toBe(404);
    const anon = await portalGet(h, null, csvUrl());
    expect(anon.statusCode).toBe(303);
  });
});
