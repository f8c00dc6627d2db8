import { unzipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, createHarness, type Harness } from '../helpers/harness.js';
import { expectError } from '../helpers/expect-error.js';
import { fixture, itemsPackage, zipOf, manifest } from '../helpers/qti.js';

const A = '/api/admin/v1';
let h: Harness;

beforeAll(async () => {
  h = await createHarness();
});
afterAll(() => h.close());

function post(url: string, body: Uint8Array | string, contentType: string, auth: string | null = ADMIN_TOKEN) {
  return h.app.inject({
    method: 'POST',
    url,
    headers: { 'content-type': contentType, ...(auth ? { authorization: `Bearer ${auth}` } : {}) },
    payload: Buffer.from(body),
  });
}
const countTests = async () => Number((await h.pool.query('SELECT count(*) FROM tests')).rows[0].count);

const SUPPORTED = ['choice-single.xml', 'choice-multiple-partial.xml', 'text-entry-string.xml', 'match.xml', 'fill-blanks.xml', 'extended-text.xml'];

describe('POST /tests/import (QTI package)', () => {
  it('imports a package: 201 with the test id, version 1 and the report; the test reads back with the mapped questions', async () => {
    const res = await post(`${A}/tests/import`, itemsPackage([...SUPPORTED, 'skip-hotspot.xml'], '2.2'), 'application/zip');
    expect(res.statusCode).toBe(201);
    const body = res.json();
    expect(body).toMatchObject({ testId: expect.stringMatching(/^tst_/), version: 1, report: { imported: 6 } });
    expect(body.report.skipped).toEqual([{ file: 'items/skip-hotspot.xml', identifier: 'skip-hotspot', interaction: 'hotspot-interaction', reason: 'the graphic interaction shows no image' }]);
    expect(body.report.items.map((i: { questionId: string }) => i.questionId)).toEqual(['planets-1', 'mammals-4', 'capital-5', 'authors-10', 'water-12', 'essay-9']);
    const test = (await h.admin('GET', `${A}/tests/${body.testId}`)).json();
    expect(test).toMatchObject({ title: 'Imported test', marking: 'hybrid', resultVisibility: 'after_review', version: 1 });
    expect(test.questions.map((q: { type: string }) => q.type)).toEqual(['single_choice', 'multiple_choice', 'short_text', 'matching', 'fill_blanks', 'essay']);
  });

  it('?title= names the test', async () => {
    const res = await post(`${A}/tests/import?title=Biology%20bank`, itemsPackage(['choice-single.xml']), 'application/zip');
    expect((await h.admin('GET', `${A}/tests/${res.json().testId}`)).json().title).toBe('Biology bank');
  });

  it('?dryRun=true answers the report and the test it would create, and creates nothing', async () => {
    const before = await countTests();
    const res = await post(`${A}/tests/import?dryRun=true`, itemsPackage(['choice-single.xml', 'skip-custom-rp.xml']), 'application/zip');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ dryRun: true, testId: null, version: null, report: { imported: 1, skipped: [{ identifier: 'skip-custom' }] }, test: { questions: [{ id: 'planets-1' }] } });
    expect(await countTests()).toBe(before);
  });

  it('nothing importable: 422 import_failed with each skipped item in details, nothing created', async () => {
    const before = await countTests();
    const res = await post(`${A}/tests/import`, itemsPackage(['skip-hotspot.xml', 'skip-negative.xml']), 'application/zip');
    const body = expectError(res, 422, 'import_failed');
    expect(body.error.details).toEqual([
      { field: 'items/skip-hotspot.xml#skip-hotspot', message: 'hotspot-interaction: the graphic interaction shows no image' },
      { field: 'items/skip-negative.xml#skip-negative', message: expect.stringMatching(/^choice-interaction: map_response with points on several choices/) },
    ]);
    expect(await countTests()).toBe(before);
  });

  it('a broken zip, a missing manifest or malformed XML: 400 naming the file, nothing created', async () => {
    const before = await countTests();
    expectError(await post(`${A}/tests/import`, 'PK\u0003\u0004 broken', 'application/zip'), 400, 'invalid_request');
    const noManifest = expectError(await post(`${A}/tests/import`, zipOf({ 'items/a.xml': fixture('choice-single.xml') }), 'application/zip'), 400, 'invalid_request');
    expect(noManifest.error.details).toEqual([{ field: 'imsmanifest.xml', message: 'is missing: a QTI content package has imsmanifest.xml at its root' }]);
    const bad = zipOf({ 'imsmanifest.xml': manifest([{ path: 'items/bad.xml', xml: '' }], '3.0'), 'items/bad.xml': '<qti-assessment-item>' });
    const malformed = expectError(await post(`${A}/tests/import`, bad, 'application/zip'), 400, 'invalid_request');
    expect(malformed.error.details![0]!.field).toBe('items/bad.xml');
    expect(malformed.error.message).toMatch(/^items\/bad\.xml is not well-formed XML/);
    expect(await countTests()).toBe(before);
  });

  it('another media type: 415; an empty body: 400', async () => {
    expectError(await post(`${A}/tests/import`, '{}', 'application/json'), 415, 'unsupported_media_type');
    const plain = expectError(await post(`${A}/tests/import`, 'hello', 'text/plain'), 415, 'unsupported_media_type');
    expect(plain.error.message).toBe('Send the body with a Content-Type this route takes: application/zip, application/x-zip-compressed, text/csv.');
    expectError(await post(`${A}/tests/import`, '', 'application/zip'), 400, 'invalid_request');
  });

  it('the route takes packages far over the 64 KB JSON limit; the rest of the API keeps it', async () => {
    const pad = new Uint8Array(200 * 1024).map((_, i) => (i * 7919) % 251); // incompressible, ~200 KB
    const res = await post(`${A}/tests/import?dryRun=true`, itemsPackage(['choice-single.xml'], '3.0', { 'padding.bin': pad }), 'application/zip');
    expect(res.statusCode).toBe(200);
    const big = { title: 'x'.repeat(70 * 1024) };
    expectError(await h.admin('POST', `${A}/tests`, big), 413, 'payload_too_large');
  });

  it('a body over the 50 MB import limit: 413 naming that limit', async () => {
    const body = expectError(await post(`${A}/tests/import`, new Uint8Array(50 * 1024 * 1024 + 1), 'application/zip'), 413, 'payload_too_large');
    expect(body.error.message).toBe('The import is larger than the limit of 50 MB.');
  });

  it('operator only: no token and an institution key are refused like every admin route', async () => {
    const zip = itemsPackage(['choice-single.xml']);
    expectError(await post(`${A}/tests/import`, zip, 'application/zip', null), 401, 'unauthenticated');
    expectError(await post(`${A}/tests/import`, zip, 'application/zip', h.a.apiKey), 401, 'unauthenticated');
    expectError(await h.app.inject({ method: 'GET', url: `${A}/tests/${h.a.testId}/export?format=qti3`, headers: { authorization: `Bearer ${h.a.apiKey}` } }), 401, 'unauthenticated');
  });
});

