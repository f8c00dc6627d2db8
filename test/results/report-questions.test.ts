import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestInput } from '../../src/modules/catalog/schemas.js';
import { createHarness, type Harness } from '../helpers/harness.js';
import { readAssignment } from '../helpers/student.js';
import { publishedVersion, seedAttempts } from '../helpers/results.js';

/**
 * The per-question outcome in a candidate's report: absent by default; with
 * the institution's `reportShowsQuestions` on (operator API or CLI), the page
 * and the PDF list each question the candidate was given, in their order,
 * with its section, the points awarded of its points and the outcome in words.
 */
const TEST: TestInput = {
  title: 'Sectioned quiz',
  description: '',
  durationMinutes: 10,
  proctoring: 'none',
  marking: 'auto',
  resultVisibility: 'immediate',
  passPercent: 50,
  sections: [
    { id: 'alg', title: 'Algebra', questions: [{ id: 'q1', type: 'numeric', prompt: '1 + 1?', points: 2, answer: 2 }, { id: 'q2', type: 'numeric', prompt: '2 + 2?', points: 2, answer: 4 }] },
    { id: 'geo', title: 'Geometry', questions: [{ id: 'q3', type: 'numeric', prompt: 'Sides of a square?', points: 4, answer: 4 }] },
  ],
};

let h: Harness;
let assignmentId: string;

beforeAll(async () => {
  h = await createHarness();
  const test = await publishedVersion(h, h.a, TEST);
  // The candidate saw Geometry's question first, then Algebra's in reverse.
  const delivery = { sections: [{ sectionId: 'geo', questionIds: ['q3'] }, { sectionId: 'alg', questionIds: ['q2', 'q1'] }], optionOrder: {}, itemOrder: {} };
  assignmentId = (await seedAttempts(h, h.a, test, 8, [{ externalUserId: 'cand-1', delivery, answers: {}, marks: { q1: 2, q2: 0, q3: 1.5 } }]))[0]!;
});
afterAll(() => h.close());

async function report(format?: 'pdf') {
  const { result } = await readAssignment(h, h.a, assignmentId);
  const url = new URL(result.reportUrl);
  return h.app.inject({ method: 'GET', url: `${url.pathname}${format ? '?format=pdf' : ''}` });
}

describe('the per-question outcome in the report', () => {
  it('is not shown by default', async () => {
    expect((await h.admin('GET', `/api/admin/v1/institutions/${h.a.institutionId}/settings`)).json().reportShowsQuestions).toBe(false);
    expect((await report()).body).not.toContain('Points by question');
  });

  it('is shown, in the order the candidate saw the questions, once the institution allows it, on the page and in the PDF', async () => {
    const set = await h.admin('PATCH', `/api/admin/v1/institutions/${h.a.institutionId}/settings`, { reportShowsQuestions: true });
    expect(set.json()).toEqual({ allowProctoringRelaxations: false, reportShowsQuestions: true });
    const page = (await report()).body;
    expect(page).toContain('Points by question, in the order the candidate saw them');
    const table = page.slice(page.indexOf('Points by question'));
    const rows = [...table.slice(0, table.indexOf('</table>')).matchAll(/<tr>(.*?)<\/tr>/g)].slice(1).map((m) => [...m[1]!.matchAll(/<t[dh][^>]*>([^<]*)<\/t[dh]>/g)].map((c) => c[1]));
    expect(rows).toEqual([
      ['1', 'Geometry', '1.5', '4', 'Part marks'],
      ['2', 'Algebra', '0', '2', 'No marks'],
      ['3', 'Algebra', '2', '2', 'Full marks'],
    ]);
    const pdf = await report('pdf');
    expect(pdf.statusCode).toBe(200);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'assay-report-q-'));
    fs.writeFileSync(path.join(dir, 'r.pdf'), pdf.rawPayload);
    let text: string;
    try {
      text = execFileSync('pdftotext', ['-layout', path.join(dir, 'r.pdf'), '-'], { encoding: 'utf8' });
    } catch {
      return; // poppler-utils missing: the page above holds the same content (report-content.ts builds both).
    }
    expect(text).toContain('Points by question');
    expect(text).toMatch(/1\s+Geometry\s+1\.5\s+4\s+Part marks/);
    expect(text).toMatch(/3\s+Algebra\s+2\s+2\s+Full marks/);
  });

  it('refuses a setting that is not a boolean, changing nothing', async () => {
    const res = await h.admin('PATCH', `/api/admin/v1/institutions/${h.b.institutionId}/settings`, { reportShowsQuestions: 'yes' });
    expect(res.statusCode).toBe(400);
    expect((await h.admin('GET', `/api/admin/v1/institutions/${h.b.institutionId}/settings`)).json().reportShowsQuestions).toBe(false);
  });
});
