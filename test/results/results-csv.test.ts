import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestInput } from '../../src/modules/catalog/schemas.js';
import { createHarness, type Harness } from '../helpers/harness.js';
import { expectError } from '../helpers/expect-error.js';
import { publishedVersion, seedAttempts } from '../helpers/results.js';
import { seedScoredAttempts } from '../../scripts/seed-results.js';

/** GET /api/admin/v1/institutions/{id}/results.csv: columns, quoting, formula injection, filters, modes, tenants. */
const SECTIONED: TestInput = {
  title: 'Sectioned, "quoted", with a comma',
  description: '',
  durationMinutes: 10,
  proctoring: 'none',
  marking: 'auto',
  resultVisibility: 'immediate',
  passPercent: 50,
  sections: [
    { id: 'alg', title: 'Algebra', questions: [{ id: 'q1', type: 'numeric', prompt: '1 + 1?', points: 2, answer: 2 }] },
    { id: 'geo', title: '=Geometry', questions: [{ id: 'q2', type: 'numeric', prompt: '2 + 2?', points: 2, answer: 4 }] },
  ],
};
const delivery = { sections: [{ sectionId: 'alg', questionIds: ['q1'] }, { sectionId: 'geo', questionIds: ['q2'] }], optionOrder: {}, itemOrder: {} };
const sections = (a: { marks: Record<string, number> }) => [
  { sectionId: 'alg', title: 'Algebra', points: a.marks.q1!, maxPoints: 2, percent: a.marks.q1! * 50 },
  { sectionId: 'geo', title: '=Geometry', points: a.marks.q2!, maxPoints: 2, percent: a.marks.q2! * 50 },
];
const attempt = (externalUserId: string, q1: number, q2: number, name?: string) => ({ externalUserId, ...(name ? { name } : {}), delivery, answers: {}, marks: { q1, q2 } });

const NASTY = ['=HYPERLINK("http://evil.example")', '+1+2', '-3', '@SUM(A1)', '\tTabbed', '\rReturn', 'comma, "quote"\nnewline'];

let h: Harness;
let test: { testId: string; testVersionId: string };
let ids: string[];
beforeAll(async () => {
  h = await createHarness();
  test = await publishedVersion(h, h.a, SECTIONED);
  const seed = { institutionId: h.a.institutionId, ...test, livemode: true, maxPoints: 4, passPercent: 50, sections };
  ids = await seedScoredAttempts(h.pool, { ...seed, createdAt: new Date('2026-03-02T09:00:00Z') }, NASTY.map((n, i) => attempt(n, i % 3, 2)));
  await seedScoredAttempts(h.pool, { ...seed, createdAt: new Date('2026-04-10T09:00:00Z') }, [attempt('april-1', 2, 2, 'Zoë Ångström-Núñez'), attempt('april-2', 0, 0, '=cmd|calc')]);
  await seedScoredAttempts(h.pool, { ...seed, livemode: false, createdAt: new Date('2026-04-10T09:00:00Z') }, [attempt('sandbox-1', 1, 1)]);
  // Flags on the first assignment: two warnings (one confirmed), one critical dismissed.
  const flag = (n: number, severity: string, outcome: string | null) =>
    h.pool.query(
      `INSERT INTO proctoring_flags (id, institution_id, assignment_id, signal_id, kind, severity, started_at, duration_seconds, ongoing, review_outcome, created_at, updated_at)
       VALUES ($1, $2, $3, $4, 'left_test', $5, now(), 3, false, $6, now(), now())`,
      [`flg_t${n}`, h.a.institutionId, ids[0], `sig-${n}`, severity, outcome],
    );
  await flag(1, 'warning', 'confirmed');
  await flag(2, 'warning', null);
  await flag(3, 'critical', 'dismissed');
  // Another institution's results of its own test.
  const other = await publishedVersion(h, h.b, { ...SECTIONED, title: 'Other' });
  await seedAttempts(h, h.b, other, 4, [attempt('other-1', 2, 2)]);
});
afterAll(() => h?.close());

const csv = (institutionId: string, query = '') => h.admin('GET', `/api/admin/v1/institutions/${institutionId}/results.csv${query ? `?${query}` : ''}`);
const rows = (body: string): Array<Record<string, string>> => parse(body, { bom: true, columns: true, relax_quotes: false });

