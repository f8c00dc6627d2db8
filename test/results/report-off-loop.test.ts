import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_REPORT_FONT_DIRS } from '../../src/platform/config.js';
import { allCatalogues } from '../../src/platform/i18n/catalogue.js';
import { createHarness, type Harness } from '../helpers/harness.js';
import { componentAvailable } from '../helpers/components.js';
import { partnerReadsDuring } from '../helpers/read-during.js';
import { readAssignment } from '../helpers/student.js';
import { publishedVersion } from '../helpers/results.js';
import { longReportTest, seedLongReport } from '../../scripts/seed-heavy-results.js';

/**
 * A long report's PDF is drawn off the event loop (report-pdf-task.ts on the
 * worker pool): a Japanese report of 40 questions in 4 parts with the
 * reviewer's feedback on 10 of them embeds and subsets the CJK faces, which
 * held the loop for seconds; drawn on a thread, a partner's read meanwhile
 * answers within a second (the bound of test/catalog/import-hostile.test.ts),
 * and the PDF is the same document: pdftotext reads the words back, and
 * pdffonts lists its faces, every one embedded.
 */
const hasPoppler = componentAvailable('poppler-utils (pdftotext, pdffonts)', fs.existsSync('/usr/bin/pdftotext') && fs.existsSync('/usr/bin/pdffonts'), 'apt-get install -y poppler-utils');
const hasFonts = componentAvailable(
  'The Noto fonts of the report PDF',
  ['NotoSans-Regular.ttf', 'NotoSansCJK-Regular.ttc'].every((name) => DEFAULT_REPORT_FONT_DIRS.some((d) => fs.existsSync(path.join(d, name)))),
  'apt-get install -y fonts-noto-core fonts-noto-cjk',
);

let h: Harness;
let dir: string;
let reportPath: string;
beforeAll(async () => {
  h = await createHarness();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'assay-report-off-loop-'));
  const test = await publishedVersion(h, h.a, longReportTest(4, 10));
  await h.admin('PATCH', `/api/admin/v1/institutions/${h.a.institutionId}/settings`, { reportShowsQuestions: true });
  const assignmentId = await seedLongReport(h.pool, { institutionId: h.a.institutionId, ...test, locale: 'ja', sections: 4, perSection: 10, feedbackQuestions: 10 });
  reportPath = new URL((await readAssignment(h, h.a, assignmentId)).result.reportUrl).pathname;
}, 60_000);
afterAll(async () => {
  await h?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

const ja = (key: string) => allCatalogues().get('ja')![key]!;

describe.skipIf(!hasPoppler || !hasFonts)('a long report PDF, drawn off the event loop', () => {
  it('leaves a partner read meanwhile answering within 1 s, and reads back with its words and embedded CJK faces', async () => {
    const run = await partnerReadsDuring(h, async (base) => {
      const res = await fetch(`${base}${reportPath}?format=pdf`);
      return { status: res.status, type: res.headers.get('content-type'), bytes: Buffer.from(await res.arrayBuffer()) };
    });
    expect(run.result.status).toBe(200);
    expect(run.result.type).toBe('application/pdf');
    expect(run.reads).toBeGreaterThan(0);
    expect(run.maxReadMs).toBeLessThan(1000);
    expect(run.maxLoopDelayMs).toBeLessThan(500);

    const file = path.join(dir, 'long-ja.pdf');
    fs.writeFileSync(file, run.result.bytes);
    const text = execFileSync('pdftotext', ['-enc', 'UTF-8', file, '-'], { encoding: 'utf8' });
    for (const key of ['report.candidateAndTest', 'report.feedback', 'report.feedbackOverall', 'report.scoreBySection']) expect(text, key).toContain(ja(key));
    expect(text).toContain('Part 4: sources and analysis');
    expect(text).toContain('Grace Hopper');
    // The last feedback item (question 10) made it to the end of the document.
    expect(text).toContain("10");
    expect(text.replace(/\s/g, '')).toContain('どの原因が最も重要だったのか');
    const fonts = execFileSync('pdffonts', [file], { encoding: 'utf8' });
    expect(fonts).toMatch(/NotoSansCJKjp-(Regular|Bold)/);
    for (const line of fonts.split('\n').slice(2).filter((l) => l.trim())) expect(line, line).toMatch(/\byes\s+yes\s+yes\b/);
  }, 120_000);
});
