import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../helpers/harness.js';
import { portalGet, signedIn, type PortalUser } from '../helpers/portal.js';
import { fixture, itemsPackage } from '../helpers/qti.js';

let h: Harness;
let author: PortalUser;
let authorB: PortalUser;
let operator: PortalUser;

beforeAll(async () => {
  h = await createHarness();
  author = await signedIn(h, 'author', h.a.institutionId);
  authorB = await signedIn(h, 'author', h.b.institutionId);
  operator = await signedIn(h, 'operator');
});
afterAll(() => h.close());

const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 1, 2, 3]);

/** The form as a browser posts it: multipart/form-data with the file and the options, the CSRF token in the form's action URL. */
async function postImport(user: PortalUser, file: { name: string; bytes: Uint8Array | string } | null, fields: Record<string, string> = {}) {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) if (k !== 'csrf') form.append(k, v);
  if (file) form.append('file', new Blob([typeof file.bytes === 'string' ? file.bytes : Buffer.from(file.bytes)]), file.name);
  const req = new Request('http://portal.test/portal/tests/import', { method: 'POST', body: form });
  return h.app.inject({
    method: 'POST',
    url: `/portal/tests/import?csrf=${fields.csrf ?? user.csrf}`,
    headers: { 'content-type': req.headers.get('content-type')!, cookie: user.cookie },
    payload: Buffer.from(await req.arrayBuffer()),
  });
}
const countTests = async () => Number((await h.pool.query('SELECT count(*) FROM tests')).rows[0].count);
const countAssets = async () => Number((await h.pool.query('SELECT count(*) FROM assets')).rows[0].count);
const testIdIn = (body: string) => /href="\/portal\/tests\/(tst_[A-Za-z0-9_-]+)\/edit"/.exec(body)?.[1];

