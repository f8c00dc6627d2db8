import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../helpers/harness.js';
import { signedIn, type PortalUser } from '../helpers/portal.js';
import { itemsPackage } from '../helpers/qti.js';
import { baseUrlOf, partnerReadsDuring } from '../helpers/read-during.js';
import { multipartBody, rawPost } from '../helpers/raw-post.js';

/**
 * The review's C1: the portal's Import form read (and walked) the whole
 * multipart body before any sign-in or CSRF check, so one anonymous request
 * froze every tenant (4 MB: 14.7 s) or killed the process (49 MB). Now the
 * session, the role and the form token (in the form's action URL) are checked
 * before a byte of the body is read, and an author's own import is parsed as
 * it streams in.
 */
let h: Harness;
let author: PortalUser;
let viewer: PortalUser;

beforeAll(async () => {
  h = await createHarness();
  author = await signedIn(h, 'author', h.a.institutionId);
  viewer = await signedIn(h, 'viewer', h.a.institutionId);
  await baseUrlOf(h);
});
afterAll(() => h.close());

const MB = 1024 * 1024;
const junk = (bytes: number) => multipartBody({ csrf: 'x'.repeat(32), title: 'x' }, { name: 'big.zip', bytes: randomBytes(bytes) });
const countTests = async () => Number((await h.pool.query('SELECT count(*) FROM tests')).rows[0].count);

/** A PNG header and random bytes: an image the import stores as an asset. */
function png(bytes: number): Uint8Array {
  const out = randomBytes(bytes);
  out.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]);
  return out;
}

describe('the portal Import reads no body before it knows who sends it', () => {
  it('an anonymous 4 MB form is refused before its body arrives, and a partner read meanwhile answers within 1 s', async () => {
    const { contentType, body } = junk(4 * MB);
    // Only the first 64 KB are sent: the answer must come without the rest.
    const early = await rawPost(await baseUrlOf(h), '/portal/tests/import', { headers: { 'content-type': contentType }, body, stopAfter: 64 * 1024, waitMs: 3000 });
    expect(early.status).toBe(403);
    expect(early.sentBeforeAnswer).toBeLessThan(body.length);

    const tests = await countTests();
    const run = await partnerReadsDuring(h, (baseUrl) => rawPost(baseUrl, '/portal/tests/import', { headers: { 'content-type': contentType }, body }));
    expect(run.result.status).toBe(403);
    expect(run.maxReadMs).toBeLessThan(1000);
    expect(run.maxLoopDelayMs).toBeLessThan(250);
    expect(run.hostileMs).toBeLessThan(2000);
    expect(await countTests()).toBe(tests);
  });

  it('an anonymous 40 MB form is refused at once, and the process does not grow by the body', async () => {
    const { contentType, body } = junk(40 * MB);
    const before = process.memoryUsage();
    const run = await partnerReadsDuring(h, (baseUrl) => rawPost(baseUrl, '/portal/tests/import', { headers: { 'content-type': contentType }, body, stopAfter: 256 * 1024, waitMs: 3000 }));
    const after = process.memoryUsage();
    expect(run.result.status).toBe(403);
    expect(run.maxReadMs).toBeLessThan(1000);
    expect(after.heapUsed - before.heapUsed).toBeLessThan(20 * MB);
    expect(after.arrayBuffers - before.arrayBuffers).toBeLessThan(20 * MB);
  });

  it('a signed-in author without the form token, or a viewer with one, is refused before the body arrives', async () => {
    const { contentType, body } = junk(4 * MB);
    const noToken = await rawPost(await baseUrlOf(h), '/portal/tests/import', { headers: { 'content-type': contentType, cookie: author.cookie }, body, stopAfter: 64 * 1024, waitMs: 3000 });
    expect(noToken.status).toBe(403);
    expect(noToken.body).toContain('This form has expired');
    const wrongRole = await rawPost(await baseUrlOf(h), `/portal/tests/import?csrf=${viewer.csrf}`, { headers: { 'content-type': contentType, cookie: viewer.cookie }, body, stopAfter: 64 * 1024, waitMs: 3000 });
    expect(wrongRole.status).toBe(403);
    expect(wrongRole.body).toContain('You do not have access to this page');
    const crossSite = await rawPost(await baseUrlOf(h), `/portal/tests/import?csrf=${author.csrf}`, {
      headers: { 'content-type': contentType, cookie: author.cookie, 'sec-fetch-site': 'cross-site' },
      body,
      stopAfter: 64 * 1024,
      waitMs: 3000,
    });
    expect(crossSite.status).toBe(403);
  });

  it("an author's own 3 MB package imports while a partner read answers within 1 s", async () => {
    const pkg = itemsPackage(['choice-single.xml', 'skip-image.xml'], '2.2', { 'items/images/cat.png': png(3 * MB) });
    const { contentType, body } = multipartBody({ title: 'Big bank' }, { name: 'bank.zip', bytes: pkg });
    const run = await partnerReadsDuring(h, (baseUrl) => rawPost(baseUrl, `/portal/tests/import?csrf=${author.csrf}`, { headers: { 'content-type': contentType, cookie: author.cookie }, body }));
    expect(run.result.status).toBe(201);
    expect(run.result.body).toContain('as the draft test “Big bank” with 2 questions');
    expect(run.maxReadMs).toBeLessThan(1000);
    // What remains is the import itself (unzip, images), not the form: see the report in docs/file-uploads.md.
    expect(run.maxLoopDelayMs).toBeLessThan(1000);
  });
});
