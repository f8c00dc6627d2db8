import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../helpers/harness.js';
import { portalGet, signedIn } from '../helpers/portal.js';
import { publishedVersion, seedAttempts } from '../helpers/results.js';
import type { TestInput } from '../../src/modules/catalog/schemas.js';

/** The Assignments page's Export CSV: the page's filters, the signed-in institution's rows only, every staff role that reads. */
const TEST: TestInput = {
  title: 'Export check',
  description: '',
  durationMinutes: 10,
  proctoring: 'none',
  marking: 'auto',
  resultVisibility: 'immediate',
  passPercent: 50,
  questions: [{ id: 'q1', type: 'numeric', prompt: '1 + 1?', points: 1, answer: 2 }],
};
const delivery = { sections: [{ sectionId: 'main', questionIds: ['q1'] }], optionOrder: {}, itemOrder: {} };
const one = (externalUserId: string, q1: number) => ({ externalUserId, delivery, answers: {}, marks: { q1 } });

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
  const a = await publishedVersion(h, h.a, TEST);
  await seedAttempts(h, h.a, a, 1, [one('alpha-1', 1), one('alpha-2', 0)]);
  await seedAttempts(h, h.a, a, 1, [one('alpha-sandbox', 1)], { livemode: false });
  const b = await publishedVersion(h, h.b, TEST);
  await seedAttempts(h, h.b, b, 1, [one('beta-1', 1)]);
});
afterAll(() => h?.close());

const ids = (body: string) => (parse(body, { columns: true }) as Array<Record<string, string>>).map((r) => r.externalUserId);

describe('Export CSV on the Assignments page', () => {
  it('is offered on the list with the filters of the page', async () => {
    const viewer = await signedIn(h, 'viewer', h.a.institutionId);
    const page = await portalGet(h, viewer, '/portal/assignments?q=alpha&mode=test');
    expect(page.statusCode).toBe(200);
    expect(page.body).toMatch(/<a class="button" href="\/portal\/assignments\/results\.csv\?[^"]*q=alpha[^"]*mode=test[^"]*" download>Export CSV<\/a>/);
  });

  it.each(['admin', 'reviewer', 'viewer'] as const)('gives a %s their institution’s rows, filtered as the page is', async (role) => {
    const user = await signedIn(h, role, h.a.institutionId);
    const res = await portalGet(h, user, '/portal/assignments/results.csv');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(ids(res.body)).toEqual(['alpha-1', 'alpha-2']);
    expect(ids((await portalGet(h, user, '/portal/assignments/results.csv?mode=test')).body)).toEqual(['alpha-sandbox']);
    expect(ids((await portalGet(h, user, '/portal/assignments/results.csv?mode=all&q=alpha-2')).body)).toEqual(['alpha-2']);
  });

  it("never crosses tenants: another institution's staff get their own rows even when naming A", async () => {
    const other = await signedIn(h, 'admin', h.b.institutionId);
    expect(ids((await portalGet(h, other, `/portal/assignments/results.csv?institution=${h.a.institutionId}`)).body)).toEqual(['beta-1']);
  });

  it('lets an operator export the institution they choose, and asks the signed-out to sign in', async () => {
    const op = await signedIn(h, 'operator');
    expect(ids((await portalGet(h, op, `/portal/assignments/results.csv?institution=${h.b.institutionId}`)).body)).toEqual(['beta-1']);
    expect((await portalGet(h, op, '/portal/assignments/results.csv')).statusCode).toBe(404);
    const anon = await portalGet(h, null, '/portal/assignments/results.csv');
    expect(anon.statusCode).toBe(303);
    expect(anon.headers.location).toMatch(/^\/portal\/sign-in/);
  });

  it('refuses a malformed date filter', async () => {
    const viewer = await signedIn(h, 'viewer', h.a.institutionId);
    expect((await portalGet(h, viewer, '/portal/assignments/results.csv?from=2026-13-01')).statusCode).toBe(400);
  });
});
