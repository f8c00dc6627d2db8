import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, createHarness, type Harness } from '../helpers/harness.js';
import { expectError } from '../helpers/expect-error.js';
import { partnerReadsDuring } from '../helpers/read-during.js';
import { fixture, packageOf, zipOf, manifest } from '../helpers/qti.js';

/**
 * Hostile imports from the outside review (H2, M1, L2, L3), scaled down: each
 * is refused with 400 naming the file (or the CSV's row and column) after a
 * bounded amount of work on a pool thread, and a partner's read meanwhile is
 * answered within a second.
 */
const A = '/api/admin/v1';
let h: Harness;

beforeAll(async () => {
  h = await createHarness();
});
afterAll(() => h.close());

function post(body: Uint8Array | string, contentType: string, query = '') {
  return h.app.inject({
    method: 'POST',
    url: `${A}/tests/import${query}`,
    headers: { 'content-type': contentType, authorization: `Bearer ${ADMIN_TOKEN}` },
    payload: Buffer.from(body),
  });
}

/** The import over a real socket while a partner reads (test/helpers/read-during.ts). */
async function importDuringReads(body: Uint8Array | string, contentType: string) {
  return partnerReadsDuring(h, async (base) => {
    const res = await fetch(`${base}${A}/tests/import`, { method: 'POST', headers: { 'content-type': contentType, authorization: `Bearer ${ADMIN_TOKEN}` }, body: Buffer.from(body) });
    return { status: res.status, body: (await res.json()) as { error: { code: string; message: string; details?: Array<{ field: string; message: string }> } } };
  });
}

const countTests = async () => Number((await h.pool.query('SELECT count(*) FROM tests')).rows[0].count);
const countAssets = async () => Number((await h.pool.query('SELECT count(*) FROM assets')).rows[0].count);
const item = (prompt: string, attrs = '') => fixture('choice-single.xml').replace('<p>Which planet', `<p${attrs}>${prompt} Which planet`);
const onePackage = (xml: string | Uint8Array) =>
  zipOf({ 'imsmanifest.xml': manifest([{ path: 'items/a.xml', xml: '' }], '3.0'), 'items/a.xml': xml });
const CSV = 'text/csv';

describe('QTI packages past the limits: 400 naming the file, parsed off the event loop', () => {
  it('a 5 MB text node (an XML file over the 4 MB limit): refused, and a partner read meanwhile answers within 1 s', async () => {
    const before = await countTests();
    const run = await importDuringReads(onePackage(item('x'.repeat(5_000_000))), 'application/zip');
    expect(run.maxReadMs).toBeLessThan(1000);
    expect(run.result.status).toBe(400);
    expect(run.result.body.error.details).toEqual([{ field: 'items/a.xml', message: expect.stringMatching(/^is larger than the 4 MB an XML file may be/) }]);
    expect(run.maxLoopDelayMs).toBeLessThan(500);
    expect(await countTests()).toBe(before);
  });

  it('a text node over 1,000,000 characters in a file under the size limit: refused naming the file', async () => {
    const run = await importDuringReads(onePackage(item('y'.repeat(1_500_000))), 'application/zip');
    expect(run.maxReadMs).toBeLessThan(1000);
    expect(run.result.status).toBe(400);
    expect(run.result.body.error.details).toEqual([{ field: 'items/a.xml', message: expect.stringMatching(/text of more than 1,000,000 characters/) }]);
  });

  it('50,000 attributes on one element: refused naming the file', async () => {
    const attrs = Array.from({ length: 50_000 }, (_, i) => ` data-a${i}="1"`).join('');
    const run = await importDuringReads(onePackage(item('Q', attrs)), 'application/zip');
    expect(run.maxReadMs).toBeLessThan(1000);
    expect(run.result.status).toBe(400);
    expect(run.result.body.error.details).toEqual([{ field: 'items/a.xml', message: expect.stringMatching(/more than 256 attributes on one element/) }]);
  });

  it('M1: a NUL character in an item: 400 naming the file, not a 500', async () => {
    const res = await post(onePackage(item('Nul\u0000here')), 'application/zip');
    const body = expectError(res, 400, 'invalid_request');
    expect(body.error.details).toEqual([{ field: 'items/a.xml', message: expect.stringMatching(/U\+0000/) }]);
  });

  it('L3: an XML file that is not valid UTF-8 is refused naming the file, never read with U+FFFD in place', async () => {
    // "Café" with the é as the single Latin-1 byte 0xE9: not UTF-8, and the file declares no other encoding.
    const latin1 = Buffer.from(item('Caf\u00e9'), 'latin1');
    const res = await post(onePackage(latin1), 'application/zip');
    const body = expectError(res, 400, 'invalid_request');
    expect(body.error.details).toEqual([{ field: 'items/a.xml', message: expect.stringMatching(/is not valid UTF-8/) }]);
  });

  it('L2: an import refused by the whole-test check (51 sections) stores none of its images', async () => {
    const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 1, 2, 3]);
    const items = Array.from({ length: 51 }, (_, i) => ({
      path: `items/i${i}.xml`,
      xml: (i === 0 ? fixture('skip-image.xml') : fixture('choice-single.xml')).replace(/identifier="([^"]+)" title/, `identifier="$1-${i}" title`),
    }));
    const sections = items.map((f, i) => `<qti-assessment-section identifier="S${i}" title="S${i}" visible="true"><qti-assessment-item-ref identifier="r${i}" href="${f.path}"/></qti-assessment-section>`).join('');
    const test = `<qti-assessment-test xmlns="http://www.imsglobal.org/xsd/imsqtiasi_v3p0" identifier="T" title="Many sections"><qti-test-part identifier="P" navigation-mode="linear" submission-mode="individual">${sections}</qti-test-part></qti-assessment-test>`;
    const zip = packageOf([{ path: 'test.xml', xml: test, kind: 'test' }, ...items], '3.0', { 'items/images/cat.png': PNG });
    const [tests, assets] = [await countTests(), await countAssets()];
    const body = expectError(await post(zip, 'application/zip'), 400, 'invalid_request');
    expect(body.error.message).toMatch(/does not fit Assay's limits: sections/);
    expect([await countTests(), await countAssets()]).toEqual([tests, assets]);
  });
});

