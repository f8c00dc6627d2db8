import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestInput } from '../../src/modules/catalog/schemas.js';
import { ADMIN_TOKEN, createHarness, type Harness } from '../helpers/harness.js';
import { expectError } from '../helpers/expect-error.js';
import { Student, assign, createPublishedTest } from '../helpers/student.js';
import { testModeTenant } from '../helpers/test-mode.js';

/**
 * A select_point question through the product: authored through the API
 * (refused, naming the field, when its areas or points break the rules),
 * its image served to the student whose page shows it, answered by
 * autosave (more points than allowed refused), marked at submission by the
 * areas hit, simulated in test mode at full marks, counted in statistics,
 * and exported to QTI and imported back with the same marking.
 */
const A = '/api/admin/v1';
const EXAMPLE = JSON.parse(fs.readFileSync(path.resolve(import.meta.dirname, '../../docs/examples/tests/select_point.json'), 'utf8')) as TestInput;
const SVG = '<svg xmlns="http://www.w3.org/2000/svg" width="400" height="300"><rect width="400" height="300" fill="#fdf6f0"/><rect x="100" y="100" width="100" height="100" fill="#e8a0a0"/></svg>';

let h: Harness;
let input: TestInput;
let testId: string;
let assetId: string;
beforeAll(async () => {
  h = await createHarness();
  const up = await h.app.inject({ method: 'POST', url: `${A}/assets`, headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'image/svg+xml' }, payload: SVG });
  expect(up.statusCode, up.body).toBe(201);
  assetId = up.json().assetId;
  input = structuredClone(EXAMPLE);
  (input.questions![0] as Record<string, unknown>).image = `asset:${assetId}`;
  testId = await createPublishedTest(h, h.a, input);
});
afterAll(() => h.close());

const withQuestion = (change: (q: Record<string, any>) => void): TestInput => {
  const copy = structuredClone(input);
  change(copy.questions![0] as Record<string, any>);
  return copy;
};
const testCount = async () => Number((await h.pool.query('SELECT count(*) AS n FROM tests')).rows[0].n);

async function started(who: string) {
  const a = await assign(h, h.a, { testId, externalUserId: who });
  const s = new Student(h);
  await s.start(a.startUrl);
  const page = await s.page(a.assignmentId);
  return { a, s, page };
}

describe('authoring select_point questions', () => {
  it('reads the question back as written', async () => {
    const read = (await h.admin('GET', `${A}/tests/${testId}`)).json();
    expect(read.questions[0]).toMatchObject({ id: 'chambers', type: 'select_point', points: 4, maxPoints: 3, image: `asset:${assetId}` });
    expect(read.questions[0].areas.map((a: { id: string }) => a.id)).toEqual(['lv', 'ao', 'ra', 'valve']);
  });

  it.each([
    ['a repeated area id', (q: Record<string, any>) => (q.areas[1].id = 'lv'), 'questions.0.areas.1.id'],
    ['a rect with right < left', (q: Record<string, any>) => (q.areas[0].coords = [200, 100, 100, 200]), 'questions.0.areas.0.coords'],
    ['a negative area points', (q: Record<string, any>) => (q.areas[0].points = -1), 'questions.0.areas.0.points'],
    ['full marks out of reach', (q: Record<string, any>) => (q.maxPoints = 1), 'questions.0.points'],
    ['no image description', (q: Record<string, any>) => (q.imageAlt = ''), 'questions.0.imageAlt'],
    ['an area without a label', (q: Record<string, any>) => delete q.areas[2].label, 'questions.0.areas.2'],
  ])('refuses %s in the error envelope, naming the field, creating nothing', async (_what, change, field) => {
    const before = await testCount();
    const err = expectError(await h.admin('POST', `${A}/tests`, withQuestion(change)), 400, 'invalid_request');
    expect(err.error.details?.some((d) => d.field.startsWith(field)), JSON.stringify(err.error.details)).toBe(true);
    expect(await testCount()).toBe(before);
  });
});

