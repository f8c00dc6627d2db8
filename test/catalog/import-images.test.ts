import { unzipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, createHarness, type Harness } from '../helpers/harness.js';
import { fixture, itemsPackage } from '../helpers/qti.js';

const A = '/api/admin/v1';
let h: Harness;

beforeAll(async () => {
  h = await createHarness();
});
afterAll(() => h.close());

const post = (url: string, body: Uint8Array) =>
  h.app.inject({ method: 'POST', url, headers: { 'content-type': 'application/zip', authorization: `Bearer ${ADMIN_TOKEN}` }, payload: Buffer.from(body) });
const countAssets = async () => Number((await h.pool.query('SELECT count(*) FROM assets')).rows[0].count);
/** A PNG signature and a few bytes: enough for the type check, which reads the magic number. */
const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 1, 2, 3]);

describe('images in an imported package', () => {
  it('become content assets of the platform (operator import); the prompt shows them as asset:…; the SVG is stored without its script', async () => {
    const before = await countAssets();
    const res = await post(`${A}/tests/import`, itemsPackage(['skip-image.xml', 'skip-svg-script.xml'], '3.0', { 'items/images/cat.png': PNG, 'items/images/shape.svg': fixture('shape-with-script.svg') }));
    expect(res.statusCode).toBe(201);
    expect(res.json().report).toMatchObject({ imported: 2, skipped: [] });
    expect(await countAssets()).toBe(before + 2);
    const test = (await h.admin('GET', `${A}/tests/${res.json().testId}`)).json();
    // Images are Markdown: the test is a Markdown test, so they render.
    expect(test.contentFormat).toBe('markdown');
    const [cat, shape] = test.questions as Array<{ prompt: string }>;
    const catId = /asset:(ast_[A-Za-z0-9_-]+)/.exec(cat!.prompt)![1]!;
    const shapeId = /asset:(ast_[A-Za-z0-9_-]+)/.exec(shape!.prompt)![1]!;
    expect(cat!.prompt).toBe(`Is this a cat? ![A cat](asset:${catId})`);
    const rows = (await h.pool.query('SELECT id AS asset_id, owner_institution_id, content_type FROM assets WHERE id = ANY($1) ORDER BY content_type', [[catId, shapeId]])).rows;
    expect(rows).toEqual([
      { asset_id: catId, owner_institution_id: null, content_type: 'image/png' },
      { asset_id: shapeId, owner_institution_id: null, content_type: 'image/svg+xml' },
    ]);
    const svg = (await h.admin('GET', `${A}/assets/${shapeId}/content`)).body;
    expect(svg).toMatch(/<svg/);
    expect(svg).not.toMatch(/script|alert|onload/i);
  });

  it('a dry run stores no asset; an image without alt text skips its item and stores nothing', async () => {
    const before = await countAssets();
    const dry = await post(`${A}/tests/import?dryRun=true`, itemsPackage(['skip-image.xml'], '3.0', { 'items/images/cat.png': PNG }));
    expect(dry.statusCode).toBe(200);
    expect(dry.json().test.questions[0].prompt).toBe('Is this a cat? ![A cat](asset:ast_dryrun)');
    const noAlt = await post(`${A}/tests/import`, itemsPackage(['choice-single.xml', 'skip-image-no-alt.xml'], '3.0', { 'items/images/cat.png': PNG }));
    expect(noAlt.statusCode).toBe(201);
    expect(noAlt.json().report.skipped).toEqual([
      { file: 'items/skip-image-no-alt.xml', identifier: 'skip-image-no-alt', interaction: 'choice-interaction', reason: 'image "images/cat.png" has no alt text, which Assay requires' },
    ]);
    expect(await countAssets()).toBe(before);
  });

  it("a graphic interaction's QTI 2 object takes its content as alt text, and its dry run checks as the import does", async () => {
    const files = { 'items/images/map.png': PNG };
    const dry = await post(`${A}/tests/import?dryRun=true`, itemsPackage(['hotspot-object.xml'], '2.2', files));
    expect(dry.statusCode).toBe(200);
    expect(dry.json().report).toMatchObject({ imported: 1, skipped: [] });
    expect(dry.json().test.questions[0]).toMatchObject({ type: 'hotspot', image: 'asset:ast_dryrun', imageAlt: 'Map of four airports' });
    const res = await post(`${A}/tests/import`, itemsPackage(['hotspot-object.xml'], '2.2', files));
    expect(res.json().report).toMatchObject({ imported: 1, skipped: [] });
    const q = (await h.admin('GET', `${A}/tests/${res.json().testId}`)).json().questions[0];
    expect(q).toMatchObject({ type: 'hotspot', imageAlt: 'Map of four airports', imageWidth: 206, imageHeight: 280 });
    expect(q.image).toMatch(/^asset:ast_[A-Za-z0-9]+$/);
  });

  it('round trip: the export carries each image as a file the item shows with <img>, and importing it gives the same question with a new asset of the same bytes', async () => {
    const first = await post(`${A}/tests/import`, itemsPackage(['skip-image.xml'], '3.0', { 'items/images/cat.png': PNG }));
    const testId = first.json().testId as string;
    const q1 = (await h.admin('GET', `${A}/tests/${testId}`)).json().questions[0];
    const assetId = /asset:(ast_[A-Za-z0-9_-]+)/.exec(q1.prompt)![1]!;

    const exported = await h.app.inject({ method: 'GET', url: `${A}/tests/${testId}/export?format=qti3`, headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    expect(exported.statusCode).toBe(200);
    const files = unzipSync(new Uint8Array(exported.rawPayload));
    expect([...files[`assets/${assetId}.png`]!]).toEqual([...PNG]);
    const item = new TextDecoder().decode(files[`items/${q1.id}.xml`]);
    expect(item).toContain(`<img src="../assets/${assetId}.png" alt="A cat"/>`);
    expect(item).toMatch(/title="Is this a cat\? A cat"/);
    expect(new TextDecoder().decode(files['imsmanifest.xml'])).toContain(`<file href="assets/${assetId}.png"/>`);

    const again = await post(`${A}/tests/import`, new Uint8Array(exported.rawPayload));
    expect(again.statusCode).toBe(201);
    const q2 = (await h.admin('GET', `${A}/tests/${again.json().testId}`)).json().questions[0];
    const newId = /asset:(ast_[A-Za-z0-9_-]+)/.exec(q2.prompt)![1]!;
    expect(newId).not.toBe(assetId);
    expect({ ...q2, prompt: q2.prompt.replace(newId, assetId) }).toEqual(q1);
    const bytes = await h.app.inject({ method: 'GET', url: `${A}/assets/${newId}/content`, headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    expect([...bytes.rawPayload]).toEqual([...PNG]);
  });
});