describe('CSV past the limits: 400 naming the row and column', () => {
  const header = 'type,prompt,options,correct\n';
  const row = (i: number) => `single_choice,Question ${i},a|b,1\n`;

  it('20,000 rows: refused at the 500 question rows a test can hold, and a partner read meanwhile answers within 1 s', async () => {
    const csv = header + Array.from({ length: 20_000 }, (_, i) => row(i)).join('');
    const run = await importDuringReads(csv, CSV);
    expect(run.maxReadMs).toBeLessThan(1000);
    expect(run.result.status).toBe(400);
    expect(run.result.body.error.message).toMatch(/more than 500 question rows/);
    expect(run.result.body.error.details).toEqual([{ field: 'row 502', message: expect.stringMatching(/a test holds at most 500 questions/) }]);
  });

  it('a 5 MB cell: refused naming its row and column', async () => {
    const run = await importDuringReads(`${header}single_choice,${'x'.repeat(5_000_000)},a|b,1\n`, CSV);
    expect(run.maxReadMs).toBeLessThan(1000);
    expect(run.result.status).toBe(400);
    expect(run.result.body.error.details).toEqual([{ field: 'row 2, prompt', message: expect.stringMatching(/is longer than the 100,000 characters a cell may hold/) }]);
  });

  it('a CSV over 10 MB is refused before it is parsed', async () => {
    const csv = header + `essay,${'z'.repeat(60_000)}\n`.repeat(200);
    const body = expectError(await post(csv, CSV), 400, 'invalid_request');
    expect(body.error.details).toEqual([{ field: 'body', message: expect.stringMatching(/larger than the 10 MB a CSV may be/) }]);
  });

  it('400 bad rows: every problem counted, the first 50 in details and then how many more', async () => {
    const csv = header + Array.from({ length: 400 }, (_, i) => `bogus,Q${i},,\n`).join('');
    const body = expectError(await post(csv, CSV), 400, 'invalid_request');
    expect(body.error.message).toMatch(/^The CSV has 400 problems; the first: row 2, type/);
    expect(body.error.details).toHaveLength(51);
    expect(body.error.details![49]!.field).toBe('row 51, type');
    expect(body.error.details![50]).toEqual({ field: 'body', message: 'and 350 more problems' });
    expect(JSON.stringify(body).length).toBeLessThan(20_000);
  });

  it('M1: a NUL character in a cell: 400 naming the row and column, not a 500', async () => {
    const body = expectError(await post(`${header}single_choice,"Null\u0000 prompt",a|b,1\n`, CSV), 400, 'invalid_request');
    expect(body.error.details).toEqual([{ field: 'row 2, prompt', message: expect.stringMatching(/U\+0000/) }]);
  });
});
