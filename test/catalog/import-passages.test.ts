import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, createHarness, type Harness } from '../helpers/harness.js';
import { poemPackage, riverPackage } from '../helpers/qti-passages.js';

/** Packages with shared stimuli, and a mislabelled one, through POST /tests/import and GET /tests/{id}/export. */
const A = '/api/admin/v1';
let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(() => h.close());

const importZip = (zip: Uint8Array, query = '') =>
  h.app.inject({ method: 'POST', url: `${A}/tests/import${query}`, headers: { 'content-type': 'application/zip', authorization: `Bearer ${ADMIN_TOKEN}` }, payload: Buffer.from(zip) });

describe('importing shared passages', () => {
  it('a manifest that labels its stimulus a test imports (201) with the stimulus skipped in the report, and the passage shared by both questions', async () => {
    const dry = await importZip(riverPackage('manifest-mislabelled.xml'), '?dryRun=true');
    expect(dry.statusCode).toBe(200);
    const res = await importZip(riverPackage('manifest-mislabelled.xml'));
    expect(res.statusCode).toBe(201);
    const body = res.json();
    expect(body.report.imported).toBe(2);
    expect(body.report.skipped).toEqual([expect.objectContaining({ file: 'stimuli/river.xml', identifier: 'river-text', reason: expect.stringContaining('the manifest labels it a test') })]);
    // A dry run reports what the import does.
    expect(dry.json().report).toEqual(body.report);
    const test = (await h.admin('GET', `${A}/tests/${body.testId}`)).json();
    expect(test.passages).toEqual([{ id: 'river-text', title: 'The flood', text: 'The river rose for three days.\n\nOn the fourth, the bridge closed.' }]);
    expect(test.questions.map((q: { passageId: string }) => q.passageId)).toEqual(['river-text', 'river-text']);
    expect(dry.json().test.passages).toEqual(test.passages);
  });

  it('a QTI 2.1 package with a shared XHTML object imports its passage', async () => {
    const res = await importZip(poemPackage());
    expect(res.statusCode).toBe(201);
    const test = (await h.admin('GET', `${A}/tests/${res.json().testId}`)).json();
    expect(test.passages).toEqual([{ id: 'passage1', title: 'A short poem', text: 'Roses are red,\nviolets are blue.' }]);
  });

  it('export then import gives the same passages and references', async () => {
    const first = (await importZip(riverPackage())).json();
    const exported = await h.app.inject({ method: 'GET', url: `${A}/tests/${first.testId}/export?format=qti3`, headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    expect(exported.statusCode).toBe(200);
    const again = await importZip(exported.rawPayload);
    expect(again.statusCode).toBe(201);
    const [a, b] = await Promise.all([first.testId, again.json().testId].map(async (id: string) => (await h.admin('GET', `${A}/tests/${id}`)).json()));
    expect(b.passages).toEqual(a.passages);
    expect(b.questions.map((q: { passageId: string }) => q.passageId)).toEqual(a.questions.map((q: { passageId: string }) => q.passageId));
  });
});
