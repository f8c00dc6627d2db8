import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../helpers/harness.js';
import { portalGet, signedIn, type PortalUser } from '../helpers/portal.js';
import { Student, assign, createPublishedTest } from '../helpers/student.js';
import { TRIANGLE_ALT, markdownTest, storeBrokenPrompt, uploadPng } from '../helpers/markdown-content.js';

/**
 * A Markdown test on every page that shows test content: the student's test
 * page, the portal's marking item and assignment pages, and the operator's
 * preview. The essay's prompt was stored (straight in the database) with a
 * formula Temml cannot read and a javascript: link, as an older version
 * might hold them: no page may break on it.
 */
let h: Harness;
let assetId: string;
let testId: string;
let reviewer: PortalUser;
let operator: PortalUser;
let assignmentId: string;
let studentPage: string;
let student: Student;

beforeAll(async () => {
  h = await createHarness();
  assetId = await uploadPng(h);
  testId = await createPublishedTest(h, h.a, markdownTest(assetId));
  await storeBrokenPrompt(h, testId, 'es');
  reviewer = await signedIn(h, 'reviewer', h.a.institutionId, 'Ray Reviewer');
  operator = await signedIn(h, 'operator');
  const a = await assign(h, h.a, { testId, externalUserId: 'md-1' });
  assignmentId = a.assignmentId;
  student = new Student(h);
  await student.start(a.startUrl);
  const res = await student.page(assignmentId);
  expect(res.statusCode).toBe(200);
  expect(String(res.headers['content-security-policy'])).toContain("img-src 'self'");
  studentPage = res.body;
});
afterAll(() => h.close());

describe('a Markdown test on the student page', () => {
  it('shows formulas as MathML (inline and display), the image with its alt text from the student path, the table and the code', () => {
    expect(studentPage).toMatch(/<math[^>]*><semantics>/);
    expect(studentPage).toMatch(/<math display="block"/);
    expect(studentPage).toContain(`<img src="/a/content-assets/${assetId}" alt="${TRIANGLE_ALT}">`);
    expect(studentPage).toMatch(/<table>\s*<thead>\s*<tr>\s*<th>leg<\/th>/);
    expect(studentPage).toContain('<code>Math.hypot(3, 4)</code>');
    // The prompt is block content after the legend, and names the group with it.
    expect(studentPage).toMatch(/<fieldset class="question" id="question-1"[^>]* aria-labelledby="question-1-legend question-1-prompt">\n<legend id="question-1-legend">/);
    expect(studentPage).toMatch(/<div class="prompt content" id="question-1-prompt"><p>The triangle below has legs <math/);
    expect(studentPage).toContain('<div class="section-instructions content"><p>Give <strong>exact</strong> values.</p>');
  });

  it('shows raw HTML as text and a javascript: link as its words only', () => {
    expect(studentPage).toContain('&lt;b&gt;not bold&lt;/b&gt;');
    expect(studentPage).not.toContain('<b>not bold</b>');
    expect(studentPage).not.toMatch(/javascript:/i);
    expect(studentPage).toContain('Read more');
  });

  it('shows a formula Temml cannot read as its source, never failing the page', () => {
    expect(studentPage).toContain('<code class="math-error" title="This formula could not be shown">$\\frac{1$</code>');
  });

  it('renders option labels and matching stems inline; select options and the move buttons get plain text', () => {
    expect(studentPage).toMatch(/<label for="q1-o1"><math/);
    // A label holding only a formula names its control for axe and every reader only through plain words.
    expect(studentPage).toContain('<input type="radio" name="q1" id="q1-o2" value="seven" aria-label="\\sqrt{7}">');
    expect(studentPage).toContain('<select id="q2-m1" data-stem-id="sq" aria-label="x^2">');
    expect(studentPage).toMatch(/<label for="q2-m1"><math/);
    expect(studentPage).toContain('<label for="q2-m2"><strong>cube</strong></label>');
    expect(studentPage).toContain('<option value="two">power 2</option>');
    expect(studentPage).toContain('aria-label="Move up: \\frac{1}{2}"');
    expect(studentPage).toMatch(/<li class="order-item" data-item-id="half" data-text="\\frac\{1\}\{2\}"><span class="order-text"><math/);
  });

  it('renders the fill-in-the-blank text, then puts the fields where the placeholders were (emphasis around a blank kept)', () => {
    expect(studentPage).toMatch(/<div class="blank-text content"><p>The hypotenuse is <em><input type="text" class="blank" id="q4-b1" data-blank-id="len" aria-label="Blank 1"/);
    expect(studentPage).toMatch(/<select class="blank" id="q4-b2" data-blank-id="area" aria-label="Blank 2"><option value="">Choose…<\/option><option value="six">6<\/option><option value="twelve">12<\/option><\/select>/);
    expect(studentPage).not.toContain('{{');
  });

  it('the student loads the image the page names; the page renders the same on a second request', async () => {
    const img = await student.get(`/a/content-assets/${assetId}`);
    expect(img.statusCode).toBe(200);
    expect(img.headers['content-type']).toBe('image/png');
    const again = await student.page(assignmentId);
    const questions = (page: string) => page.slice(page.indexOf('<div id="answers"'), page.indexOf('<dialog'));
    expect(questions(again.body)).toBe(questions(studentPage));
    expect(questions(studentPage)).toContain('<math');
  });
});

