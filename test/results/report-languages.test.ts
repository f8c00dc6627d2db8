import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestInput } from '../../src/modules/catalog/schemas.js';
import { allCatalogues } from '../../src/platform/i18n/catalogue.js';
import type { LocaleTag } from '../../src/platform/i18n/locales.js';
import { DEFAULT_REPORT_FONT_DIRS } from '../../src/platform/config.js';
import { createHarness, type Harness } from '../helpers/harness.js';
import { componentAvailable } from '../helpers/components.js';
import { readAssignment } from '../helpers/student.js';
import { publishedVersion, seedAttempts } from '../helpers/results.js';

/**
 * The candidate report in the candidate's language (candidate_locale, set
 * here by SQL as the Language menu sets it): the PDF in Arabic, Hindi and
 * Japanese, read back with pdftotext, holds the catalogue's words for that
 * language, the score's figures and the (English) test title, with the Noto
 * faces embedded (pdffonts); the page in Hebrew is right to left.
 */
const hasPoppler = componentAvailable('poppler-utils (pdftotext, pdffonts)', fs.existsSync('/usr/bin/pdftotext') && fs.existsSync('/usr/bin/pdffonts'), 'apt-get install -y poppler-utils');
const fontFile = (name: string) => DEFAULT_REPORT_FONT_DIRS.some((d) => fs.existsSync(path.join(d, name)));
const hasFonts = componentAvailable(
  'The Noto fonts of the report PDF',
  ['NotoSans-Regular.ttf', 'NotoSansArabic-Regular.ttf', 'NotoSansDevanagari-Regular.ttf', 'NotoSansCJK-Regular.ttc'].every(fontFile),
  'apt-get install -y fonts-noto-core fonts-noto-cjk',
);

const TEST: TestInput = {
  title: 'Reading check',
  description: '',
  durationMinutes: 10,
  proctoring: 'none',
  marking: 'auto',
  resultVisibility: 'immediate',
  passPercent: 50,
  sections: [{ id: 'a', title: 'Part A', questions: [{ id: 'q1', type: 'numeric', prompt: '1 + 1?', points: 16, answer: 2 }, { id: 'q2', type: 'numeric', prompt: '2 + 2?', points: 32, answer: 4 }] }],
};
const LANGUAGES = ['ar', 'hi', 'ja', 'he'] as const;

