import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { AUTO_TEST, createHarness, type Harness, type Tenant } from '../helpers/harness.js';
import { detailFields, expectError } from '../helpers/expect-error.js';
import { createTest, publishTest } from '../../src/modules/catalog/tests-service.js';

const URL_ = '/api/partner/v1/tests';
const TEST_FIELDS = ['testId', 'title', 'description', 'durationMinutes', 'proctoring', 'marking', 'resultVisibility', 'language', 'languages'].sort();
let h: Harness;
let many: Tenant;
let manyIds: string[];

beforeAll(async () => {
  h = await createHarness();
  many = await h.createTenant('Many Tests');
  manyIds = [many.testId];
  for (let i = 0; i < 24; i++) {
    const t = await createTest(h.pool, { ...AUTO_TEST, title: `Test ${i}` });
    await publishTest(h.pool, t.testId, many.institutionId);
    manyIds.push(t.testId);
  }
});
afterAll(() => h.close());

describe('GET /tests', () => {
  it('lists only the tests published to the caller, with exactly the fields of spec 2.1', async () => {
    const res = await h.partner(h.a, 'GET', URL_);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(Object.keys(body).sort()).toEqual(['data', 'limit', 'offset', 'total']);
    expect(body).toMatchObject({ total: 1, limit: 20, offset: 0 });
    expect(body.data).toEqual([
      {
        testId: h.a.testId,
        title: AUTO_TEST.title,
        description: AUTO_TEST.description,
        durationMinutes: AUTO_TEST.durationMinutes,
        proctoring: 'none',
        marking: 'auto',
        resultVisibility: 'immediate',
        // No declared language: null, and read as English.
        language: null,
        languages: ['en'],
      },
    ]);
    expect(Object.keys(body.data[0]).sort()).toEqual(TEST_FIELDS);
    // No questions, answer keys, pass mark or version leak to partners.
    expect(res.body).not.toMatch(/questions|correctOptionId|passPercent|version/);
  });

  it('defaults to limit 20 and offset 0, and reports the total', async () => {
    const body = (await h.partner(many, 'GET', URL_)).json();
    expect(body).toMatchObject({ total: 25, limit: 20, offset: 0 });
    expect(body.data).toHaveLength(20);
  });

  it('pages through every test exactly once in a stable order', async () => {
    const seen: string[] = [];
    for (let offset = 0; offset < 25; offset += 7) {
      const body = (await h.partner(many, 'GET', `${URL_}?limit=7&offset=${offset}`)).json();
      expect(body).toMatchObject({ total: 25, limit: 7, offset });
      seen.push(...body.data.map((t: { testId: string }) => t.testId));
    }
    expect(seen.sort()).toEqual([...manyIds].sort());
  });

  it('past the last page returns no data and still the total', async () => {
    const body = (await h.partner(many, 'GET', `${URL_}?offset=25`)).json();
    expect(body).toEqual({ data: [], total: 25, limit: 20, offset: 25 });
  });

  it.each([
    ['limit=1', 1, 1],
    ['limit=100', 25, 100],
  ])('accepts %s', async (query, rows, limit) => {
    const res = await h.partner(many, 'GET', `${URL_}?${query}`);
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toHaveLength(rows);
    expect(res.json().limit).toBe(limit);
  });

  it('accepts offset=0', async () => {
    expect((await h.partner(many, 'GET', `${URL_}?offset=0`)).json().offset).toBe(0);
  });

  it.each([
    ['limit=0', 'limit'],
    ['limit=101', 'limit'],
    ['limit=-1', 'limit'],
    ['limit=abc', 'limit'],
    ['limit=1.5', 'limit'],
    ['limit=', 'limit'],
    ['limit=10&limit=20', 'limit'],
    ['offset=-1', 'offset'],
    ['offset=x', 'offset'],
    ['offset=0.5', 'offset'],
    ['page=2', 'page'],
  ])('rejects ?%s with 400 naming %s', async (query, field) => {
    const res = await h.partner(h.a, 'GET', `${URL_}?${query}`);
    expectError(res, 400, 'invalid_request');
    expect(detailFields(res)).toContain(field);
  });

  it('never lists another institution’s tests, even when paging', async () => {
    const mine = (await h.partner(h.b, 'GET', `${URL_}?limit=100`)).json();
    expect(mine.data.map((t: { testId: string }) => t.testId)).toEqual([h.b.testId]);
    expect(mine.total).toBe(1);
  });
});