describe('results CSV', () => {
  it('has a header and one row per assignment, with section columns for one test, quoted and neutralised', async () => {
    const res = await csv(h.a.institutionId, `testId=${test.testId}`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    // The test's title names the file: an ASCII stand-in, and the real name in RFC 5987's form.
    expect(res.headers['content-disposition']).toMatch(
      /^attachment; filename="Sectioned, 'quoted', with a comma - results - \d{4}-\d\d-\d\d\.csv"; filename\*=UTF-8''Sectioned%2C%20%27quoted%27%2C%20with%20a%20comma%20-%20results%20-%20\d{4}-\d\d-\d\d\.csv$/,
    );
    // A UTF-8 byte order mark first, so a spreadsheet reads the names in any script.
    expect(res.rawPayload.subarray(0, 3)).toEqual(Buffer.from([0xef, 0xbb, 0xbf]));
    const [header] = res.body.replace(/^\uFEFF/, '').split('\r\n');
    expect(header).toBe(
      "assignmentId,externalUserId,name,email,testId,testTitle,version,livemode,status,createdAt,startedAt,submittedAt,completedAt,dueAt," +
        'createdDate,createdTime,startedDate,startedTime,submittedDate,submittedTime,completedDate,completedTime,dueDate,dueTime,' +
        "points,maxPoints,percent,passed,gradingStatus,section: Algebra (%),section: =Geometry (%),flagsInfo,flagsWarning,flagsCritical,flagsConfirmed,flagsDismissed",
    );
    const data = rows(res.body);
    expect(data).toHaveLength(9);
    // Oldest first; every nasty id survives the round trip, dangerous ones behind a quote mark.
    expect(data.slice(0, 7).map((r) => r.externalUserId)).toEqual(NASTY.map((n) => (/^[=+\-@\t\r]/.test(n) ? `'${n}` : n)));
    const first = data[0]!;
    expect(first).toMatchObject({
      assignmentId: ids[0],
      testId: test.testId,
      testTitle: 'Sectioned, "quoted", with a comma',
      version: '1',
      livemode: 'true',
      status: 'completed',
      points: '2',
      maxPoints: '4',
      percent: '50',
      passed: 'true',
      gradingStatus: 'final',
      'section: Algebra (%)': '0',
      'section: =Geometry (%)': '100',
      flagsInfo: '0',
      flagsWarning: '2',
      flagsCritical: '1',
      flagsConfirmed: '1',
      flagsDismissed: '1',
      dueAt: '',
    });
    expect(new Date(first.completedAt!).toISOString()).toBe(first.completedAt);
    // The same moment as a date and a time of day (UTC) a spreadsheet reads as such; a moment not reached leaves both empty.
    expect(`${first.completedDate}T${first.completedTime}.000Z`).toBe(first.completedAt);
    expect(first).toMatchObject({ createdDate: '2026-03-02', createdTime: '09:00:00', dueDate: '', dueTime: '' });
    // Name and email as the partner sent them; a name that looks like a formula is neutralised like any text.
    expect(first).toMatchObject({ name: '', email: `'${NASTY[0]}@seed.example` });
    expect(data[7]).toMatchObject({ externalUserId: 'april-1', name: 'Zoë Ångström-Núñez', email: 'april-1@seed.example' });
    expect(data[8]).toMatchObject({ externalUserId: 'april-2', name: "'=cmd|calc", percent: '0', passed: 'false', flagsWarning: '0' });
    // The raw text: the comma/quote/newline id is one quoted field with its quotes doubled.
    expect(res.body).toContain('"comma, ""quote""\nnewline"');
    expect(res.body).toContain(`"'=HYPERLINK(""http://evil.example"")"`);
  });

  it('encodes the sections in one column when the export spans tests, and names the file by the institution', async () => {
    const res = await csv(h.a.institutionId);
    expect(res.headers['content-disposition']).toMatch(new RegExp(`^attachment; filename="results-${h.a.institutionId}-\\d{4}-\\d\\d-\\d\\d\\.csv"; filename\\*=UTF-8''results-${h.a.institutionId}-`));
    const data = rows(res.body);
    expect(Object.keys(data[0]!)).toContain('sections');
    expect(data.find((r) => r.externalUserId === 'april-1')!.sections).toBe('Algebra: 100; =Geometry: 100');
  });

  it('honours the filters: status, test, external user id prefix, creation days, mode', async () => {
    const ext = (q: string) => async () => rows((await csv(h.a.institutionId, q)).body).map((r) => r.externalUserId);
    expect(await ext('externalUserId=april')()).toEqual(['april-1', 'april-2']);
    expect(await ext('createdFrom=2026-04-01')()).toEqual(['april-1', 'april-2']);
    expect(await ext('createdTo=2026-03-02')()).toHaveLength(7);
    expect(await ext('createdFrom=2026-03-03&createdTo=2026-04-09')()).toEqual([]);
    expect(await ext('status=expired')()).toEqual([]);
    expect(await ext('status=completed')()).toHaveLength(9);
    expect(await ext('testId=tst_other')()).toEqual([]);
    // Test-mode rows only with livemode=false, and then only they.
    expect(await ext('livemode=false')()).toEqual(['sandbox-1']);
    expect(rows((await csv(h.a.institutionId, 'livemode=false')).body)[0]!.livemode).toBe('false');
  });

  it("gives each institution its own rows only; an unknown institution is not found", async () => {
    expect(rows((await csv(h.b.institutionId)).body).map((r) => r.externalUserId)).toEqual(['other-1']);
    expectError(await csv('ins_unknown'), 404, 'not_found');
    // Another institution's test names no file, and exports nothing of A.
    const foreign = await csv(h.b.institutionId, `testId=${test.testId}`);
    expect(foreign.headers['content-disposition']).toMatch(/^attachment; filename="results-ins_/);
    expect(rows(foreign.body)).toEqual([]);
  });

  it('writes an audit entry per export: the operator token, the institution, the filters', async () => {
    await h.pool.query("DELETE FROM audit_log WHERE action = 'results.exported'");
    expect((await csv(h.a.institutionId, 'status=completed&createdFrom=2026-04-01&createdTo=2026-04-30&livemode=false')).statusCode).toBe(200);
    const { rows: entries } = await h.pool.query("SELECT actor_kind, object_type, object_id, institution_id, details FROM audit_log WHERE action = 'results.exported'");
    expect(entries).toEqual([
      {
        actor_kind: 'operator_token',
        object_type: 'institution',
        object_id: h.a.institutionId,
        institution_id: h.a.institutionId,
        details: { export: 'results.csv', status: 'completed', createdFrom: '2026-04-01', createdTo: '2026-04-30', livemode: false },
      },
    ]);
    // A refused export is no export.
    expectError(await csv(h.a.institutionId, 'createdFrom=yesterday'), 400, 'invalid_request');
    expect((await h.pool.query("SELECT 1 FROM audit_log WHERE action = 'results.exported'")).rowCount).toBe(1);
  });

  it('refuses bad filters with the error envelope, and asks for the operator token', async () => {
    expectError(await csv(h.a.institutionId, 'createdFrom=2026-02-30'), 400, 'invalid_request');
    expectError(await csv(h.a.institutionId, 'createdFrom=yesterday'), 400, 'invalid_request');
    expectError(await csv(h.a.institutionId, 'createdFrom=2026-05-02&createdTo=2026-05-01'), 400, 'invalid_request');
    expectError(await csv(h.a.institutionId, 'status=finished'), 400, 'invalid_request');
    expectError(await csv(h.a.institutionId, 'livemode=perhaps'), 400, 'invalid_request');
    expectError(await csv(h.a.institutionId, 'mode=all'), 400, 'invalid_request');
    expectError(await h.app.inject({ method: 'GET', url: `/api/admin/v1/institutions/${h.a.institutionId}/results.csv` }), 401, 'unauthenticated');
    expectError(await h.partner(h.a, 'GET', `/api/admin/v1/institutions/${h.a.institutionId}/results.csv`), 401, 'unauthenticated');
  });

  it('streams in batches: a small batch size gives the same file', async () => {
    const { resultsCsv } = await import('../../src/modules/results/results-csv.js');
    const stream = await resultsCsv(h.pool, { institutionId: h.a.institutionId, livemode: true }, { batch: 2 });
    let text = '';
    for await (const chunk of stream) text += chunk;
    expect(text).toBe((await csv(h.a.institutionId)).body);
    // Every connection went back to the pool.
    expect(h.pool.idleCount).toBe(h.pool.totalCount);
  });
});
