import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { TestInput } from '../../src/modules/catalog/schemas.js';
import { createHarness, type Harness, type Tenant } from '../helpers/harness.js';
import { assign, createPublishedTest, readAssignment } from '../helpers/student.js';
import { SHOTS, VIEWPORTS, freePort, hasBrowser, launchBrowser, seriousAxeViolations, closeContext } from './browser-env.js';

// Sections, a drawn pool, shuffles and the four added question types in a real browser, answered with the
// keyboard alone; the markup itself is checked in src/modules/student/pages/question-types.test.ts.

const EVERY_TYPE: TestInput = {
  title: 'Science and Language Check',
  description: 'Four parts; the last one is marked by a teacher.',
  durationMinutes: 60,
  proctoring: 'none',
  marking: 'hybrid',
  resultVisibility: 'after_review',
  passPercent: 50,
  sections: [
    {
      id: 'warmup',
      title: 'Part 1: Warm-up',
      instructions: 'Two quick questions, drawn for you from a pool.',
      shuffleQuestions: true,
      draw: 2,
      questions: [
        { id: 'p1', type: 'single_choice', prompt: 'What is 2 + 2?', points: 1, options: [{ id: 'three', text: 'Three' }, { id: 'four', text: 'Four' }, { id: 'five', text: 'Five' }], correctOptionId: 'four', shuffleOptions: true },
        { id: 'p2', type: 'single_choice', prompt: 'Which planet is the largest?', points: 1, options: [{ id: 'mars', text: 'Mars' }, { id: 'jupiter', text: 'Jupiter' }, { id: 'venus', text: 'Venus' }], correctOptionId: 'jupiter', shuffleOptions: true },
        { id: 'p3', type: 'single_choice', prompt: 'Which of these is a mammal?', points: 1, options: [{ id: 'shark', text: 'Shark' }, { id: 'whale', text: 'Whale' }, { id: 'trout', text: 'Trout' }], correctOptionId: 'whale', shuffleOptions: true },
      ],
    },
    {
      id: 'short',
      title: 'Part 2: Short answers',
      shuffleQuestions: true,
      questions: [
        {
          id: 'mc',
          type: 'multiple_choice',
          prompt: 'Which are prime numbers?',
          points: 2,
          options: [{ id: 'two', text: 'Two' }, { id: 'nine', text: 'Nine' }, { id: 'five', text: 'Five' }, { id: 'none', text: 'None of these', fixed: true }],
          correctOptionIds: ['two', 'five'],
          partialCredit: true,
          shuffleOptions: true,
        },
        { id: 'st', type: 'short_text', prompt: 'What is the opposite of "cold"?', points: 1, acceptedAnswers: ['hot'] },
        { id: 'nu', type: 'numeric', prompt: 'What is 10 / 4?', points: 1, answer: 2.5 },
      ],
    },
    {
      id: 'structure',
      title: 'Part 3: Matching, ordering and gaps',
      instructions: 'Use the lists and the Move up and Move down buttons.\nNothing here needs a mouse.',
      questions: [
        {
          id: 'ma',
          type: 'matching',
          prompt: 'Match each country with its capital.',
          points: 3,
          stems: [{ id: 'fr', text: 'France' }, { id: 'it', text: 'Italy' }, { id: 'no', text: 'Norway' }],
          choices: [{ id: 'paris', text: 'Paris' }, { id: 'rome', text: 'Rome' }, { id: 'oslo', text: 'Oslo' }, { id: 'bern', text: 'Bern' }],
          correct: { fr: 'paris', it: 'rome', no: 'oslo' },
        },
        {
          id: 'or',
          type: 'ordering',
          prompt: 'Put the planets in order of distance from the Sun, nearest first.',
          points: 2,
          items: [{ id: 'mercury', text: 'Mercury' }, { id: 'venus', text: 'Venus' }, { id: 'earth', text: 'Earth' }, { id: 'mars', text: 'Mars' }],
        },
        {
          id: 'fb',
          type: 'fill_blanks',
          prompt: 'Complete the sentences.',
          points: 2,
          text: 'At sea level, water boils at {{temp}} °C.\nIce is {{state}} water.',
          blanks: [
            { id: 'temp', kind: 'text', acceptedAnswers: ['100'] },
            { id: 'state', kind: 'choice', options: [{ id: 'gas', text: 'gaseous' }, { id: 'solid', text: 'solid' }, { id: 'liquid', text: 'liquid' }], correctOptionId: 'solid' },
          ],
        },
      ],
    },
    {
      id: 'own',
      title: 'Part 4: Your own work',
      questions: [
        { id: 'es', type: 'essay', prompt: 'Describe an experiment you have done.', points: 5, maxWords: 200 },
        { id: 'fu', type: 'file_upload', prompt: 'Upload your lab report or a photo of your diagram.', points: 5, accept: ['application/pdf', 'image/png'], maxBytes: 1024 * 1024 },
      ],
    },
  ],
};

