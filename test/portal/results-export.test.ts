import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../helpers/harness.js';
import { portalGet, signedIn } from '../helpers/portal.js';
import { RESPONSES_HEADER, seedResponses } from '../helpers/responses.js';
import { publishedVersion, seedAttempts } from '../helpers/results.js';
import type { TestInput } from '../../src/modules/catalog/schemas.js';

/**
 * The Assignments page's Export CSV and Export responses: the page's
 * filters, the signed-in institution's rows only, every staff role that
 * reads (all four), each download in the audit log under the staff member.
 */
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
let responses: { testId: string; assignmentId: string };
beforeAll(async () => {
  h = await createHarness();
  responses = await seedResponses(h, h.a, 'alpha-responses', 'Ana Álvarez');
  const a = await publishedVersion(h, h.a, TEST);
  await seedAttempts(h, h.a, a, 1, [one('alpha-1', 1), one('alpha-2', 0)]);
  await seedAttempts(h, h.a, a, 1, [one('alpha-sandbox', 1)], { livemode: false });
  const b = await publishedVersion(h, h.b, TEST);
  await seedAttempts(h, h.b, b, 1, [one('beta-1', 1)]);
});
afterAll(() => h?.close());

const rows = (body: string) => parse(body, { bom: true, columns: true }) as Array<Record<string, string>>;
const ids = (body: string) => [...new Set(rows(body).map((r) => r.externalUserId))];

