import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAsset } from '../../src/modules/catalog/content-assets/assets-service.js';
import type { TestInput } from '../../src/modules/catalog/schemas.js';
import { ADMIN_TOKEN, AUTO_TEST, createHarness, type Harness } from '../helpers/harness.js';
import { expectError } from '../helpers/expect-error.js';
import { portalGet, signedIn } from '../helpers/portal.js';
import { assign, createPublishedTest, Student } from '../helpers/student.js';

const A = '/api/admin/v1';
let h: Harness;

beforeAll(async () => {
  h = await createHarness();
});
afterAll(() => h.close());

// A real 1×1 PNG and GIF; JPEG and WebP need only their signatures here (nothing decodes them).
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');
const GIF = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');
const JPEG = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10]), Buffer.from('JFIF\0'), Buffer.alloc(32)]);
const WEBP = Buffer.concat([Buffer.from('RIFF'), Buffer.from([0x1a, 0, 0, 0]), Buffer.from('WEBPVP8L'), Buffer.alloc(16)]);

function upload(body: Buffer | string, contentType: string | null) {
  return h.app.inject({
    method: 'POST',
    url: `${A}/assets`,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, ...(contentType ? { 'content-type': contentType } : {}) },
    payload: body,
  });
}

async function uploaded(body: Buffer | string, contentType: string): Promise<string> {
  const res = await upload(body, contentType);
  expect(res.statusCode).toBe(201);
  return res.json().assetId;
}

const sha256 = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');

describe('POST /api/admin/v1/assets', () => {
  it.each([
    ['image/png', PNG],
    ['image/gif', GIF],
    ['image/jpeg', JPEG],
    ['image/webp', WEBP],
  ])('stores a %s image as sent and answers 201 with its id, type, size and hash', async (type, bytes) => {
    const res = await upload(bytes, type);
    expect(res.statusCode).toBe(201);
    const body = res.json();
    expect(body).toEqual({ assetId: expect.stringMatching(/^ast_[0-9A-Za-z]{22}$/), contentType: type, bytes: bytes.length, sha256: sha256(bytes) });
    const read = await h.admin('GET', `${A}/assets/${body.assetId}`);
    expect(read.statusCode).toBe(200);
    expect(read.json()).toEqual({ ...body, createdAt: expect.any(String) });
    const content = await h.admin('GET', `${A}/assets/${body.assetId}/content`);
    expect(content.statusCode).toBe(200);
    expect(content.rawPayload.equals(bytes)).toBe(true);
    const audit = await h.pool.query("SELECT actor_kind, details FROM audit_log WHERE action = 'asset.created' AND object_id = $1", [body.assetId]);
    expect(audit.rows).toEqual([{ actor_kind: 'operator_token', details: { contentType: type, bytes: bytes.length } }]);
  });

  it('needs the operator token', async () => {
    const res = await h.app.inject({ method: 'POST', url: `${A}/assets`, headers: { 'content-type': 'image/png' }, payload: PNG });
    expectError(res, 401, 'unauthenticated');
    expectError(await h.partner(h.a, 'GET', `${A}/assets/ast_x`), 401, 'unauthenticated');
  });

  it('refuses a type that is not an image it takes (415), naming the types', async () => {
    for (const type of ['application/pdf', 'text/plain', 'application/json', 'image/bmp']) {
      const e = expectError(await upload(type === 'application/json' ? '{}' : PNG, type), 415, 'unsupported_media_type');
      expect(e.error.message).toContain('image/png, image/jpeg, image/gif, image/webp, image/svg+xml');
    }
    expectError(await upload(PNG, null), 415, 'unsupported_media_type');
  });

  it('refuses bytes that are not the declared type (400), saying what they are', async () => {
    const e = expectError(await upload(JPEG, 'image/png'), 400, 'invalid_request');
    expect(e.error.message).toBe('The body is not a PNG image (its bytes are JPEG; send Content-Type: image/jpeg).');
    expectError(await upload('just text', 'image/gif'), 400, 'invalid_request');
    expectError(await upload(PNG, 'image/svg+xml'), 400, 'invalid_request');
    expect(expectError(await upload(Buffer.alloc(0), 'image/png'), 400, 'invalid_request').error.message).toMatch(/empty/);
  });

  it('refuses an image over 5 MB with 413', async () => {
    const big = Buffer.concat([PNG, Buffer.alloc(5 * 1024 * 1024)]);
    const e = expectError(await upload(big, 'image/png'), 413, 'payload_too_large');
    expect(e.error.message).toContain('5 MB');
  });

  it('refuses an SVG that is not well-formed XML, has another root, or a DOCTYPE', async () => {
    const malformed = expectError(await upload('<svg xmlns="http://www.w3.org/2000/svg"><g></svg>', 'image/svg+xml'), 400, 'invalid_request');
    expect(malformed.error.message).toMatch(/^The SVG is not well-formed XML: .*line 1/);
    const html = expectError(await upload('<html><body/></html>', 'image/svg+xml'), 400, 'invalid_request');
    expect(html.error.message).toBe('The XML\'s root element is "html", not "svg".');
    expectError(await upload('<!DOCTYPE svg [<!ENTITY e SYSTEM "file:///etc/passwd">]><svg>&e;</svg>', 'image/svg+xml'), 400, 'invalid_request');
  });

  it('sanitises an SVG: scripts, handlers, foreignObject, external references and javascript: links go; shapes stay', async () => {
    const svg = `<?xml version="1.0" encoding="UTF-8"?>
<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" viewBox="0 0 20 20" onload="alert(1)">
  <script>alert(2)</script>
  <foreignObject width="10" height="10"><div xmlns="http://www.w3.org/1999/xhtml">x</div></foreignObject>
  <a href="javascript:alert(3)"><circle cx="10" cy="10" r="5" fill="url(#g)" onclick="alert(4)"/></a>
  <use xlink:href="https://evil.example/sprite.svg#icon"/>
  <image href="https://evil.example/track.png" width="1" height="1"/>
  <rect width="4" height="4" style="fill: url(https://evil.example/p)"/>
  <linearGradient id="g"><stop offset="0" stop-color="teal"/></linearGradient>
  <text x="2" y="18">a &lt; b</text>
</svg>`;
    const res = await upload(svg, 'image/svg+xml');
    expect(res.statusCode).toBe(201);
    const content = await h.admin('GET', `${A}/assets/${res.json().assetId}/content`);
    const stored = content.body;
    expect(res.json().bytes).toBe(Buffer.byteLength(stored));
    expect(res.json().sha256).toBe(sha256(stored));
    for (const gone of ['script', 'alert', 'onload', 'onclick', 'foreignObject', 'javascript:', 'evil.example', '<image', '<a ']) expect(stored).not.toContain(gone);
    expect(stored).toContain('<circle cx="10" cy="10" r="5" fill="url(#g)">');
    expect(stored).toContain('<stop offset="0" stop-color="teal">');
    expect(stored).toContain('<text x="2" y="18">a &lt; b</text>');
    expect(stored).toMatch(/^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/m);
    expect(content.headers['content-type']).toBe('image/svg+xml');
    expect(content.headers['content-security-policy']).toBe("default-src 'none'; style-src 'unsafe-inline'");
    expect(content.headers['content-disposition']).toBe('inline');
  });

  it('GET of an unknown asset is 404', async () => {
    expectError(await h.admin('GET', `${A}/assets/ast_nothing`), 404, 'not_found');
    expectError(await h.admin('GET', `${A}/assets/ast_nothing/content`), 404, 'not_found');
  });
});

