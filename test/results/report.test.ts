import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestInput } from '../../src/modules/catalog/schemas.js';
import { createHarness, type Harness } from '../helpers/harness.js';
import { Student, assign, readAssignment } from '../helpers/student.js';
import { testModeTenant } from '../helpers/test-mode.js';
import { publishedVersion, seedAttempts } from '../helpers/results.js';

/**
 * The candidate report: result.reportUrl on the partner read once the result
 * is available, the page and the PDF behind it (read back with pdftotext),
 * and links that are tampered with, expired or for no report, all refused
 * alike.
 */
const SECTIONS = 24;
const PROCTORED: TestInput = {
  title: 'Proctored finals',
  description: '',
  durationMinutes: 30,
  proctoring: 'record',
  marking: 'auto',
  resultVisibility: 'immediate',
  passPercent: 60,
  sections: Array.from({ length: SECTIONS }, (_, i) => ({
    id: `s${i}`,
    title: `Part ${i + 1}${i === 0 ? ' <b>&amp; “quotes”</b>' : ''}`,
    questions: [{ id: `q${i}`, type: 'numeric' as const, prompt: `${i} + 1?`, points: 2, answer: i + 1 }],
  })),
};
const delivery = { sections: PROCTORED.sections!.map((s, i) => ({ sectionId: s.id!, questionIds: [`q${i}`] })), optionOrder: {}, itemOrder: {} };
const marks = Object.fromEntries(PROCTORED.sections!.map((_, i) => [`q${i}`, i % 2 === 0 ? 2 : 0.5]));
const sectionsOf = () => PROCTORED.sections!.map((s, i) => ({ sectionId: s.id!, title: s.title, points: marks[`q${i}`]!, maxPoints: 2, percent: marks[`q${i}`]! * 50 }));

let h: Harness;
let liveId: string;
let sandboxId: string;
let pdfDir: string;
beforeAll(async () => {
  h = await createHarness();
  pdfDir = fs.mkdtempSync(path.join(os.tmpdir(), 'assay-report-'));
  const test = await publishedVersion(h, h.a, PROCTORED);
  const seed = (externalUserId: string, name: string) => ({ externalUserId, name, delivery, answers: {}, marks });
  liveId = (await seedAttempts(h, h.a, test, 48, [seed('cand-77', 'Grace Hopper')], { passPercent: 60 }))[0]!;
  sandboxId = (await seedAttempts(h, h.a, test, 48, [seed('sandbox-cand', 'Tess Tmode')], { livemode: false, passPercent: 60 }))[0]!;
  await h.pool.query(`UPDATE assignments a SET score = jsonb_set(score, '{sections}', $2::jsonb) WHERE id = ANY($1)`, [[liveId, sandboxId], JSON.stringify(sectionsOf())]);
  const flag = (n: number, id: string, severity: string, outcome: string | null) =>
    h.pool.query(
      `INSERT INTO proctoring_flags (id, institution_id, assignment_id, signal_id, kind, severity, started_at, duration_seconds, ongoing, review_outcome, created_at, updated_at)
       VALUES ($1, $2, $3, $4, 'left_test', $5, now(), 3, false, $6, now(), now())`,
      [`flg_r${n}`, h.a.institutionId, id, `sig-${n}`, severity, outcome],
    );
  await flag(1, liveId, 'critical', 'confirmed');
  await flag(2, liveId, 'warning', 'dismissed');
  await flag(3, liveId, 'warning', null);
}, 60_000);
afterAll(async () => {
  await h?.close();
  fs.rmSync(pdfDir, { recursive: true, force: true });
});

const reportUrlOf = (id: string, expiresAt = h.ctx.signer.report.expiryFor(h.clock.now())) => h.ctx.signer.report.issue(id, expiresAt);
const get = (url: string) => h.app.inject({ method: 'GET', url: new URL(url).pathname + new URL(url).search });

function pdfText(pdf: Buffer, name: string): string {
  const file = path.join(pdfDir, `${name}.pdf`);
  fs.writeFileSync(file, pdf);
  return execFileSync('pdftotext', ['-layout', file, '-'], { encoding: 'utf8' });
}

