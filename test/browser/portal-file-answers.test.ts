import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { TestInput } from '../../src/modules/catalog/schemas.js';
import { createHarness, type Harness } from '../helpers/harness.js';
import { signedIn, type PortalUser } from '../helpers/portal.js';
import { Student, assign, createPublishedTest, readAssignment } from '../helpers/student.js';
import { freePort, hasBrowser, launchBrowser, requireBrowser, VIEWPORTS, closeContext } from './browser-env.js';
import { checkPortalPage, signInPortal } from './portal-check.js';

/**
 * A reviewer marks file answers in Chromium, by keyboard: the image answer
 * is shown inline (loaded through /portal/files/… and its signed link, so
 * the page's CSP and the redirect work in a real browser), the PDF in a
 * titled frame, the docx as a download link; axe and width checked at
 * desktop and 360 px. Screenshots go to docs/screenshots/ with
 * ASSAY_WRITE_SCREENSHOTS=1.
 */
const run = hasBrowser || requireBrowser ? describe : describe.skip;

/** A real PNG (solid colour, 120 × 80) the browser can decode. */
function png(width: number, height: number): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(zlib.crc32(Buffer.concat([Buffer.from(type), data])));
    return Buffer.concat([len, Buffer.from(type), data, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8;
  ihdr[9] = 2;
  const row = Buffer.concat([Buffer.from([0]), Buffer.alloc(width * 3, 0x3c)]);
  const raw = Buffer.concat(Array.from({ length: height }, () => row));
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', ihdr), chunk('IDAT', zlib.deflateSync(raw)), chunk('IEND', Buffer.alloc(0))]);
}
/** A one-page PDF saying "Elevation" (no xref table: viewers rebuild it). */
const PDF = Buffer.from(
  [
    '%PDF-1.4',
    '1 0 obj <</Type/Catalog/Pages 2 0 R>> endobj',
    '2 0 obj <</Type/Pages/Kids[3 0 R]/Count 1>> endobj',
    '3 0 obj <</Type/Page/Parent 2 0 R/MediaBox[0 0 300 200]/Contents 4 0 R/Resources<</Font<</F1 5 0 R>>>>>> endobj',
    '4 0 obj <</Length 41>> stream',
    'BT /F1 24 Tf 40 100 Td (Elevation) Tj ET',
    'endstream endobj',
    '5 0 obj <</Type/Font/Subtype/Type1/BaseFont/Helvetica>> endobj',
    'trailer <</Root 1 0 R>>',
    '%%EOF',
    '',
  ].join('\n'),
);
const DOCX = Buffer.concat(
  ['[Content_Types].xml', 'word/document.xml'].map((name) => {
    const header = Buffer.alloc(30);
    header.writeUInt32LE(0x04034b50, 0);
    header.writeUInt16LE(name.length, 26);
    return Buffer.concat([header, Buffer.from(name)]);
  }),
);

const TEST: TestInput = {
  title: 'Architecture Studio',
  description: 'Three files, marked by a reviewer.',
  durationMinutes: 60,
  proctoring: 'none',
  marking: 'manual',
  resultVisibility: 'after_review',
  passPercent: 50,
  sections: [
    {
      id: 'drawings',
      title: 'Drawings',
      questions: [
        { id: 'plan', type: 'file_upload', prompt: 'Upload the floor plan', points: 5, accept: ['image/*'] },
        { id: 'elev', type: 'file_upload', prompt: 'Upload the elevation', points: 5, accept: ['application/pdf'] },
      ],
    },
    { id: 'writing', title: 'Writing', questions: [{ id: 'memo', type: 'file_upload', prompt: 'Upload the design memo', points: 5, accept: ['application/vnd.openxmlformats-officedocument.wordprocessingml.document'] }] },
  ],
};

let h: Harness;
let browser: Browser;
let origin: string;
let reviewer: PortalUser;
let assignmentId: string;
const axeProblems: string[] = [];

run('file answers on the portal marking page', () => {
  beforeAll(async () => {
    const port = await freePort();
    origin = `http://127.0.0.1:${port}`;
    h = await createHarness({ config: { publicBaseUrl: origin } });
    await h.app.listen({ port, host: '127.0.0.1' });
    const testId = await createPublishedTest(h, h.a, TEST);
    const a = await assign(h, h.a, { testId, externalUserId: 'stu-4410', user: { email: 'ada@example.org', name: 'Ada Byron' } });
    assignmentId = a.assignmentId;
    const s = new Student(h);
    await s.start(a.startUrl);
    await s.page(assignmentId);
    for (const [questionId, body, type, name] of [
      ['plan', png(120, 80), 'image/png', 'floor plan.png'],
      ['elev', PDF, 'application/pdf', 'elevation.pdf'],
      ['memo', DOCX, 'application/vnd.openxmlformats-officedocument.wordprocessingml.document', 'Design memo.docx'],
    ] as const) {
      const res = await h.app.inject({
        method: 'POST',
        url: `/a/${assignmentId}/files/${questionId}`,
        headers: { 'content-type': type, 'x-file-name': encodeURIComponent(name), 'x-answer-version': '1', cookie: s.cookie!, 'x-csrf-token': s.csrf! },
        payload: body,
      });
      expect(res.statusCode, res.body).toBe(200);
    }
    expect((await s.submit(assignmentId)).statusCode).toBe(303);
    reviewer = await signedIn(h, 'reviewer', h.a.institutionId, 'Rae Reviewer');
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await h?.close();
  });

  async function open(size: keyof typeof VIEWPORTS): Promise<{ context: BrowserContext; page: Page }> {
    const context = await browser.newContext({ viewport: VIEWPORTS[size] });
    await signInPortal(h.pool, h.clock.now(), context, reviewer);
    const page = await context.newPage();
    await page.goto(`${origin}/portal/marking/${assignmentId}`);
    return { context, page };
  }

  it('shows the image inline (loaded), the PDF in a titled frame and the docx as a link; axe and width at desktop and 360 px', async () => {
    for (const size of ['desktop', 'phone'] as const) {
      const { context, page } = await open(size);
      const img = page.getByRole('img', { name: "The student's file: floor plan.png" });
      await img.waitFor();
      await page.waitForFunction(() => {
        const el = document.querySelector('img.answer-file-image') as HTMLImageElement | null;
        return el !== null && el.complete;
      });
      expect(await img.evaluate((el: HTMLImageElement) => el.naturalWidth)).toBe(120);
      expect(await page.locator('iframe[title="The student\'s file: elevation.pdf (PDF)"]').count()).toBe(1);
      await expect(page.getByRole('link', { name: 'Download Design memo.docx' }).isVisible()).resolves.toBe(true);
      expect(await page.locator('text=(Word document').count()).toBe(1);
      await checkPortalPage(page, 'marking-file-answers', size, axeProblems);
      await closeContext(context);
    }
    expect(axeProblems).toEqual([]);
  });

  it('the reviewer marks the three files by keyboard and finishes; the partner reads completed with section scores', async () => {
    const { context, page } = await open('desktop');
    for (const [q, points] of [['plan', '4'], ['elev', '5'], ['memo', '2.5']] as const) {
      await page.locator(`#f-points-${q}`).focus();
      await page.keyboard.type(points);
    }
    await page.getByRole('button', { name: 'Finish marking' }).focus();
    await Promise.all([page.waitForURL(/\/portal\/marking\?done=marking-finished/), page.keyboard.press('Enter')]);
    await closeContext(context);
    const read = await readAssignment(h, h.a, assignmentId);
    expect(read.status).toBe('completed');
    expect(read.result.score.points).toBe(11.5);
    expect(read.result.score.sections).toEqual([
      { sectionId: 'drawings', title: 'Drawings', points: 9, maxPoints: 10, percent: 90 },
      { sectionId: 'writing', title: 'Writing', points: 2.5, maxPoints: 5, percent: 50 },
    ]);
  });
});
