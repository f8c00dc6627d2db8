import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUTO_TEST, createHarness, type Harness } from '../helpers/harness.js';
import { portalGet, signedIn, type PortalUser } from '../helpers/portal.js';
import { portalJson } from '../helpers/authoring.js';

/**
 * The editor's preview of the saved draft: the student page's renderer
 * (MathML, images with their alt text, no script), a draft that is not
 * publishable yet shown as far as it can be with the rest named in words,
 * an invalid formula told to the author instead of an error page.
 */
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');
let h: Harness;
let author: PortalUser;
let assetId: string;
const choice = AUTO_TEST.questions![0]!;

beforeAll(async () => {
  h = await createHarness();
  author = await signedIn(h, 'author', h.a.institutionId);
  const res = await h.app.inject({ method: 'POST', url: '/portal/authoring/assets', headers: { cookie: author.cookie, 'x-csrf-token': author.csrf, 'content-type': 'image/png' }, payload: PNG });
  assetId = res.json().assetId;
});
afterAll(() => h.close());

async function preview(content: Record<string, unknown>) {
  const created = await portalJson(h, author, 'POST', '/portal/authoring/tests', { content });
  expect(created.statusCode).toBe(201);
  return portalGet(h, author, `/portal/tests/${created.json().testId}/draft/preview?revision=1`);
}

describe('the draft preview', () => {
  it('renders formulas as MathML and images with their alt text, in a sandbox that runs no script', async () => {
    const res = await preview({
      ...AUTO_TEST,
      contentFormat: 'markdown',
      questions: [{ ...choice, prompt: `Is $x^2 \\geq 0$ for every real $x$? ![A parabola](asset:${assetId})` }],
    });
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('<math');
    expect(res.body).toMatch(new RegExp(`<img[^>]+alt="A parabola"[^>]*>`));
    expect(res.body).toContain(`/portal/content-assets/${assetId}`);
    // The page's own scripts are in it, but the sandbox (no allow-scripts) runs none of them.
    expect(res.headers['content-security-policy']).not.toContain('allow-scripts');
    expect(res.headers['content-security-policy']).toContain('sandbox allow-same-origin');
    expect(res.headers['content-security-policy']).toContain("frame-ancestors 'self'");
  });

  it('shows the questions that can be shown and names the others with their problem', async () => {
    const res = await preview({
      ...AUTO_TEST,
      contentFormat: 'markdown',
      sections: [
        { title: 'Ready', questions: [{ ...choice, id: 'ok', prompt: 'A finished question' }] },
        { title: 'In progress', questions: [{ ...choice, id: 'half', prompt: 'Half written', points: 0 }] },
      ],
      questions: undefined,
    });
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('A finished question');
    expect(res.body).not.toContain('Half written');
    expect(res.body).toContain('Question 2 cannot be previewed yet: points: enter a number above 0.');
    expect(res.body).toContain('In progress');
  });

  it('tells the author about an invalid formula instead of failing', async () => {
    const res = await preview({ ...AUTO_TEST, contentFormat: 'markdown', questions: [{ ...choice, prompt: 'Broken: $\\frac{1$' }] });
    expect(res.statusCode).toBe(200);
    expect(res.body).toMatch(/Question 1 cannot be previewed yet: prompt: [^<]*formula/i);
  });

  it('previews an empty new test without an error', async () => {
    const res = await preview({ title: 'Nothing yet', sections: [{ title: 'Section 1', questions: [] }] });
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('Nothing yet');
  });
});