const QUICK: TestInput = {
  title: 'Quick Sectioned Quiz',
  description: 'Marked at once.',
  durationMinutes: 20,
  proctoring: 'none',
  marking: 'auto',
  resultVisibility: 'immediate',
  passPercent: 50,
  sections: [
    {
      title: 'Numbers',
      questions: [
        { id: 'sum', type: 'single_choice', prompt: 'What is 3 + 4?', points: 1, options: [{ id: 'six', text: 'Six' }, { id: 'seven', text: 'Seven' }], correctOptionId: 'seven' },
        { id: 'half', type: 'numeric', prompt: 'What is half of 9?', points: 1, answer: 4.5 },
      ],
    },
    {
      title: 'Words',
      questions: [
        {
          id: 'pairs',
          type: 'matching',
          prompt: 'Match the opposites.',
          points: 2,
          stems: [{ id: 'big', text: 'big' }, { id: 'up', text: 'up' }],
          choices: [{ id: 'small', text: 'small' }, { id: 'down', text: 'down' }],
          correct: { big: 'small', up: 'down' },
        },
        { id: 'steps', type: 'ordering', prompt: 'Order the steps.', points: 1, items: [{ id: 'a', text: 'Open the door' }, { id: 'b', text: 'Walk through' }, { id: 'c', text: 'Close the door' }] },
      ],
    },
  ],
};

const CORRECT_POOL: Record<string, string> = { p1: 'four', p2: 'jupiter', p3: 'whale' };
const PLANETS = ['mercury', 'venus', 'earth', 'mars'];
// A 1×1 PNG and a minimal PDF: real magic bytes, so the server's content check accepts them.
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');
const PDF = Buffer.from('%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n');

