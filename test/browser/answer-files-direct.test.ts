import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import type { TestInput } from '../../src/modules/catalog/schemas.js';
import { storageFor } from '../../src/platform/storage/storage.js';
import { componentAvailable } from '../helpers/components.js';
import { createHarness, type Harness, type Tenant } from '../helpers/harness.js';
import { hasS3, startS3Server, type S3TestServer } from '../helpers/s3-server.js';
import { assign, createPublishedTest } from '../helpers/student.js';
import { freePort, hasBrowser, launchBrowser, closeContext } from './browser-env.js';

/**
 * A file answer in Chromium with S3 storage (s3rver, the bucket's CORS rule
 * allowing the app's origin): the page hashes the file, has the PUT
 * presigned, PUTs it to the bucket and has it recorded; the API receives no
 * file bytes. A file whose bytes lie about its type is refused and deleted.
 */
const withS3 = componentAvailable('S3 server (@20minutes/s3rver)', hasS3, 'npm install (a devDependency)');
const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(150_000, 9)]);
const TEST: TestInput = {
  title: 'Diagram',
  description: 'One file',
  durationMinutes: 30,
  proctoring: 'none',
  marking: 'manual',
  resultVisibility: 'after_review',
  questions: [{ id: 'fu', type: 'file_upload', prompt: 'Upload a photo of your diagram.', points: 5, accept: ['image/png'], maxBytes: 1024 * 1024 }],
};

describe.runIf(hasBrowser && withS3)('file answers uploaded directly from the page (S3 storage)', () => {
  let h: Harness;
  let s3: S3TestServer;
  let browser: Browser;
  let tenant: Tenant;
  let testId: string;
  let origin: string;

  beforeAll(async () => {
    const port = await freePort();
    origin = `http://127.0.0.1:${port}`;
    s3 = await startS3Server({ corsOrigins: [origin] });
    h = await createHarness({ config: { publicBaseUrl: origin, allowInsecureUrls: true, storage: s3.config } });
    await h.app.listen({ port, host: '127.0.0.1' });
    tenant = await h.createTenant('Northfield University', ['localhost']);
    testId = await createPublishedTest(h, tenant, TEST);
    browser = await launchBrowser();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await h?.close();
    await s3?.close();
  });

  it('the file goes to the bucket and becomes the answer; a lying file is refused and deleted', async () => {
    const context = await browser.newContext();
    // Chromium asks before a page reaches an address on this machine; the bucket is on 127.0.0.1 only because the test runs it there.
    await context.grantPermissions(['local-network-access'], { origin });
    const toApi: Array<{ path: string; bytes: number }> = [];
    context.on('request', (req) => {
      const url = new URL(req.url());
      if (url.origin === origin) toApi.push({ path: url.pathname, bytes: req.postDataBuffer()?.length ?? 0 });
    });
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('pageerror', (e) => problems.push(e.message));
    const a = await assign(h, tenant, { testId, externalUserId: 'direct-file' });
    await page.goto(a.startUrl);
    await page.getByRole('button', { name: 'Begin test' }).click();
    await page.getByRole('timer').waitFor();

    const input = page.locator('fieldset[data-question-id="fu"] input[type=file]');
    await input.setInputFiles({ name: 'diagram.png', mimeType: 'image/png', buffer: PNG });
    await expect.poll(() => page.locator('fieldset[data-question-id="fu"] .file-status').textContent(), { timeout: 15_000 }).toBe('Uploaded diagram.png.');
    const { rows } = await h.pool.query<{ storage_key: string; bytes: number; sha256: string }>('SELECT storage_key, bytes::int AS bytes, sha256 FROM answer_files WHERE assignment_id = $1', [a.assignmentId]);
    expect(rows).toHaveLength(1);
    expect(rows[0]!.bytes).toBe(PNG.length);
    expect(rows[0]!.sha256).toBe(createHash('sha256').update(PNG).digest('hex'));
    const put = s3.requests.find((q) => q.method === 'PUT' && decodeURIComponent(q.path).endsWith(rows[0]!.storage_key));
    expect(put).toMatchObject({ bytes: PNG.length, origin });

    // Text claimed as a PNG: stored by the PUT, refused at the record, deleted; the first file stays the answer.
    const liar = Buffer.from('not a picture\n'.repeat(10_000));
    await input.setInputFiles({ name: 'fake.png', mimeType: 'image/png', buffer: liar });
    await expect.poll(() => page.locator('fieldset[data-question-id="fu"] .file-error').textContent(), { timeout: 15_000 }).toMatch(/^fake\.png was not uploaded: .*plain text.* Your previous file is kept\.$/);
    const liarPut = s3.requests.filter((q) => q.method === 'PUT').at(-1)!;
    expect(liarPut.bytes).toBe(liar.length);
    expect(await storageFor(h.ctx.config).head(decodeURIComponent(liarPut.path).replace(`/${s3.bucket}/`, ''))).toBeNull();
    expect((await h.pool.query('SELECT storage_key FROM answer_files WHERE assignment_id = $1', [a.assignmentId])).rows).toEqual([{ storage_key: rows[0]!.storage_key }]);

    // The API received JSON only: no request to the through-API upload route, nothing near a file's size.
    expect(toApi.filter((q) => /\/files\/fu$/.test(q.path))).toEqual([]);
    for (const q of toApi) expect(q.bytes, q.path).toBeLessThan(1_000);
    expect(problems).toEqual([]);
    await closeContext(context);
  }, 90_000);
});