describe('POST /tests/import (CSV)', () => {
  const CSV = [
    'section,type,prompt,points,options,correct,accepted_answers,tolerance,case_sensitive,partial_credit,text,draw',
    'Basics,single_choice,Largest planet?,1,Mars|Jupiter|Venus,2,,,,,,',
    'Basics,multiple_choice,Primes?,2,2|3|4,1|2,,,,true,,',
    'Basics,short_text,Capital of France?,1,,,Paris|paris city,,,,,',
    'Pool,numeric,Pi to two places,2,,3.14,,0.005,,,,1',
    'Pool,fill_blanks,Complete,2,,,,,,,"Water is {{H2O|water}} and {{*wet|dry}}.",',
  ].join('\n');

  it('imports one question per row, sections and pools from the section and draw columns', async () => {
    const res = await post(`${A}/tests/import?title=From%20a%20sheet`, CSV, 'text/csv');
    expect(res.statusCode).toBe(201);
    expect(res.json().report).toMatchObject({ imported: 5, skipped: [] });
    const test = (await h.admin('GET', `${A}/tests/${res.json().testId}`)).json();
    expect(test.title).toBe('From a sheet');
    expect(test.sections.map((s: { title: string; draw?: number; questions: unknown[] }) => [s.title, s.draw, s.questions.length])).toEqual([['Basics', undefined, 3], ['Pool', 1, 2]]);
    const [sc, mc, st] = test.sections[0].questions;
    expect(sc).toMatchObject({ type: 'single_choice', correctOptionId: 'b', options: [{ id: 'a', text: 'Mars' }, { id: 'b', text: 'Jupiter' }, { id: 'c', text: 'Venus' }] });
    expect(mc).toMatchObject({ type: 'multiple_choice', correctOptionIds: ['a', 'b'], partialCredit: true, points: 2 });
    expect(st).toMatchObject({ acceptedAnswers: ['Paris', 'paris city'], caseSensitive: false });
    expect(test.sections[1].questions[0]).toMatchObject({ type: 'numeric', answer: 3.14, tolerance: 0.005 });
    expect(test.sections[1].questions[1]).toMatchObject({
      type: 'fill_blanks',
      text: 'Water is {{b1}} and {{b2}}.',
      blanks: [{ id: 'b1', kind: 'text', acceptedAnswers: ['H2O', 'water'] }, { id: 'b2', kind: 'choice', options: [{ text: 'wet' }, { text: 'dry' }], correctOptionId: 'a' }],
    });
  });

  it("the report names each row's question by the id the stored test gave it, and the import is in the audit log", async () => {
    const res = await post(`${A}/tests/import?title=Ids%20given`, CSV, 'text/csv');
    expect(res.statusCode).toBe(201);
    const { testId, version, report } = res.json();
    const test = (await h.admin('GET', `${A}/tests/${testId}`)).json();
    const stored = test.sections.flatMap((s: { questions: Array<{ id: string }> }) => s.questions.map((q) => q.id));
    expect(stored).toHaveLength(5);
    expect(report.items.map((i: { questionId: string }) => i.questionId)).toEqual(stored);
    expect(version).toBe(test.version);
    const { rows } = await h.pool.query('SELECT action, details FROM audit_log WHERE object_type = $1 AND object_id = $2', ['test', testId]);
    expect(rows).toEqual([{ action: 'test.created', details: { title: 'Ids given', version: 1 } }]);
  });

  it('every error is reported by row and column, and nothing is created', async () => {
    const before = await countTests();
    const bad = [
      'type,prompt,points,options,correct,colour',
      'single_choice,Pick,1,A|B,3,',
      'numeric,How many?,abc,,x,',
      'essay_question,Write,1,,,',
    ].join('\n');
    const header = expectError(await post(`${A}/tests/import`, bad, 'text/csv'), 400, 'invalid_request');
    expect(header.error.details).toEqual([{ field: 'row 1, column 6', message: expect.stringMatching(/^"colour" is not a known column/) }]);
    const rows = expectError(await post(`${A}/tests/import`, bad.replace(',colour', '').replace(/,$/gm, ''), 'text/csv'), 400, 'invalid_request');
    expect(rows.error.details).toEqual([
      { field: 'row 2, correct', message: '"3" is neither an option number (1–2) nor an option\'s text' },
      { field: 'row 3, points', message: '"abc" is not a number' },
      { field: 'row 3, correct', message: '"x" is not a number' },
      { field: 'row 4, type', message: expect.stringMatching(/^"essay_question" is not a question type/) },
    ]);
    expect(await countTests()).toBe(before);
  });

  it('takes text/csv with a charset parameter, and a UTF-8 BOM from a spreadsheet', async () => {
    const res = await post(`${A}/tests/import?dryRun=true`, '\uFEFFtype,prompt,correct\nnumeric,Deux plus deux ?,4\n', 'text/csv; charset=utf-8');
    expect(res.statusCode).toBe(200);
    expect(res.json().test.questions).toEqual([{ type: 'numeric', prompt: 'Deux plus deux ?', points: 1, answer: 4, tolerance: 0 }]);
  });

  it('authoring rules are reported by row too (a pool of unequal points)', async () => {
    const csv = ['section,type,prompt,points,correct,draw', 'P,numeric,One,1,1,1', 'P,numeric,Two,2,2,'].join('\n');
    const body = expectError(await post(`${A}/tests/import`, csv, 'text/csv'), 400, 'invalid_request');
    expect(body.error.details).toEqual([{ field: 'row 2, draw', message: expect.stringMatching(/must have equal points/) }]);
  });
});

describe('GET /tests/{testId}/export?format=qti3', () => {
  it('answers a QTI 3.0 zip that imports back to the same questions', async () => {
    const created = (await post(`${A}/tests/import`, itemsPackage(SUPPORTED, '3.0'), 'application/zip')).json();
    const res = await h.admin('GET', `${A}/tests/${created.testId}/export?format=qti3`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/zip');
    expect(res.headers['content-disposition']).toBe(`attachment; filename="${created.testId}-qti3.zip"`);
    expect(Object.keys(unzipSync(res.rawPayload))).toContain('imsmanifest.xml');
    const again = (await post(`${A}/tests/import`, res.rawPayload, 'application/zip')).json();
    const a = (await h.admin('GET', `${A}/tests/${created.testId}`)).json();
    const b = (await h.admin('GET', `${A}/tests/${again.testId}`)).json();
    expect(b.questions).toEqual(a.questions);
  });

  it('an unknown test: 404; a format other than qti3: 400', async () => {
    expectError(await h.admin('GET', `${A}/tests/tst_nope/export?format=qti3`), 404, 'not_found');
    expectError(await h.admin('GET', `${A}/tests/${h.a.testId}/export?format=qti2`), 400, 'invalid_request');
  });
});
