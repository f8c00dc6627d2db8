import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../helpers/harness.js';
import { expectError } from '../helpers/expect-error.js';
import { RESPONSES_HEADER, seedResponses } from '../helpers/responses.js';
import { publishedVersion, seedAttempts } from '../helpers/results.js';

/** GET /api/admin/v1/institutions/{id}/responses.csv: one row per candidate and question, the answer in words, marks, filters, tenants, audit. */
let h: Harness;
let seeded: { testId: string; assignmentId: string };
beforeAll(async () => {
  h = await createHarness();
  seeded = await seedResponses(h, h.a);
  // Another institution's candidate of its own test.
  const other = await publishedVersion(h, h.b, { title: 'Other', description: '', durationMinutes: 5, proctoring: 'none', marking: 'auto', resultVisibility: 'immediate', passPercent: null, questions: [{ id: 'q1', type: 'numeric', prompt: '1 + 1?', points: 1, answer: 2 }] });
  await seedAttempts(h, h.b, other, 1, [{ externalUserId: 'beta-1', delivery: { sections: [{ sectionId: 'main', questionIds: ['q1'] }], optionOrder: {}, itemOrder: {} }, answers: { q1: '2' }, marks: { q1: 1 } }]);
});
afterAll(() => h?.close());

const get = (institutionId: string, query = '') => h.admin('GET', `/api/admin/v1/institutions/${institutionId}/responses.csv${query ? `?${query}` : ''}`);
const rows = (body: string): Array<Record<string, string>> => parse(body, { bom: true, columns: true });