let h: Harness;
let dir: string;
const assignmentOf = new Map<string, string>();
beforeAll(async () => {
  h = await createHarness();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'assay-report-lang-'));
  const test = await publishedVersion(h, h.a, TEST);
  const delivery = { sections: [{ sectionId: 'a', questionIds: ['q1', 'q2'] }], optionOrder: {}, itemOrder: {} };
  const ids = await seedAttempts(h, h.a, test, 48, LANGUAGES.map((tag) => ({ externalUserId: `cand-${tag}`, name: 'Grace Hopper', delivery, answers: {}, marks: { q1: 16, q2: 14 } })));
  for (const [i, tag] of LANGUAGES.entries()) {
    await h.pool.query('UPDATE assignments SET candidate_locale = $2 WHERE id = $1', [ids[i], tag]);
    assignmentOf.set(tag, ids[i]!);
  }
}, 60_000);
afterAll(async () => {
  await h?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

async function report(tag: string, format?: 'pdf') {
  const { result } = await readAssignment(h, h.a, assignmentOf.get(tag)!);
  const url = new URL(result.reportUrl);
  return h.app.inject({ method: 'GET', url: `${url.pathname}${format ? '?format=pdf' : ''}`, headers: { 'accept-language': 'en-GB' } });
}

const message = (tag: LocaleTag, key: string) => allCatalogues().get(tag)![key]!;
/** Words a heading or cell of the report holds as they are, without arguments. */
const PLAIN_KEYS = ['report.candidateAndTest', 'report.institution', 'report.notProctored', 'report.passed', 'report.markingFinal', 'report.externalUserId'];

describe.skipIf(!hasPoppler || !hasFonts)('the report PDF in the candidate’s language', () => {
  it.each([
    ['ar', /NotoSansArabic-(Regular|Bold)/],
    ['hi', /NotoSansDevanagari-(Regular|Bold)/],
    ['ja', /NotoSansCJKjp-(Regular|Bold)/],
  ] as const)('in %s: the catalogue’s words, the score and the test title, with its Noto face embedded', async (tag, face) => {
    const res = await report(tag, 'pdf');
    expect(res.statusCode).toBe(200);
    const file = path.join(dir, `${tag}.pdf`);
    fs.writeFileSync(file, res.rawPayload);
    // pdftotext marks right-to-left stretches with embedding controls; the words are what is compared.
    const text = execFileSync('pdftotext', ['-enc', 'UTF-8', file, '-'], { encoding: 'utf8' }).replace(/[\u200E\u200F\u202A-\u202E]/g, '');
    // poppler writes a right-to-left stretch it is given in logical order (each line's ActualText) reversed: so the
    // Arabic words are looked for either way round; the glyphs' own order is checked in report-pdf-text.test.ts.
    const found = (s: string) => text.includes(s) || (tag === 'ar' && text.includes([...s].reverse().join('')));
    for (const key of PLAIN_KEYS) expect(found(message(tag, key)), `${tag} ${key}: ${message(tag, key)}\n${text}`).toBe(true);
    for (const figure of ['30', '48', '62.5']) expect(text).toMatch(new RegExp(`(^|[^0-9.])${figure.replace('.', '\\.')}([^0-9]|$)`, 'm'));
    expect(text).toContain('Reading check');
    expect(text).toContain('Grace Hopper');
    const fonts = execFileSync('pdffonts', [file], { encoding: 'utf8' });
    expect(fonts).toMatch(face);
    // Every font is embedded (the "emb" column): nothing is left to the reader's machine.
    for (const line of fonts.split('\n').slice(2).filter((l) => l.trim())) expect(line, line).toMatch(/\byes\s+yes\s+yes\b/);
  });
});

describe('the report page in the candidate’s language', () => {
  it('is right to left in Hebrew, with the catalogue’s headings and the figures isolated', async () => {
    const body = (await report('he')).body;
    expect(body).toMatch(/<html lang="he" dir="rtl">/);
    expect(body).toContain(`<h2 id="about">${message('he', 'report.candidateAndTest')}</h2>`);
    expect(body).toContain('<bdi>Reading check</bdi>');
    expect(body).toContain('<bdi>cand-he</bdi>');
    expect(body).toContain('href="/reports/assets/report.css"');
  });

  it('has the printed test-mode notice in each language, in the top right margin for a right-to-left one', async () => {
    const css = await h.app.inject({ method: 'GET', url: '/reports/assets/report-test-mode.ar.css' });
    expect(css.statusCode).toBe(200);
    expect(css.body).toContain(`content: "${message('ar', 'report.testModeNotice')}"`);
    expect(css.body).toContain('@top-right');
    const english = await h.app.inject({ method: 'GET', url: '/reports/assets/report-test-mode.css' });
    expect(english.body).toContain(`content: "${message('en', 'report.testModeNotice')}"`);
    expect(english.body).toContain('@top-left');
  });

  it('keeps the partner’s English for a candidate who chose nothing, whatever the browser says', async () => {
    await h.pool.query('UPDATE assignments SET candidate_locale = NULL, locale = $2 WHERE id = $1', [assignmentOf.get('he'), 'en']);
    const body = (await report('he')).body;
    expect(body).toMatch(/<html lang="en-GB" dir="ltr">/);
    expect(body).toContain('<h2 id="about">Candidate and test</h2>');
    await h.pool.query('UPDATE assignments SET candidate_locale = $2, locale = NULL WHERE id = $1', [assignmentOf.get('he'), 'he']);
  });
});