describe('result.reportUrl on the partner read', () => {
  it('appears once the result is available, a signed link for 15 minutes, and nothing else changes', async () => {
    const { assignmentId, startUrl } = await assign(h, h.a, { externalUserId: 'reader-1' });
    const before = await readAssignment(h, h.a, assignmentId);
    expect(before.result).toEqual({ available: false, score: null });
    const student = new Student(h);
    await student.start(startUrl);
    await student.submit(assignmentId);
    const res = await h.partner(h.a, 'GET', `/api/partner/v1/assignments/${assignmentId}`);
    const after = res.json();
    expect(after.status).toBe('completed');
    expect(Object.keys(after.result)).toEqual(['available', 'score', 'reportUrl']);
    const url = new URL(after.result.reportUrl);
    expect(url.origin + url.pathname).toMatch(/^http:\/\/assay\.test\/reports\/[0-9a-f]{8}\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    // The link carries no API key, and the raw body places the field right after score.
    expect(after.result.reportUrl).not.toContain(h.a.apiKey);
    expect(res.body).toContain(`"score":${JSON.stringify(after.result.score)},"reportUrl":"${after.result.reportUrl}"}`);
    const link = h.ctx.signer.report.verify(url.pathname.split('/').pop()!, h.clock.now());
    expect(link.ok && link.assignmentId).toBe(assignmentId);
    const ttl = link.ok ? link.expiresAt.getTime() - h.clock.now().getTime() : 0;
    expect(ttl).toBeGreaterThan(14 * 60_000);
    expect(ttl).toBeLessThanOrEqual(15 * 60_000);
    const page = await get(after.result.reportUrl);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('Sam Student');
    expect(page.body).toContain('reader-1');
    expect(page.body).toContain('This test was not proctored.');
  });
});

describe('the report page', () => {
  it('shows institution, test, candidate, dates, score, pass, sections and the integrity summary, escaped', async () => {
    const res = await get(reportUrlOf(liveId));
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers['referrer-policy']).toBe('no-referrer');
    const body = res.body;
    for (const text of ['Alpha College', 'Proctored finals (version 1)', 'Grace Hopper', 'cand-77', 'Passed', 'Score by section', 'Part 24', 'Final']) expect(body, text).toContain(text);
    expect(body).toMatch(/<dt>Score<\/dt><dd>30 of 48 points \(62\.5%\)<\/dd>/);
    expect(body).toContain('<th scope="row">Part 1 &lt;b&gt;&amp;amp; “quotes”&lt;/b&gt;</th>');
    expect(body).toContain('raised 3 flags: 1 confirmed by a reviewer, 1 dismissed, 1 awaiting review.');
    expect(body).toMatch(/<th scope="row">Critical<\/th><td class="num">1<\/td><td class="num">1<\/td><td class="num">0<\/td><td class="num">0<\/td>/);
    expect(body).toMatch(/<th scope="row">Warning<\/th><td class="num">2<\/td><td class="num">0<\/td><td class="num">1<\/td><td class="num">1<\/td>/);
    expect(body).toMatch(/<dt>Completed<\/dt><dd>\d{1,2} \w+ 2026 at \d\d:\d\d UTC<\/dd>/);
    expect(body).not.toContain('Test mode');
    expect((await get('http://assay.test/reports/assets/report.css')).statusCode).toBe(200);
  });

  it('says test mode at the top of a test-mode report', async () => {
    const body = (await get(reportUrlOf(sandboxId))).body;
    expect(body).toMatch(/<title>Test mode: Result report: Proctored finals – Alpha College<\/title>/);
    expect(body).toContain('id="test-mode-notice"');
  });
});