describe('a student answers a select_point question', () => {
  it('sees the image, saves points by autosave, reads them back, and is marked by the areas hit', async () => {
    const { a, s, page } = await started('sp-student');
    expect(page.body).toContain(`src="/a/content-assets/${assetId}"`);
    expect((await s.get(`/a/content-assets/${assetId}`)).statusCode).toBe(200);

    const tooMany = await s.save(a.assignmentId, [{ questionId: 'chambers', value: [{ x: 1, y: 1 }, { x: 2, y: 2 }, { x: 3, y: 3 }, { x: 4, y: 4 }], version: 1 }]);
    expect(tooMany.statusCode, tooMany.body).toBe(400);
    expect(tooMany.body).toContain('at most 3 may be placed');

    // Two points in the ventricle (counted once) and one in the aorta: 2 + 1 = 3 of 4.
    const value = [{ x: 150, y: 150 }, { x: 120, y: 120 }, { x: 250, y: 80 }];
    expect((await s.save(a.assignmentId, [{ questionId: 'chambers', value, version: 1 }])).statusCode).toBe(200);
    const again = await s.page(a.assignmentId);
    expect(again.body).toContain('Point 3 at 250, 80 — in Aorta');
    const stored = (await h.admin('GET', `${A}/assignments/${a.assignmentId}`)).json().items[0];
    expect(stored.answer).toEqual(value);

    expect((await s.submit(a.assignmentId)).statusCode).toBe(303);
    const marked = (await h.admin('GET', `${A}/assignments/${a.assignmentId}`)).json().items[0];
    expect(marked.mark.points).toBe(3);
    expect((await h.partner(h.a, 'GET', `/api/partner/v1/assignments/${a.assignmentId}`)).json().result.score).toMatchObject({ points: 3, maxPoints: 4 });
  });

  it('a point in two overlapping areas counts for the one listed first', async () => {
    const { a, s } = await started('sp-overlap');
    expect((await s.save(a.assignmentId, [{ questionId: 'chambers', value: [{ x: 190, y: 190 }], version: 1 }])).statusCode).toBe(200);
    expect((await s.submit(a.assignmentId)).statusCode).toBe(303);
    expect((await h.admin('GET', `${A}/assignments/${a.assignmentId}`)).json().items[0].mark.points).toBe(2);
  });
});

describe('select_point in test mode, statistics and QTI', () => {
  it('simulate submits answers worth full marks', async () => {
    const sandbox = await testModeTenant(h, h.a);
    const created = await h.partner(sandbox, 'POST', '/api/partner/v1/assignments', { externalUserId: 'sim-sp', testId, user: { email: 'dev@example.org' }, callbackUrl: sandbox.callbackUrl });
    expect(created.statusCode, created.body).toBe(201);
    const id = created.json().assignmentId;
    const simulate = (body: unknown) => h.partner(sandbox, 'POST', `/api/partner/v1/assignments/${id}/simulate`, body);
    expect((await simulate({ action: 'start' })).statusCode).toBe(200);
    const done = await simulate({ action: 'submit', score: 100 });
    expect(done.statusCode, done.body).toBe(200);
    expect(done.json()).toMatchObject({ status: 'completed', result: { score: { points: 4, maxPoints: 4, percent: 100 } } });
  });

  it('statistics include the question: its facility from the marks of the two live attempts', async () => {
    await h.runJobs();
    const stats = (await h.admin('GET', `${A}/tests/${testId}/statistics?institutionId=${h.a.institutionId}`)).json();
    const item = stats.items.find((i: { questionId: string }) => i.questionId === 'chambers');
    // 3 of 4 and 2 of 4 (the test-mode attempt is not counted).
    expect(item.facility).toBeCloseTo((3 / 4 + 2 / 4) / 2, 6);
  });

  it('exports to QTI with its image and imports back as the same question', async () => {
    const res = await h.admin('GET', `${A}/tests/${testId}/export?format=qti3`);
    expect(res.statusCode).toBe(200);
    const { unzipSync } = await import('fflate');
    const files = unzipSync(res.rawPayload);
    const item = new TextDecoder().decode(files['items/chambers.xml']);
    expect(item).toContain('<qti-select-point-interaction response-identifier="RESPONSE" max-choices="3"');
    expect(item).toContain(`<img src="../assets/${assetId}.svg"`);
    expect(Object.keys(files)).toContain(`assets/${assetId}.svg`);

    const imported = await h.app.inject({ method: 'POST', url: `${A}/tests/import`, headers: { 'content-type': 'application/zip', authorization: `Bearer ${ADMIN_TOKEN}` }, payload: Buffer.from(res.rawPayload) });
    expect(imported.statusCode, imported.body).toBe(201);
    expect(imported.json().report.skipped).toEqual([]);
    const back = (await h.admin('GET', `${A}/tests/${imported.json().testId}`)).json().questions[0];
    const { image: _i, ...rest } = (await h.admin('GET', `${A}/tests/${testId}`)).json().questions[0];
    expect(back).toMatchObject(rest);
    expect(back.image).toMatch(/^asset:ast_/);
  });
});
