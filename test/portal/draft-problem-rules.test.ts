import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../helpers/harness.js';
import { signedIn, type PortalUser } from '../helpers/portal.js';
import { portalJson } from '../helpers/authoring.js';

/**
 * The portal's draft answers name the schema rule each problem broke, for
 * the editor to word it (editor-problems.js); the operator API's draft and
 * a refused publish keep the API's field and message only.
 */
let h: Harness;
let author: PortalUser;

beforeAll(async () => {
  h = await createHarness();
  author = await signedIn(h, 'author', h.a.institutionId);
});
afterAll(() => h.close());

const CONTENT = { title: 'Half', description: '', durationMinutes: 10, proctoring: 'none', marking: 'auto', resultVisibility: 'immediate', sections: [{ title: '', questions: [] }] };

describe('problem rules', () => {
  it('the portal draft gives each schema problem its rule; the operator API and a refused publish do not', async () => {
    const created = await portalJson(h, author, 'POST', '/portal/authoring/tests', { content: CONTENT });
    expect(created.statusCode).toBe(201);
    const { testId, revision } = created.json();
    const draft = (await portalJson(h, author, 'GET', `/portal/authoring/tests/${testId}/draft`)).json();
    expect(draft.problems).toEqual(
      expect.arrayContaining([
        { field: 'sections.0.title', message: 'must NOT have fewer than 1 characters', rule: { keyword: 'minLength', limit: 1 } },
        { field: 'sections.0.questions', message: 'must NOT have fewer than 1 items', rule: { keyword: 'minItems', limit: 1 } },
      ]),
    );
    const saved = (await portalJson(h, author, 'PUT', `/portal/authoring/tests/${testId}/draft`, { revision, content: { ...CONTENT, durationMinutes: 0 } })).json();
    expect(saved.problems).toContainEqual({ field: 'durationMinutes', message: 'must be >= 1', rule: { keyword: 'minimum', limit: 1 } });

    const operator = (await h.admin('GET', `/api/admin/v1/tests/${testId}/draft`)).json();
    expect(operator.problems.length).toBeGreaterThan(0);
    for (const p of operator.problems) expect(Object.keys(p).sort()).toEqual(['field', 'message']);

    const refused = await portalJson(h, author, 'POST', `/portal/authoring/tests/${testId}/versions`, { revision: saved.revision });
    expect(refused.statusCode).toBe(400);
    for (const d of refused.json().error.details) expect(Object.keys(d).sort()).toEqual(['field', 'message']);
  });
});