describe('the portal Import page', () => {
  it('shows the form with a file input, Check only and the CSV template; the template downloads', async () => {
    const page = await portalGet(h, author, '/portal/tests/import');
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('enctype="multipart/form-data"');
    expect(page.body).toMatch(/<input type="file"[^>]*name="file"/);
    expect(page.body).toContain('Check only');
    const list = await portalGet(h, author, '/portal/tests');
    expect(list.body).toContain('href="/portal/tests/import"');
    const csv = await portalGet(h, author, '/portal/tests/import/template.csv');
    expect(csv.statusCode).toBe(200);
    expect(csv.headers['content-type']).toMatch(/^text\/csv/);
    expect(csv.body).toBe(fs.readFileSync('docs/examples/questions-template.csv', 'utf8'));
  });

  it('an author imports a package: a draft owned by their institution, its image an asset of theirs, the report in words', async () => {
    const pkg = itemsPackage(['choice-single.xml', 'skip-image.xml', 'skip-hotspot.xml'], '2.2', { 'items/images/cat.png': PNG });
    const res = await postImport(author, { name: 'bank.zip', bytes: pkg }, { title: 'Biology bank' });
    expect(res.statusCode).toBe(201);
    expect(res.body).toContain('Imported <code>bank.zip</code> as the draft test “Biology bank” with 2 questions.');
    expect(res.body).toContain('2 questions were read, 1 item skipped.');
    expect(res.body).toMatch(/<code>items\/skip-hotspot.xml<\/code><\/th><td[^>]*>skip-hotspot<\/td><td[^>]*>hotspot-interaction<\/td><td[^>]*>the graphic interaction shows no image<\/td>/);
    const testId = testIdIn(res.body)!;
    const row = (await h.pool.query('SELECT owner_institution_id, current_version FROM tests WHERE id = $1', [testId])).rows[0];
    expect(row).toEqual({ owner_institution_id: h.a.institutionId, current_version: 0 });
    const draft = JSON.parse((await portalGet(h, author, `/portal/authoring/tests/${testId}/draft`)).body);
    expect(draft.content.title).toBe('Biology bank');
    expect(draft.content.questions.map((q: { type: string }) => q.type)).toEqual(['single_choice', 'single_choice']);
    const assetId = /asset:(ast_[A-Za-z0-9_-]+)/.exec(draft.content.questions[1].prompt)![1];
    expect((await h.pool.query('SELECT owner_institution_id FROM assets WHERE id = $1', [assetId])).rows[0].owner_institution_id).toBe(h.a.institutionId);
    expect((await portalGet(h, author, `/portal/content-assets/${assetId}`)).statusCode).toBe(200);
    expect((await portalGet(h, authorB, `/portal/content-assets/${assetId}`)).statusCode).toBe(404);
    // The other institution neither sees the test nor opens its draft.
    expect((await portalGet(h, authorB, '/portal/tests')).body).not.toContain(testId);
    expect((await portalGet(h, authorB, `/portal/authoring/tests/${testId}/draft`)).statusCode).toBe(404);
    const list = await portalGet(h, author, '/portal/tests');
    expect(list.body).toContain(testId);
  });

  it('Check only shows the report and creates nothing (no test, no asset)', async () => {
    const [tests, assets] = [await countTests(), await countAssets()];
    const res = await postImport(author, { name: 'bank.zip', bytes: itemsPackage(['choice-single.xml', 'skip-image.xml'], '3.0', { 'items/images/cat.png': PNG }) }, { dryRun: '1' });
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('Checked <code>bank.zip</code>: 2 questions would be imported. Nothing was created');
    expect([await countTests(), await countAssets()]).toEqual([tests, assets]);
  });

  it('a CSV imports too; its errors are named by row and column in words, and nothing is created', async () => {
    const ok = await postImport(author, { name: 'q.csv', bytes: 'type,prompt,points,options,correct\nsingle_choice,Pick A,1,A|B,A\n' });
    expect(ok.statusCode).toBe(201);
    const tests = await countTests();
    const bad = await postImport(author, { name: 'bad.csv', bytes: 'type,prompt,points\nsingle_choice,Pick,1\n' });
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toContain('<code>bad.csv</code> could not be imported');
    expect(bad.body).toMatch(/row 2/i);
    expect(await countTests()).toBe(tests);
  });

  it('a broken package is a 400 naming the file inside it; no file is a 400 asking for one; nothing importable a 422 listing each item', async () => {
    const tests = await countTests();
    const broken = await postImport(author, { name: 'broken.zip', bytes: new Uint8Array([0x50, 0x4b, 3, 4, 0, 0]) });
    expect(broken.statusCode).toBe(400);
    expect(broken.body).toContain('<code>broken.zip</code> could not be imported');
    const none = await postImport(author, null);
    expect(none.statusCode).toBe(400);
    expect(none.body).toContain('Choose a QTI package (.zip) or a CSV file to import.');
    const nothing = await postImport(author, { name: 'x.zip', bytes: itemsPackage(['skip-hotspot.xml']) });
    expect(nothing.statusCode).toBe(422);
    expect(nothing.body).toContain('<code>items/skip-hotspot.xml#skip-hotspot</code>: hotspot-interaction: the graphic interaction shows no image');
    expect(await countTests()).toBe(tests);
  });

  it('a post without the session token is refused (403) and creates nothing; an operator imports into the catalogue', async () => {
    const tests = await countTests();
    const forged = await postImport(author, { name: 'a.zip', bytes: itemsPackage(['choice-single.xml']) }, { csrf: 'x'.repeat(32) });
    expect(forged.statusCode).toBe(403);
    expect(await countTests()).toBe(tests);
    const res = await postImport(operator, { name: 'svg.zip', bytes: itemsPackage(['skip-svg-script.xml'], '3.0', { 'items/images/shape.svg': fixture('shape-with-script.svg') }) });
    expect(res.statusCode).toBe(201);
    const testId = testIdIn(res.body)!;
    expect((await h.pool.query('SELECT owner_institution_id FROM tests WHERE id = $1', [testId])).rows[0].owner_institution_id).toBeNull();
  });
});