describe.skipIf(!hasBrowser)('sections and the added question types in a real browser', () => {
  let h: Harness;
  let browser: Browser;
  let tenant: Tenant;
  let everyTypeId: string;
  let quickId: string;

  beforeAll(async () => {
    const port = await freePort();
    h = await createHarness({ config: { publicBaseUrl: `http://127.0.0.1:${port}`, allowInsecureUrls: true } });
    await h.app.listen({ port, host: '127.0.0.1' });
    tenant = await h.createTenant('Northfield University', ['localhost']);
    everyTypeId = await createPublishedTest(h, tenant, EVERY_TYPE);
    quickId = await createPublishedTest(h, tenant, QUICK);
    browser = await launchBrowser();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await h?.close();
  });

  async function newPage(viewport: { width: number; height: number } = VIEWPORTS.desktop): Promise<{ context: BrowserContext; page: Page; problems: string[] }> {
    const context = await browser.newContext({ viewport });
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error' && !/Failed to load resource/.test(m.text())) problems.push(m.text());
    });
    page.on('pageerror', (e) => problems.push(e.message));
    return { context, page, problems };
  }

  /** Presses Tab (or Shift+Tab, when the target is before the focus) until an element matching `selector` has the focus. */
  async function tabTo(page: Page, selector: string): Promise<void> {
    for (let i = 0; i < 120; i++) {
      const where = await page.evaluate((sel) => {
        const active = document.activeElement;
        if (active && active.matches(sel)) return 'here';
        const target = document.querySelector(sel);
        if (!target) return 'missing';
        return !active || active === document.body || active.compareDocumentPosition(target) & Node.DOCUMENT_POSITION_FOLLOWING ? 'after' : 'before';
      }, selector);
      if (where === 'here') return;
      if (where === 'missing') throw new Error(`nothing matches ${selector}`);
      await page.keyboard.press(where === 'after' ? 'Tab' : 'Shift+Tab');
    }
    throw new Error(`the keyboard never reached ${selector}`);
  }

  const q = (id: string) => `fieldset[data-question-id="${id}"]`;
  const focusedValue = (page: Page) => page.evaluate(() => (document.activeElement as HTMLInputElement).value);

  /** A radio by keyboard: Tab into the group, arrow keys to the option (arrows check it), Space for the first. */
  async function chooseRadio(page: Page, questionId: string, optionId: string): Promise<void> {
    await tabTo(page, `${q(questionId)} input[type=radio]`);
    for (let i = 0; i < 10 && (await focusedValue(page)) !== optionId; i++) await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Space');
  }

  /** A select by keyboard: focus it and step with the arrow keys to the option. */
  async function chooseInSelect(page: Page, selector: string, value: string): Promise<void> {
    await tabTo(page, selector);
    const { from, to } = await page.evaluate(
      ([sel, v]) => {
        const s = document.querySelector(sel!) as HTMLSelectElement;
        return { from: s.selectedIndex, to: [...s.options].findIndex((o) => o.value === v) };
      },
      [selector, value],
    );
    for (let i = 0; i < Math.abs(to - from); i++) await page.keyboard.press(to > from ? 'ArrowDown' : 'ArrowUp');
    expect(await focusedValue(page)).toBe(value);
  }

  async function typeInto(page: Page, selector: string, text: string): Promise<void> {
    await tabTo(page, selector);
    await page.keyboard.type(text);
  }

  const shownOrder = (page: Page, questionId: string) => page.locator(`${q(questionId)} li`).evaluateAll((lis) => lis.map((li) => (li as HTMLElement).dataset.itemId));

  /** Puts the ordering question's items into `target` order with the Move up buttons, pressed with Enter. */
  async function orderByKeyboard(page: Page, questionId: string, target: string[]): Promise<void> {
    for (let pos = 0; pos < target.length; pos++) {
      const from = (await shownOrder(page, questionId)).indexOf(target[pos]!);
      if (from === pos) continue;
      await tabTo(page, `${q(questionId)} li[data-item-id="${target[pos]}"] [data-move=up]`);
      for (let k = from; k > pos; k--) await page.keyboard.press('Enter');
      // The focus stays on the moved item's button, and the move is announced.
      expect(await page.evaluate(() => (document.activeElement as HTMLElement).getAttribute('aria-label'))).toMatch(/^Move up: /);
      const text = await page.locator(`${q(questionId)} li[data-item-id="${target[pos]}"] .order-text`).textContent();
      expect(await page.locator(`${q(questionId)} .order-live`).textContent()).toBe(`${text} moved to position ${pos + 1} of ${target.length}`);
    }
    expect(await shownOrder(page, questionId)).toEqual(target);
  }

  /** The file input is focused by Tab; setInputFiles on it stands in for the dialog that Enter opens. */
  async function uploadByKeyboard(page: Page, questionId: string, file: { name: string; mimeType: string; buffer: Buffer }): Promise<void> {
    await tabTo(page, `${q(questionId)} input[type=file]`);
    const done = page.waitForResponse((r) => r.url().includes(`/files/${questionId}`));
    await page.locator(':focus').setInputFiles(file);
    await done;
    await expect.poll(() => page.locator(`${q(questionId)} .file-answer`).getAttribute('aria-busy')).toBeNull();
  }

  const markingView = async (assignmentId: string) => (await h.admin('GET', `/api/admin/v1/assignments/${assignmentId}`)).json();
  const storedAnswers = async (assignmentId: string): Promise<Record<string, unknown>> =>
    Object.fromEntries((await markingView(assignmentId)).items.map((i: { questionId: string; answer: unknown }) => [i.questionId, i.answer]));

  async function shoot(page: Page, name: string, size: keyof typeof VIEWPORTS, selector?: string): Promise<void> {
    fs.mkdirSync(SHOTS, { recursive: true });
    const file = path.join(SHOTS, `${name}-${size}.png`);
    // 'body': what the screen shows; a full-page shot would paint the sticky bar in the middle of the page.
    if (selector === 'body') await page.screenshot({ path: file });
    else if (selector) await page.locator(selector).screenshot({ path: file });
    else await page.screenshot({ path: file, fullPage: true });
  }

  async function axeAndWidth(page: Page, size: keyof typeof VIEWPORTS, what: string): Promise<void> {
    expect(await seriousAxeViolations(page), `${what} at ${size}`).toEqual([]);
    expect(await page.evaluate(() => document.documentElement.scrollWidth), `${what} at ${size}`).toBeLessThanOrEqual(VIEWPORTS[size].width);
  }

  it('takes a sectioned after_review test with every question type by keyboard alone: reload half-way, upload errors, review, section scores', async () => {
    const a = await assign(h, tenant, { testId: everyTypeId, externalUserId: 'kbd-all' });
    const { context, page, problems } = await newPage();
    await page.goto(a.startUrl);
    expect(await page.locator('dl.facts').innerText()).toContain('Sections\n4');
    await tabTo(page, '#begin-button');
    await page.keyboard.press('Enter');
    await page.getByRole('timer').waitFor();

    // Four titled sections, a navigator grouped the same way, and two of the pool's three questions.
    expect(await page.locator('section.test-section h2').allTextContents()).toEqual([
      'Part 1: Warm-up',
      'Part 2: Short answers',
      'Part 3: Matching, ordering and gaps',
      'Part 4: Your own work',
    ]);
    expect(await page.locator('nav .nav-section').allTextContents()).toHaveLength(4);
    const shown = await page.locator('fieldset.question').evaluateAll((els) => els.map((e) => (e as HTMLElement).dataset.questionId!));
    expect(shown).toHaveLength(10);
    const pool = shown.slice(0, 2);
    expect(pool.every((id) => id in CORRECT_POOL)).toBe(true);
    expect(await page.locator('#answered-count').textContent()).toBe('0 of 10 answered');
    const initialOrder = await shownOrder(page, 'or');
    expect(initialOrder).not.toEqual(PLANETS);
    await axeAndWidth(page, 'desktop', 'test page');

    // The first half: the pool, the short answers, the matching question and a first file.
    for (const id of pool) await chooseRadio(page, id, CORRECT_POOL[id]!);
    await tabTo(page, `${q('mc')} input[value=two]`);
    await page.keyboard.press('Space');
    await tabTo(page, `${q('mc')} input[value=five]`);
    await page.keyboard.press('Space');
    await typeInto(page, `${q('st')} input[type=text]`, 'hot');
    await typeInto(page, `${q('nu')} input[type=text]`, '2,5');
    await chooseInSelect(page, `${q('ma')} select[data-stem-id=fr]`, 'paris');
    await chooseInSelect(page, `${q('ma')} select[data-stem-id=it]`, 'rome');
    await chooseInSelect(page, `${q('ma')} select[data-stem-id=no]`, 'oslo');
    await uploadByKeyboard(page, 'fu', { name: 'diagram.png', mimeType: 'image/png', buffer: PNG });
    expect(await page.locator(`${q('fu')} .file-current`).textContent()).toBe(`Your file: diagram.png (${PNG.length} bytes)`);
    expect(await page.locator(`${q('fu')} .file-status`).textContent()).toBe('Uploaded diagram.png.');
    await page.keyboard.press('Tab');

    const firstHalf = { ...Object.fromEntries(pool.map((id) => [id, CORRECT_POOL[id]])), mc: ['two', 'five'], st: 'hot', nu: '2,5', ma: { fr: 'paris', it: 'rome', no: 'oslo' } };
    await expect.poll(async () => storedAnswers(a.assignmentId), { timeout: 15_000 }).toMatchObject({ ...firstHalf, fu: { fileId: expect.stringMatching(/^fil_/) }, or: null, fb: null });
    expect(await page.locator('#answered-count').textContent()).toBe('7 of 10 answered');

    await page.reload();
    for (const id of pool) expect(await page.locator(`${q(id)} input[value=${CORRECT_POOL[id]}]`).isChecked()).toBe(true);
    expect(await page.locator(`${q('mc')} input:checked`).evaluateAll((els) => els.map((e) => (e as HTMLInputElement).value).sort())).toEqual(['five', 'two']);
    expect(await page.locator(`${q('st')} input`).inputValue()).toBe('hot');
    expect(await page.locator(`${q('nu')} input`).inputValue()).toBe('2,5');
    expect(await page.locator(`${q('ma')} select`).evaluateAll((els) => els.map((e) => (e as HTMLSelectElement).value))).toEqual(['paris', 'rome', 'oslo']);
    expect(await page.locator(`${q('fu')} .file-current`).textContent()).toBe(`Your file: diagram.png (${PNG.length} bytes)`);
    expect(await shownOrder(page, 'or')).toEqual(initialOrder); // the same shown order, still no answer
    expect(await page.locator('#answered-count').textContent()).toBe('7 of 10 answered');

    // A file that is not what it claims: the server's reason is shown beside the field, and the earlier file stays.
    await uploadByKeyboard(page, 'fu', { name: 'notes.pdf', mimeType: 'application/pdf', buffer: Buffer.from('just some text, not a PDF\n') });
    expect(await page.locator(`${q('fu')} .file-error`).textContent()).toMatch(/^notes\.pdf was not uploaded: .+ Your previous file is kept\.$/);
    expect(await page.locator(`${q('fu')} .file-current`).textContent()).toBe(`Your file: diagram.png (${PNG.length} bytes)`);
    // Remove file clears the answer through the autosave; a new upload becomes the answer.
    await tabTo(page, `${q('fu')} .file-remove`);
    await page.keyboard.press('Enter');
    expect(await page.locator(`${q('fu')} .file-saved`).isHidden()).toBe(true);
    expect(await page.locator(`${q('fu')} .file-status`).textContent()).toBe('File removed.');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe(await page.locator(`${q('fu')} input[type=file]`).getAttribute('id'));
    await expect.poll(async () => (await storedAnswers(a.assignmentId)).fu, { timeout: 15_000 }).toBeNull();
    await uploadByKeyboard(page, 'fu', { name: 'lab report.pdf', mimeType: 'application/pdf', buffer: PDF });
    expect(await page.locator(`${q('fu')} .file-current`).textContent()).toBe(`Your file: lab report.pdf (${PDF.length} bytes)`);
    expect(await page.locator(`${q('fu')} .file-error`).textContent()).toBe('');

    // The second half.
    await orderByKeyboard(page, 'or', PLANETS);
    await typeInto(page, `${q('fb')} input.blank`, '100');
    await chooseInSelect(page, `${q('fb')} select.blank`, 'solid');
    expect(await page.locator(`${q('fb')} .blank`).evaluateAll((els) => els.map((e) => e.getAttribute('aria-label')))).toEqual(['Blank 1', 'Blank 2']);
    await typeInto(page, `${q('es')} textarea`, 'We grew cress on wet paper and measured it daily.');
    await page.keyboard.press('Tab');
    await expect.poll(async () => storedAnswers(a.assignmentId), { timeout: 15_000 }).toMatchObject({
      ...firstHalf,
      or: PLANETS,
      fb: { temp: '100', state: 'solid' },
      es: 'We grew cress on wet paper and measured it daily.',
      fu: { fileId: expect.stringMatching(/^fil_/) },
    });
    expect(await page.locator('#answered-count').textContent()).toBe('10 of 10 answered');

    // Screenshots of the added types, answered, at desktop width, then the same page at 360 px.
    for (const [name, id] of [['matching', 'ma'], ['ordering', 'or'], ['fill-blanks', 'fb'], ['file-upload', 'fu']] as const) await shoot(page, `question-${name}`, 'desktop', q(id));
    await page.evaluate(() => window.scrollTo(0, 0));
    await shoot(page, 'test-sections', 'desktop', 'body');
    await axeAndWidth(page, 'desktop', 'answered test page');
    const phone = await newPage(VIEWPORTS.phone);
    await phone.page.goto(a.startUrl);
    await phone.page.getByRole('timer').waitFor();
    await axeAndWidth(phone.page, 'phone', 'test page');
    await shoot(phone.page, 'test-sections', 'phone', 'body');
    for (const [name, id] of [['matching', 'ma'], ['ordering', 'or'], ['fill-blanks', 'fb'], ['file-upload', 'fu']] as const) await shoot(phone.page, `question-${name}`, 'phone', q(id));
    await closeContext(phone.context);

    await tabTo(page, '#open-submit');
    await page.keyboard.press('Enter');
    expect(await page.locator('#submit-summary').textContent()).toBe('You have answered every question.');
    await tabTo(page, '#confirm-submit');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Marking in progress' }).waitFor();
    expect(await page.locator('table').count()).toBe(0);

    // Auto marks are all full; the reviewer marks the essay and the file through the marking API.
    const view = await markingView(a.assignmentId);
    expect(view.awaitingMarking.sort()).toEqual(['es', 'fu']);
    const marked = await h.admin('POST', `/api/admin/v1/assignments/${a.assignmentId}/marks`, {
      marks: [{ questionId: 'es', points: 4 }, { questionId: 'fu', points: 5 }],
      complete: true,
      markedBy: 'teacher@northfield.example',
    });
    expect(marked.statusCode).toBe(200);
    const { result } = await readAssignment(h, tenant, a.assignmentId);
    expect(result.score).toMatchObject({ points: 22, maxPoints: 23, gradingStatus: 'final' });
    expect(result.score.sections).toEqual([
      { sectionId: 'warmup', title: 'Part 1: Warm-up', points: 2, maxPoints: 2, percent: 100 },
      { sectionId: 'short', title: 'Part 2: Short answers', points: 4, maxPoints: 4, percent: 100 },
      { sectionId: 'structure', title: 'Part 3: Matching, ordering and gaps', points: 7, maxPoints: 7, percent: 100 },
      { sectionId: 'own', title: 'Part 4: Your own work', points: 9, maxPoints: 10, percent: 90 },
    ]);

    await page.reload();
    await page.getByRole('heading', { name: 'Your result' }).waitFor();
    const table = page.getByRole('table', { name: 'Your score in each section' });
    expect(await table.locator('tbody tr').allInnerTexts()).toEqual([
      'Part 1: Warm-up\t2 of 2\t100%',
      'Part 2: Short answers\t4 of 4\t100%',
      'Part 3: Matching, ordering and gaps\t7 of 7\t100%',
      'Part 4: Your own work\t9 of 10\t90%',
    ]);
    await axeAndWidth(page, 'desktop', 'completion page');
    await shoot(page, 'result-sections', 'desktop');
    await page.setViewportSize(VIEWPORTS.phone);
    await axeAndWidth(page, 'phone', 'completion page');
    await shoot(page, 'result-sections', 'phone');
    expect(problems).toEqual([]);
    await closeContext(context);
  }, 180_000);

  it('shows section scores right after submitting an immediate sectioned test', async () => {
    const a = await assign(h, tenant, { testId: quickId, externalUserId: 'quick-1' });
    const { context, page, problems } = await newPage(VIEWPORTS.phone);
    await page.goto(a.startUrl);
    await page.getByRole('button', { name: 'Begin test' }).click();
    await page.getByRole('timer').waitFor();
    await axeAndWidth(page, 'phone', 'test page');

    await page.getByRole('group', { name: /What is 3 \+ 4\?/ }).getByLabel('Seven').check();
    await page.getByRole('group', { name: /half of 9/ }).getByRole('textbox').fill('4.5');
    const pairs = page.getByRole('group', { name: /Match the opposites/ });
    await pairs.getByRole('combobox', { name: 'big' }).selectOption('small');
    await pairs.getByRole('combobox', { name: 'up' }).selectOption('small'); // wrong: half the matching's points
    // Leave the ordering untouched: its shown order is never correct and is no answer until moved.
    await expect.poll(async () => storedAnswers(a.assignmentId), { timeout: 15_000 }).toMatchObject({ pairs: { big: 'small', up: 'small' }, steps: null });
    expect(await page.locator('#answered-count').textContent()).toBe('3 of 4 answered');

    await page.getByRole('button', { name: 'Submit test' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Submit', exact: true }).click();
    await page.getByRole('heading', { name: 'Your result' }).waitFor();
    const { result } = await readAssignment(h, tenant, a.assignmentId);
    expect(result.score.sections).toMatchObject([
      { title: 'Numbers', points: 2, maxPoints: 2, percent: 100 },
      { title: 'Words', points: 1, maxPoints: 3, percent: 33.33 },
    ]);
    expect(await page.getByRole('table', { name: 'Your score in each section' }).locator('tbody tr').allInnerTexts()).toEqual([
      'Numbers\t2 of 2\t100%',
      'Words\t1 of 3\t33.33%',
    ]);
    await axeAndWidth(page, 'phone', 'completion page');
    await page.setViewportSize(VIEWPORTS.desktop);
    await axeAndWidth(page, 'desktop', 'completion page');
    expect(problems).toEqual([]);
    await closeContext(context);
  }, 90_000);

  it('keeps an order made while saves fail on the device, restores it after a reload, and saves it when the server answers', async () => {
    const a = await assign(h, tenant, { testId: quickId, externalUserId: 'offline-order' });
    const { context, page } = await newPage();
    await page.goto(a.startUrl);
    await page.getByRole('button', { name: 'Begin test' }).click();
    await page.getByRole('timer').waitFor();
    const target = ['a', 'b', 'c'];
    await page.route('**/answers', (route) => route.abort());
    for (let pos = 0; pos < target.length; pos++) {
      const from = (await shownOrder(page, 'steps')).indexOf(target[pos]!);
      for (let k = from; k > pos; k--) await page.locator(`${q('steps')} li[data-item-id="${target[pos]}"] [data-move=up]`).click();
    }
    expect(await shownOrder(page, 'steps')).toEqual(target);
    await expect.poll(() => page.locator('#save-status').textContent(), { timeout: 10_000 }).toBe('Offline — will retry');

    await page.reload();
    expect(await shownOrder(page, 'steps')).toEqual(target);
    expect(await page.locator('#nav-4').getAttribute('data-answered')).toBe('yes');
    expect((await storedAnswers(a.assignmentId)).steps).toBeNull();
    await page.unroute('**/answers');
    await expect.poll(async () => (await storedAnswers(a.assignmentId)).steps, { timeout: 20_000 }).toEqual(target);
    await closeContext(context);
  }, 60_000);
});
