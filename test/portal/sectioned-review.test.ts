import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../helpers/harness.js';
import { portalGet, portalPost, signedIn, type PortalUser } from '../helpers/portal.js';
import { createPublishedTest } from '../helpers/student.js';
import { POOL_IDS, sectionedTest } from '../helpers/sectioned.js';
import { submittedSectioned } from '../helpers/sectioned-attempt.js';

/**
 * The portal's review of a sectioned, pooled test: only the questions the
 * candidate was given, in their order, under the section titles; the new
 * types' answers in words; the score per section.
 */

let h: Harness;
let viewer: PortalUser;
let reviewer: PortalUser;
let assignmentId: string;
let drawn: string[];
beforeAll(async () => {
  h = await createHarness();
  viewer = await signedIn(h, 'viewer', h.a.institutionId);
  reviewer = await signedIn(h, 'reviewer', h.a.institutionId);
  const testId = await createPublishedTest(h, h.a, sectionedTest());
  ({ assignmentId, drawn } = await submittedSectioned(h, h.a, testId, 'review-sections-1'));
});
afterAll(() => h.close());

/** The page's text without tags, whitespace collapsed. */
const text = (body: string) => body.replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ');
const prompts = (body: string) => [...body.matchAll(/<p class="prompt">([^<]*)<\/p>/g)].map((m) => m[1]!);
const expectedPrompts = () => [...drawn.map((id) => `Pool question ${POOL_IDS.indexOf(id as never) + 1}`), 'Match each capital to its country', 'Order the planets from the Sun', 'Complete the sentence', 'Describe your town.'];

/** Each drawn pool question's options must be listed in the order the candidate saw them (the stored delivery). */
async function checkShownOptionOrder(body: string) {
  const { rows } = await h.pool.query('SELECT delivery FROM attempts WHERE assignment_id = $1', [assignmentId]);
  const optionOrder: Record<string, string[]> = rows[0].delivery.optionOrder;
  for (const id of drawn) {
    const i = POOL_IDS.indexOf(id as never);
    const at = body.indexOf(`<p class="prompt">Pool question ${i + 1}</p>`);
    const list = /<ul class="options-list">([\s\S]*?)<\/ul>/.exec(body.slice(at))![1]!;
    const shown = [...list.matchAll(/<li[^>]*>([^<]*)/g)].map((m) => m[1]!.trim());
    const text = (optionId: string) => (optionId === 'none' ? 'None of these' : `${optionId.toUpperCase()}${i}`);
    expect(shown).toEqual(optionOrder[id]!.map(text));
  }
}

function checkAnswersInWords(body: string) {
  const t = text(body);
  // Matching: stem → choice pairs by text, the wrong one with the correct choice.
  expect(t).toContain('Paris → matched to France right');
  expect(t).toContain('Rome → matched to Italy right');
  expect(t).toContain('Bern → matched to France wrong (correct: Switzerland)');
  // Ordering: the student's order as a numbered list.
  const order = /<ol class="answer-order">([\s\S]*?)<\/ol>/.exec(body)![1]!;
  expect([...order.matchAll(/<li>(.*?)<\/li>/g)].map((m) => text(m[1]!).trim())).toEqual([
    'Mercury in its correct place',
    'Venus in its correct place',
    'Mars not in place (belongs at 4)',
    'Earth not in place (belongs at 3)',
  ]);
  // Fill blanks: the text with the blanks filled in, a choice blank by its option text.
  expect(t).toContain('Water boils at 100 (Blank 1, right) degrees at low (Blank 2, wrong; correct: standard) pressure.');
  // No bare ids of the new types reach the page as answers.
  expect(t).not.toMatch(/\{\{temp\}\}|"paris"/);
}

describe("the reviewer's marking page of a sectioned test", () => {
  it('while marking, groups the drawn questions by section in the order shown, with the answers in words', async () => {
    const res = await portalGet(h, reviewer, `/portal/marking/${assignmentId}`);
    expect(res.statusCode).toBe(200);
    expect(prompts(res.body)).toEqual(expectedPrompts());
    const headings = [...res.body.matchAll(/<h2 class="section-head" id="section-\d+">([^<]*)<\/h2>/g)].map((m) => m[1]);
    expect(headings).toEqual(['Pool', 'Skills', 'Writing']);
    expect(res.body.match(/<h3 id="item-\d+">Question \d+/g)).toHaveLength(6);
    checkAnswersInWords(res.body);
    await checkShownOptionOrder(res.body);
    // The page is the marking form: the essay has its points field, inside the Writing section.
    expect(res.body.slice(res.body.indexOf('>Writing</h2>'))).toContain('name="points-essay"');
  });
});

describe('the assignment page of a sectioned test', () => {
  it('lists only the drawn questions, in the order shown, under each section title', async () => {
    const res = await portalGet(h, viewer, `/portal/assignments/${assignmentId}`);
    expect(res.statusCode).toBe(200);
    expect(prompts(res.body)).toEqual(expectedPrompts());
    const headings = [...res.body.matchAll(/<h3 class="section-head" id="section-\d+">([^<]*)<\/h3>/g)].map((m) => m[1]);
    expect(headings).toEqual(['Pool', 'Skills', 'Writing']);
    // Questions are numbered through the test, one heading level under their section.
    expect(res.body.match(/<h4 id="q-\d+">Question \d+/g)).toHaveLength(6);
    checkAnswersInWords(res.body);
    await checkShownOptionOrder(res.body);
  });

  it('shows the score per section, then the final one after the reviewer marks the essay', async () => {
    const before = text((await portalGet(h, viewer, `/portal/assignments/${assignmentId}`)).body);
    expect(before).toContain('Score per section so far Pool: 2 of 4 points (50%) Skills: 5 of 9 points (55.56%) Writing: 0 of 5 points (0%)');

    const form = await portalGet(h, reviewer, `/portal/marking/${assignmentId}`);
    const v = /name="version" value="([^"]+)"/.exec(form.body)![1]!;
    expect((await portalPost(h, reviewer, `/portal/marking/${assignmentId}`, { version: v, action: 'finish', 'points-essay': '4' })).statusCode).toBe(303);

    const after = text((await portalGet(h, viewer, `/portal/assignments/${assignmentId}`)).body);
    expect(after).toContain('11 of 18 points (61.11%), passed; final');
    expect(after).toContain('Score per section Pool: 2 of 4 points (50%) Skills: 5 of 9 points (55.56%) Writing: 4 of 5 points (80%)');
  });
});