describe('who may load an asset', () => {
  let assetId: string;
  let otherInstitutionsAsset: string;
  let student: Student;
  let assignmentId: string;

  beforeAll(async () => {
    assetId = await uploaded(PNG, 'image/png');
    otherInstitutionsAsset = (await createAsset(h.ctx, { contentType: 'image/png', body: PNG, ownerInstitutionId: h.b.institutionId })).assetId;
    const input: TestInput = {
      ...AUTO_TEST,
      contentFormat: 'markdown',
      questions: [{ type: 'numeric', prompt: `Read the chart: ![A bar chart of sales](asset:${assetId})`, points: 1, answer: 3 }],
    };
    const testId = await createPublishedTest(h, h.a, input);
    student = new Student(h);
    assignmentId = (await student.open((await assign(h, h.a, { testId, externalUserId: 'chart-reader' })).startUrl)).headers.location!.toString();
  });

  it('the operator token reads it, with the image headers and an immutable cache', async () => {
    const res = await h.admin('GET', `${A}/assets/${assetId}/content`);
    expect(res.statusCode).toBe(200);
    expect(res.headers).toMatchObject({
      'content-type': 'image/png',
      'x-content-type-options': 'nosniff',
      'cache-control': 'private, max-age=31536000, immutable',
    });
    expect(res.headers['content-security-policy']).toBeUndefined();
  });

  it('a student whose assignment uses it loads it; with no session it is 404', async () => {
    expect(assignmentId).toMatch(/^\/a\/asg_/);
    const res = await student.get(`/a/content-assets/${assetId}`);
    expect(res.statusCode).toBe(200);
    expect(res.rawPayload.equals(PNG)).toBe(true);
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect((await h.app.inject({ method: 'GET', url: `/a/content-assets/${assetId}` })).statusCode).toBe(404);
    expect((await student.get(`/a/content-assets/${otherInstitutionsAsset}`)).statusCode).toBe(404);
    expect((await student.get('/a/content-assets/ast_nothing')).statusCode).toBe(404);
  });

  it('a student of another test gets 404', async () => {
    const other = new Student(h);
    await other.open((await assign(h, h.a, { externalUserId: 'someone-else' })).startUrl);
    expect(other.cookie).not.toBeNull();
    expect((await other.get(`/a/content-assets/${assetId}`)).statusCode).toBe(404);
  });

  it("portal staff of any institution load the operators' assets; an institution's own only its staff and operators", async () => {
    const operator = await signedIn(h, 'operator');
    const viewerA = await signedIn(h, 'viewer', h.a.institutionId);
    const reviewerB = await signedIn(h, 'reviewer', h.b.institutionId);
    for (const user of [operator, viewerA, reviewerB]) {
      const res = await portalGet(h, user, `/portal/content-assets/${assetId}`);
      expect(res.statusCode, user.role).toBe(200);
      expect(res.rawPayload.equals(PNG)).toBe(true);
    }
    expect((await portalGet(h, operator, `/portal/content-assets/${otherInstitutionsAsset}`)).statusCode).toBe(200);
    expect((await portalGet(h, reviewerB, `/portal/content-assets/${otherInstitutionsAsset}`)).statusCode).toBe(200);
    expect((await portalGet(h, viewerA, `/portal/content-assets/${otherInstitutionsAsset}`)).statusCode).toBe(404);
    expect((await portalGet(h, viewerA, '/portal/content-assets/ast_nothing')).statusCode).toBe(404);
  });

  it('signed out of the portal, the asset is not served (sign-in redirect)', async () => {
    const res = await portalGet(h, null, `/portal/content-assets/${assetId}`);
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toMatch(/^\/portal\/sign-in/);
  });
});