describe('a Markdown test on the staff pages', () => {
  let submitted = false;
  async function submit() {
    if (submitted) return;
    await student.save(assignmentId, [
      { questionId: 'tri', value: 'five', version: 1 },
      { questionId: 'match', value: { sq: 'two', cu: 'two' }, version: 1 },
      { questionId: 'blanks', value: { len: '5', area: 'twelve' }, version: 1 },
      { questionId: 'es', value: 'The square on the long side equals the other two.', version: 1 },
    ]);
    expect((await student.submit(assignmentId)).statusCode).toBe(303);
    submitted = true;
  }

  it('the marking item page renders prompts, rubric and option texts, with images from the staff path', async () => {
    await submit();
    const res = await portalGet(h, reviewer, `/portal/marking/${assignmentId}`);
    expect(res.statusCode).toBe(200);
    const body = res.body;
    expect(body).toMatch(/<div class="prompt content"><p>The triangle below has legs <math/);
    expect(body).toContain(`<img src="/portal/content-assets/${assetId}" alt="${TRIANGLE_ALT}">`);
    expect(body).not.toContain('/a/content-assets/');
    expect(body).toContain('<div class="rubric content"><p>Mentions the <strong>right angle</strong>.</p>');
    expect(body).toMatch(/<li class="chosen"><math[\s\S]*?<\/math> <span class="badge">Chosen<\/span>/);
    // Matching pairs and the blanks, rendered; the choice blank's option as text.
    expect(body).toMatch(/<li><math[\s\S]*?<\/math> <span aria-hidden="true">→<\/span>/);
    expect(body).toMatch(/<div class="answer answer-blanks content"><p>The hypotenuse is <em><span class="blank"><mark>5<\/mark>/);
    expect(body).toContain('<mark>12</mark> <span class="hint">(Blank 2, wrong; correct: 6)</span>');
    expect(body).toContain('<code class="math-error" title="This formula could not be shown">$\\frac{1$</code>');
    expect(body).toContain('&lt;b&gt;not bold&lt;/b&gt;');
    expect(body).not.toMatch(/javascript:/i);
    // The points field names its item by the prompt in plain text.
    expect(body).toContain('<span class="sr-only"> for “Explain why \\frac{1 is not a formula. Read more”</span>');
    // The student's own answer is shown as typed.
    expect(body).toContain('The square on the long side equals the other two.');
    const img = await portalGet(h, reviewer, `/portal/content-assets/${assetId}`);
    expect(img.statusCode).toBe(200);
  });

  it('the assignment page renders the prompts the same way', async () => {
    await submit();
    const res = await portalGet(h, reviewer, `/portal/assignments/${assignmentId}`);
    expect(res.statusCode).toBe(200);
    expect(res.body).toMatch(/<div class="prompt content"><p>The triangle below has legs <math/);
    expect(res.body).toContain(`<img src="/portal/content-assets/${assetId}" alt="${TRIANGLE_ALT}">`);
    expect(res.body).toContain('<code class="math-error" title="This formula could not be shown">$\\frac{1$</code>');
  });

  it("the operator's preview uses the student page's renderer, with images from the staff path", async () => {
    const res = await portalGet(h, operator, `/portal/tests/${testId}/preview`);
    expect(res.statusCode).toBe(200);
    expect(String(res.headers['content-security-policy'])).toContain("img-src 'self'");
    expect(res.body).toMatch(/<div class="prompt content" id="question-1-prompt"><p>The triangle below has legs <math/);
    expect(res.body).toContain(`<img src="/portal/content-assets/${assetId}" alt="${TRIANGLE_ALT}">`);
    expect(res.body).toContain('<option value="two">power 2</option>');
  });
});