describe('the report as a PDF', () => {
  it('has the same content, read back with pdftotext', async () => {
    const res = await get(`${reportUrlOf(liveId)}?format=pdf`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/pdf');
    expect(res.headers['content-disposition']).toBe(`inline; filename="report-${liveId}.pdf"`);
    expect(res.rawPayload.subarray(0, 5).toString()).toBe('%PDF-');
    const text = pdfText(res.rawPayload, 'live');
    for (const t of ['Alpha College', 'Result report: Proctored finals', 'Grace Hopper', 'cand-77', '30 of 48 points (62.5%)', 'Passed', 'Score by section', 'Part 24', '1 awaiting', 'Critical', 'Information']) expect(text, t).toContain(t);
    expect(text).not.toContain('Test mode');
    expect(text).toMatch(/Page 1 of \d/);
  });

  it('is tagged: headings, label and value lists and tables with header cells in reading order; page numbers are artifacts', async () => {
    const file = path.join(pdfDir, 'tagged.pdf');
    fs.writeFileSync(file, (await get(`${reportUrlOf(sandboxId)}?format=pdf`)).rawPayload);
    expect(execFileSync('pdfinfo', [file], { encoding: 'utf8' })).toMatch(/^Tagged:\s+yes$/m);
    // pdfinfo prints the structure tree as an indented outline: element types, and each element's text in quotes.
    const tree = execFileSync('pdfinfo', ['-struct-text', file], { encoding: 'utf8' });
    const roles = tree.split('\n').map((l) => l.trim().split(' ')[0]!).filter((r) => /^[A-Z][A-Za-z0-9]*$/.test(r));
    expect(roles[0]).toBe('Document');
    expect(roles.filter((r) => r === 'H1')).toHaveLength(1);
    const texts = tree.split('\n').map((l) => l.trim()).filter((l) => l.startsWith('"'));
    // The notice is read once, first; then the institution, the title and the parts in the page's order.
    expect(texts.slice(0, 3)).toEqual([expect.stringMatching(/^"Test mode: this report is of a sandbox run/), '"Alpha College"', expect.stringMatching(/^"Result report: /)]);
    expect(texts.filter((t) => t.startsWith('"Test mode'))).toHaveLength(1);
    expect(texts.some((t) => /^"Page \d+ of \d+"$/.test(t))).toBe(false);
    expect(tree).toMatch(/H2 \(block\)\n\s+"Candidate and test"/);
    expect(tree).toMatch(/Table \(block\)\n\s+Caption\n\s+"Score by section"\n\s+TR\n\s+TH\n/);
    expect(tree).toMatch(/LI \(block\)\n\s+Lbl \(block\)\n\s+"[^"]+"\n\s+LBody \(block\)/);
  });

  it('says test mode on every page of a test-mode report', async () => {
    const text = pdfText((await get(`${reportUrlOf(sandboxId)}?format=pdf`)).rawPayload, 'sandbox');
    const pages = text.split('\f').filter((p) => p.trim() !== '');
    expect(pages.length).toBeGreaterThan(1);
    for (const [i, page] of pages.entries()) {
      expect(page, `page ${i + 1}`).toContain('Test mode: this report is of a sandbox run');
      expect(page).toContain(`Page ${i + 1} of ${pages.length}`);
    }
  });
});

describe('links that do not open a report', () => {
  async function refused(url: string) {
    const res = await get(url);
    expect(res.statusCode, `${url} ${res.body.slice(0, 300)}`).toBe(404);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    for (const secret of ['Grace', 'cand-77', 'Alpha College', 'Proctored finals', liveId]) expect(res.body).not.toContain(secret);
    expect(res.body).toContain('This report link is not valid');
    return res.body;
  }

  it('refuses a tampered signature, payload or key id, and an expired link, with the same page', async () => {
    const url = reportUrlOf(liveId);
    const [kid, payload, sig] = url.split('/reports/')[1]!.split('.') as [string, string, string];
    const base = 'http://assay.test/reports/';
    const flip = (s: string) => (s[0] === 'A' ? 'B' : 'A') + s.slice(1);
    const pages = [
      await refused(`${base}${kid}.${payload}.${flip(sig)}`),
      await refused(`${base}${kid}.${Buffer.from(`${sandboxId}.${Buffer.from(payload, 'base64url').toString().split('.')[1]}`).toString('base64url')}.${sig}`),
      await refused(`${base}${flip(kid)}.${payload}.${sig}`),
      await refused(`${base}nonsense`),
      await refused(reportUrlOf(liveId, new Date(h.clock.now().getTime() - 1000))),
      await refused(`${reportUrlOf(liveId, new Date(h.clock.now().getTime() - 1000))}?format=pdf`),
    ];
    expect(new Set(pages).size).toBe(1);
  });

  it('refuses a start link token and a link to an assignment without a result', async () => {
    const { assignmentId, startUrl } = await assign(h, h.a, { externalUserId: 'not-done' });
    await refused(`http://assay.test/reports/${startUrl.split('/s/')[1]}`);
    await refused(reportUrlOf(assignmentId));
  });

  it('is not on the partner read of a test-mode key for another institution', async () => {
    const sandboxKey = await testModeTenant(h, h.b);
    expect((await h.partner(sandboxKey, 'GET', `/api/partner/v1/assignments/${sandboxId}`)).statusCode).toBe(404);
    expect((await h.partner(h.b, 'GET', `/api/partner/v1/assignments/${liveId}`)).statusCode).toBe(404);
  });
});

describe('logs', () => {
  it('never hold a report token: the path is redacted as a start link is', async () => {
    const { redactUrl } = await import('../../src/platform/log/redact-url.js');
    const url = new URL(reportUrlOf(liveId));
    expect(redactUrl(`${url.pathname}?format=pdf`)).toBe('/reports/[redacted]?format=pdf');
    expect(redactUrl('/reports/assets/report.css')).toBe('/reports/assets/report.css');
  });
});