describe("a test's languages in the listing", () => {
  const translated = {
    ...AUTO_TEST,
    questions: AUTO_TEST.questions!.map((q, i) => ({ ...q, id: `q${i + 1}` })),
    translations: { fr: { title: 'Arithmétique', questions: { q1: { prompt: '2 + 2 ?' } } }, ar: { title: 'الحساب' } },
  };

  it('gives the declared language and every translation: the declared one first, then the others sorted', async () => {
    const tenant = await h.createTenant('Languages');
    const declared = (await h.admin('POST', '/api/admin/v1/tests', { ...translated, title: 'Rechnen', language: 'de' })).json().testId as string;
    const undeclared = (await h.admin('POST', '/api/admin/v1/tests', { ...translated, title: 'Undeclared' })).json().testId as string;
    for (const id of [declared, undeclared]) expect((await h.admin('PUT', `/api/admin/v1/tests/${id}/publications/${tenant.institutionId}`)).statusCode).toBe(204);
    const body = (await h.partner(tenant, 'GET', URL_)).json();
    const byId = new Map(body.data.map((t: { testId: string }) => [t.testId, t]));
    expect(byId.get(declared)).toMatchObject({ title: 'Rechnen', language: 'de', languages: ['de', 'ar', 'fr'] });
    // A test without a declared language is read as English (docs/test-format.md): null, and `en` first.
    expect(byId.get(undeclared)).toMatchObject({ title: 'Undeclared', language: null, languages: ['en', 'ar', 'fr'] });
    // The source's title stays the listing's, and no translated text is sent.
    expect(JSON.stringify(body)).not.toMatch(/Arithmétique|الحساب|2 \+ 2/);
    // Another institution sees neither test, nor anything of their languages.
    const other = (await h.partner(h.b, 'GET', `${URL_}?limit=100`)).json();
    expect(other.data.map((t: { testId: string }) => t.testId)).toEqual([h.b.testId]);
    expect(other.data[0]).toMatchObject({ language: null, languages: ['en'] });
    // The batched listing answers the same.
    const together = await Promise.all([h.partner(tenant, 'GET', URL_), h.partner(h.b, 'GET', `${URL_}?limit=100`)]);
    expect(together.map((r) => r.json())).toEqual([body, other]);
  });
});

describe('listings requested together', () => {
  it('share one statement, and each gets its own institution, page and total', async () => {
    const queries: Array<[Tenant, string]> = [
      [many, '?limit=5&offset=0'],
      [h.a, ''],
      [many, '?limit=5&offset=20'],
      [h.b, '?limit=1'],
      [many, '?limit=5&offset=25'],
      [many, '?limit=3&offset=7'],
    ];
    const expected = [];
    for (const [tenant, query] of queries) expected.push((await h.partner(tenant, 'GET', `${URL_}${query}`)).json());
    const spy = vi.spyOn(h.pool, 'query');
    let together;
    try {
      together = await Promise.all(queries.map(([tenant, query]) => h.partner(tenant, 'GET', `${URL_}${query}`)));
      const names = spy.mock.calls.map(([config]) => (config as { name?: string }).name).filter((n) => n?.startsWith('list-published-tests'));
      expect(names).toEqual(['list-published-tests-batch']);
    } finally {
      spy.mockRestore();
    }
    expect(together.map((r) => r.json())).toEqual(expected);
    // The pages really differ: another institution's one test, a page past the end with its total, a page in the middle.
    expect(expected[3]).toMatchObject({ total: 1, data: [{ testId: h.b.testId }] });
    expect(expected[4]).toMatchObject({ total: 25, data: [] });
    expect(expected[5].data.map((t: { testId: string }) => t.testId)).toEqual(manyIds.slice(7, 10));
  });
});