describe('Export CSV on the Assignments page', () => {
  it('is offered on the list with the filters of the page', async () => {
    const viewer = await signedIn(h, 'viewer', h.a.institutionId);
    const page = await portalGet(h, viewer, '/portal/assignments?q=alpha&mode=test');
    expect(page.statusCode).toBe(200);
    expect(page.body).toMatch(/<a class="button" href="\/portal\/assignments\/results\.csv\?[^"]*q=alpha[^"]*mode=test[^"]*" download>Export CSV<\/a>/);
    expect(page.body).toMatch(/<a class="button" href="\/portal\/assignments\/responses\.csv\?[^"]*q=alpha[^"]*mode=test[^"]*" download>Export responses \(CSV\)<\/a>/);
  });

  it.each(['admin', 'author', 'reviewer', 'viewer'] as const)('gives a %s their institution’s rows, filtered as the page is', async (role) => {
    const user = await signedIn(h, role, h.a.institutionId);
    const res = await portalGet(h, user, '/portal/assignments/results.csv');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.rawPayload.subarray(0, 3)).toEqual(Buffer.from([0xef, 0xbb, 0xbf]));
    // The seeds share one creation time, so the export's order (created_at, then id) between them is the ids'.
    expect(ids(res.body).sort()).toEqual(['alpha-1', 'alpha-2', 'alpha-responses']);
    expect(rows(res.body).find((r) => r.externalUserId === 'alpha-responses')).toMatchObject({ name: 'Ana Álvarez', email: 'alpha-responses@seed.example' });
    expect(ids((await portalGet(h, user, '/portal/assignments/results.csv?mode=test')).body)).toEqual(['alpha-sandbox']);
    expect(ids((await portalGet(h, user, '/portal/assignments/results.csv?mode=all&q=alpha-2')).body)).toEqual(['alpha-2']);
  });

  it.each(['admin', 'author', 'reviewer', 'viewer'] as const)('gives a %s the responses, one row per question, with the test’s title as the file name', async (role) => {
    const user = await signedIn(h, role, h.a.institutionId);
    const res = await portalGet(h, user, `/portal/assignments/responses.csv?testId=${responses.testId}`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.headers['content-disposition']).toMatch(/^attachment; filename="Geographie- Europe 1-2 - responses - \d{4}-\d\d-\d\d\.csv"; filename\*=UTF-8''G%C3%A9ographie/);
    expect(res.body.replace(/^\uFEFF/, '').split('\r\n')[0]).toBe(RESPONSES_HEADER);
    const data = rows(res.body);
    expect(data.map((r) => r.questionId)).toEqual(['capital', 'pairs', 'depth', 'both', 'essay', 'map']);
    expect(data[0]).toMatchObject({ name: 'Ana Álvarez', response: 'Paris', section: 'Facts' });
    // The page's other filters apply too: a search that matches nobody gives the header alone.
    expect(rows((await portalGet(h, user, '/portal/assignments/responses.csv?q=nobody')).body)).toEqual([]);
  });

  it('records each download in the audit log under the staff member, with the filters', async () => {
    const viewer = await signedIn(h, 'viewer', h.a.institutionId);
    await h.pool.query("DELETE FROM audit_log WHERE action = 'results.exported'");
    expect((await portalGet(h, viewer, '/portal/assignments/results.csv?mode=all&q=alpha')).statusCode).toBe(200);
    expect((await portalGet(h, viewer, `/portal/assignments/responses.csv?testId=${responses.testId}&from=2026-01-01`)).statusCode).toBe(200);
    // A refused export leaves no entry.
    expect((await portalGet(h, viewer, '/portal/assignments/responses.csv?from=2026-13-01')).statusCode).toBe(400);
    const { rows: entries } = await h.pool.query("SELECT actor_kind, actor_id, actor_email, object_id, institution_id, details FROM audit_log WHERE action = 'results.exported' ORDER BY id");
    const who = { actor_kind: 'staff', actor_id: viewer.staffId, actor_email: viewer.email, object_id: h.a.institutionId, institution_id: h.a.institutionId };
    expect(entries).toEqual([
      { ...who, details: { export: 'results.csv', externalUserId: 'alpha', livemode: 'all' } },
      { ...who, details: { export: 'responses.csv', testId: responses.testId, createdFrom: '2026-01-01', livemode: true } },
    ]);
  });

  it("never crosses tenants: another institution's staff get their own rows even when naming A", async () => {
    const other = await signedIn(h, 'admin', h.b.institutionId);
    expect(ids((await portalGet(h, other, `/portal/assignments/results.csv?institution=${h.a.institutionId}`)).body)).toEqual(['beta-1']);
    expect(ids((await portalGet(h, other, `/portal/assignments/responses.csv?institution=${h.a.institutionId}`)).body)).toEqual(['beta-1']);
    // A's test by id: none of A's rows, and A's title does not name the file.
    const named = await portalGet(h, other, `/portal/assignments/responses.csv?testId=${responses.testId}`);
    expect(rows(named.body)).toEqual([]);
    expect(named.headers['content-disposition']).toMatch(new RegExp(`^attachment; filename="responses-${h.b.institutionId}-`));
  });

  it('lets an operator export the institution they choose, and asks the signed-out to sign in', async () => {
    const op = await signedIn(h, 'operator');
    expect(ids((await portalGet(h, op, `/portal/assignments/results.csv?institution=${h.b.institutionId}`)).body)).toEqual(['beta-1']);
    expect(ids((await portalGet(h, op, `/portal/assignments/responses.csv?institution=${h.b.institutionId}`)).body)).toEqual(['beta-1']);
    expect((await portalGet(h, op, '/portal/assignments/results.csv')).statusCode).toBe(404);
    expect((await portalGet(h, op, '/portal/assignments/responses.csv')).statusCode).toBe(404);
    for (const file of ['results', 'responses']) {
      const anon = await portalGet(h, null, `/portal/assignments/${file}.csv`);
      expect(anon.statusCode).toBe(303);
      expect(anon.headers.location).toMatch(/^\/portal\/sign-in/);
    }
  });

  it('refuses a malformed date filter', async () => {
    const viewer = await signedIn(h, 'viewer', h.a.institutionId);
    expect((await portalGet(h, viewer, '/portal/assignments/results.csv?from=2026-13-01')).statusCode).toBe(400);
  });
});
