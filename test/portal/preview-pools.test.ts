import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUTO_TEST, createHarness, type Harness } from '../helpers/harness.js';
import { portalGet, signedIn, type PortalUser } from '../helpers/portal.js';
import { portalJson } from '../helpers/authoring.js';

/**
 * The preview shows every question of a pool, so it says under the pool's
 * title how many of them each candidate gets; a section that gives all its
 * questions says nothing. Complete drafts and unfinished ones alike.
 */
let h: Harness;
let author: PortalUser;
const q = (prompt: string) => ({ type: 'numeric', prompt, points: 1, answer: 1 });

beforeAll(async () => {
  h = await createHarness();
  author = await signedIn(h, 'author', h.a.institutionId);
});
afterAll(() => h.close());

async function preview(content: Record<string, unknown>) {
  const created = await portalJson(h, author, 'POST', '/portal/authoring/tests', { content });
  expect(created.statusCode).toBe(201);
  const res = await portalGet(h, author, `/portal/tests/${created.json().testId}/draft/preview?revision=1`);
  expect(res.statusCode).toBe(200);
  return res.body;
}

/** The notes under each section's title, by the section's title. */
function notesBySection(body: string): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const m of body.matchAll(/<section class="test-section"[^>]*>\s*<h2 class="section-title"[^>]*>([^<]+)<\/h2>([\s\S]*?)<\/section>/g)) {
    out[m[1]!] = [...m[2]!.matchAll(/<p class="notice pool-note" role="note">([^<]+)<\/p>/g)].map((n) => n[1]!);
  }
  return out;
}

const { questions: _flat, ...settings } = AUTO_TEST;

describe('the preview of a test with pools', () => {
  it('says under each pool how many of its questions a candidate gets', async () => {
    const body = await preview({
      ...settings,
      sections: [
        { title: 'Warm-up', questions: [q('One?'), q('Two?')] },
        { title: 'Pool', draw: 2, questions: [q('Three?'), q('Four?'), q('Five?')] },
      ],
    });
    expect(notesBySection(body)).toEqual({
      'Warm-up': [],
      Pool: ['Candidates get 2 of these 3 questions, drawn for each candidate; the preview shows them all.'],
    });
    // Every question of the pool is still shown.
    for (const prompt of ['Three?', 'Four?', 'Five?']) expect(body).toContain(prompt);
  });

  it('says it for an unfinished draft too, counting the questions it can show', async () => {
    const body = await preview({
      ...settings,
      sections: [{ title: 'Pool', draw: 1, questions: [q('Three?'), q('Four?'), { type: 'numeric', prompt: 'No points yet' }] }],
    });
    expect(body).toContain('cannot be previewed yet');
    expect(notesBySection(body)).toEqual({ Pool: ['Candidates get 1 of these 2 questions, drawn for each candidate; the preview shows them all.'] });
  });
});