describe('responses CSV', () => {
  it('gives one row per question in the order shown, each answer in words, with marks and criterion marks', async () => {
    const res = await get(h.a.institutionId, `testId=${seeded.testId}`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.rawPayload.subarray(0, 3)).toEqual(Buffer.from([0xef, 0xbb, 0xbf]));
    expect(res.body.replace(/^\uFEFF/, '').split('\r\n')[0]).toBe(RESPONSES_HEADER);
    // The title's accents and quotes in filename*, an ASCII stand-in in filename (the slash and colon made safe for a file system).
    expect(res.headers['content-disposition']).toMatch(
      /^attachment; filename="Geographie- Europe 1-2 - responses - \d{4}-\d\d-\d\d\.csv"; filename\*=UTF-8''G%C3%A9ographie-%20%E2%80%9CEurope%E2%80%9D%201-2%20-%20responses%20-%20\d{4}-\d\d-\d\d\.csv$/,
    );
    const data = rows(res.body);
    expect(data.map((r) => [r.section, r.questionNumber, r.questionId, r.questionType])).toEqual([
      ['Facts', '1', 'capital', 'single_choice'],
      ['Facts', '2', 'pairs', 'matching'],
      ['Facts', '3', 'depth', 'numeric'],
      ['Facts', '4', 'both', 'composite'],
      ['Writing', '5', 'essay', 'essay'],
      ['Writing', '6', 'map', 'file_upload'],
    ]);
    for (const r of data) {
      expect(r).toMatchObject({ assignmentId: seeded.assignmentId, externalUserId: 'lti:plt_1:sub-42', name: 'Zoë Ångström', email: 'lti:plt_1:sub-42@seed.example', testId: seeded.testId, version: '1', livemode: 'true' });
      expect(`${r.submittedDate}T${r.submittedTime}.000Z`).toBe(r.submittedAt);
    }
    const by = Object.fromEntries(data.map((r) => [r.questionId, r]));
    // Markdown made plain, in the prompt and in the option chosen.
    expect(by.capital).toMatchObject({ prompt: 'Capital of France?', response: 'Paris', points: '1', maxPoints: '1', criteria: '', comment: '' });
    expect(by.pairs).toMatchObject({ response: 'Spain → Madrid; Italy → Madrid', points: '1', maxPoints: '2' });
    // A number stays a number: no formula guard on -3.
    expect(by.depth!.response).toBe('-3');
    expect(res.body).toContain(',-3,1,1,,');
    expect(by.both).toMatchObject({ response: 'Part 1: Russia; Part 2: 26', maxPoints: '2' });
    // Typed text that looks like a formula is neutralised; the reviewer's criteria with their comments.
    expect(by.essay).toMatchObject({ response: "'=SUM(A1) flows north.", points: '3', maxPoints: '4', criteria: 'Content: 2.5 (Mostly right); Style: 0.5', comment: 'Good' });
    expect(by.map).toMatchObject({ prompt: 'Upload your map.', response: 'Rhine map (final).pdf', points: '2', maxPoints: '2' });
  });

  it('honours the filters and the mode, and never crosses institutions', async () => {
    const ids = async (institutionId: string, q: string) => [...new Set(rows((await get(institutionId, q)).body).map((r) => r.externalUserId))];
    expect(await ids(h.a.institutionId, '')).toEqual(['lti:plt_1:sub-42']);
    expect(await ids(h.a.institutionId, 'externalUserId=lti:')).toEqual(['lti:plt_1:sub-42']);
    expect(await ids(h.a.institutionId, 'externalUserId=nobody')).toEqual([]);
    expect(await ids(h.a.institutionId, 'status=expired')).toEqual([]);
    expect(await ids(h.a.institutionId, 'livemode=false')).toEqual([]);
    expect(await ids(h.b.institutionId, '')).toEqual(['beta-1']);
    // B asking for A's test: nothing of A, and the file is not named by A's test.
    const foreign = await get(h.b.institutionId, `testId=${seeded.testId}`);
    expect(rows(foreign.body)).toEqual([]);
    expect(foreign.headers['content-disposition']).toMatch(/^attachment; filename="responses-ins_/);
    expectError(await get('ins_unknown'), 404, 'not_found');
  });

  it('is audited, refuses bad filters with the envelope, and asks for the operator token', async () => {
    await h.pool.query("DELETE FROM audit_log WHERE action = 'results.exported'");
    expect((await get(h.a.institutionId, `testId=${seeded.testId}`)).statusCode).toBe(200);
    const { rows: entries } = await h.pool.query("SELECT actor_kind, object_id, institution_id, details FROM audit_log WHERE action = 'results.exported'");
    expect(entries).toEqual([{ actor_kind: 'operator_token', object_id: h.a.institutionId, institution_id: h.a.institutionId, details: { export: 'responses.csv', testId: seeded.testId, livemode: true } }]);
    expectError(await get(h.a.institutionId, 'createdFrom=2026-02-30'), 400, 'invalid_request');
    expectError(await get(h.a.institutionId, 'bogus=1'), 400, 'invalid_request');
    expectError(await h.app.inject({ method: 'GET', url: `/api/admin/v1/institutions/${h.a.institutionId}/responses.csv` }), 401, 'unauthenticated');
    expectError(await h.partner(h.a, 'GET', `/api/admin/v1/institutions/${h.a.institutionId}/responses.csv`), 401, 'unauthenticated');
    expect((await h.pool.query("SELECT 1 FROM audit_log WHERE action = 'results.exported'")).rowCount).toBe(1);
  });

  it('pages through a cursor: a batch of one assignment gives the same file and returns its connection', async () => {
    const { responsesCsv } = await import('../../src/modules/results/item-export.js');
    await seedAttempts(h, h.a, await publishedVersion(h, h.a, { title: 'Small', description: '', durationMinutes: 5, proctoring: 'none', marking: 'auto', resultVisibility: 'immediate', passPercent: null, questions: [{ id: 'q1', type: 'numeric', prompt: '1 + 1?', points: 1, answer: 2 }] }), 1, [
      { externalUserId: 'later-1', delivery: { sections: [{ sectionId: 'main', questionIds: ['q1'] }], optionOrder: {}, itemOrder: {} }, answers: { q1: '2' }, marks: { q1: 1 } },
      { externalUserId: 'later-2', delivery: { sections: [{ sectionId: 'main', questionIds: ['q1'] }], optionOrder: {}, itemOrder: {} }, answers: {}, marks: { q1: 0 } },
    ]);
    const stream = await responsesCsv(h.pool, { institutionId: h.a.institutionId, livemode: true }, { batch: 1 });
    let text = '';
    for await (const chunk of stream) text += chunk;
    const whole = (await get(h.a.institutionId)).body;
    expect(text).toBe(whole);
    expect(rows(whole).map((r) => [r.externalUserId, r.questionId, r.response])).toContainEqual(['later-2', 'q1', '']);
    expect(h.pool.idleCount).toBe(h.pool.totalCount);
  });
});
