import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestInput } from '../../src/modules/catalog/schemas.js';
import { ADMIN_TOKEN, createHarness, type Harness } from '../helpers/harness.js';
import { expectError } from '../helpers/expect-error.js';
import { imageExample } from '../helpers/image-questions.js';
import { Student, assign, createPublishedTest, readAssignment } from '../helpers/student.js';
import { testModeTenant } from '../helpers/test-mode.js';

/**
 * hotspot and graphic_order through the product: authored through the admin
 * API (refused with the field named, nothing stored), answered through the
 * student's autosave and read back, marked at submission, simulated in test
 * mode, counted by the statistics, and exported to QTI and imported back
 * with the same question and marking.
 */
let h: Harness;
let hotspot: TestInput;
let order: TestInput;
beforeAll(async () => {
  h = await createHarness();
  hotspot = await imageExample(h, 'hotspot');
  order = await imageExample(h, 'graphic_order');
});
afterAll(() => h.close());

const A = '/api/admin/v1';
const testCount = async () => Number((await h.pool.query('SELECT count(*) AS n FROM tests')).rows[0].n);
const changed = (input: TestInput, change: (q: Record<string, any>) => void): TestInput => {
  const copy = structuredClone(input);
  change(copy.questions![0] as Record<string, any>);
  return copy;
};

describe('authoring image questions', () => {
  it('creates each example and reads it back as written', async () => {
    for (const input of [hotspot, order]) {
      const created = await h.admin('POST', `${A}/tests`, input);
      expect(created.statusCode, created.body).toBe(201);
      const q = (await h.admin('GET', `${A}/tests/${created.json().testId}`)).json().questions[0];
      expect(q).toEqual({ ...input.questions![0], ...(q.type === 'graphic_order' ? { partialCredit: true } : {}) });
    }
  });

  it.each([
    ['hotspot', 'a correct region that is not a region', (q: Record<string, any>) => (q.correctRegionIds = ['rv', 'nope']), 'questions.0.correctRegionIds.1'],
    ['hotspot', 'a rect whose right is left of its left', (q: Record<string, any>) => (q.regions[0].coords = [180, 60, 60, 150]), 'questions.0.regions.0.coords'],
    ['hotspot', 'a region outside the image', (q: Record<string, any>) => (q.regions[4].coords = [200, 30, 60]), 'questions.0.regions.4.coords'],
    ['hotspot', 'maxChoices below the correct regions', (q: Record<string, any>) => (q.maxChoices = 1), 'questions.0.maxChoices'],
    ['hotspot', 'a region without a label', (q: Record<string, any>) => delete q.regions[1].label, 'questions.0.regions.1'],
    ['graphic_order', 'two regions with one label', (q: Record<string, any>) => (q.regions[1].label = 'car park'), 'questions.0.regions.1.label'],
    ['graphic_order', 'an image naming an asset that does not exist', (q: Record<string, any>) => (q.image = 'asset:ast_nosuchasset'), 'questions.0.image'],
    ['graphic_order', 'an image that is not an asset reference', (q: Record<string, any>) => (q.image = 'https://example.org/map.png'), 'questions.0.image'],
  ])('%s: refuses %s in the error envelope, storing nothing', async (type, _what, change, field) => {
    const before = await testCount();
    const res = await h.admin('POST', `${A}/tests`, changed(type === 'hotspot' ? hotspot : order, change));
    const err = expectError(res, 400, 'invalid_request');
    expect(err.error.details?.some((d) => d.field.startsWith(field)), JSON.stringify(err.error.details)).toBe(true);
    expect(await testCount()).toBe(before);
  });
});

describe('taking image questions', () => {
  it('hotspot: saves the chosen regions in the question\'s order, shows them on reload, refuses a region twice, marks partial credit', async () => {
    const testId = await createPublishedTest(h, h.a, hotspot);
    const a = await assign(h, h.a, { externalUserId: 'hotspot-1', testId });
    const s = new Student(h);
    await s.start(a.startUrl);
    const page = (await s.page(a.assignmentId)).body;
    expect(page).toContain('data-type="hotspot"');
    expect(page).toContain('aria-pressed="false">Lower left chamber</button>');

    const twice = await s.save(a.assignmentId, [{ questionId: 'ventricles', value: ['rv', 'rv'], version: 1 }]);
    expect(expectError(twice, 400, 'invalid_request').error.details).toEqual([{ field: 'answers.0.value', message: 'names a region twice' }]);
    expect((await s.save(a.assignmentId, [{ questionId: 'ventricles', value: ['ra', 'rv'], version: 2 }])).statusCode).toBe(200);
    const row = await h.pool.query('SELECT value FROM answers WHERE assignment_id = $1', [a.assignmentId]);
    expect(row.rows[0].value).toEqual(['ra', 'rv']);
    expect((await s.page(a.assignmentId)).body).toContain('data-region-id="rv" aria-pressed="true">Lower left chamber</button>');

    // The image is served to the student (the version names its asset).
    const img = /<img src="(\/a\/content-assets\/ast_[A-Za-z0-9]+)"/.exec(page)![1]!;
    expect((await s.get(img)).statusCode).toBe(200);

    expect((await s.save(a.assignmentId, [{ questionId: 'ventricles', value: ['rv', 'lv', 'ra'], version: 3 }])).statusCode).toBe(200);
    expect((await s.submit(a.assignmentId)).statusCode).toBe(303);
    // 4 × (2 right − 1 wrong) ÷ 2 correct = 2.
    expect((await readAssignment(h, h.a, a.assignmentId)).result.score).toMatchObject({ points: 2, maxPoints: 4 });
  });

  it('graphic_order: shows a scrambled order, saves the candidate\'s order and marks regions in place', async () => {
    const testId = await createPublishedTest(h, h.a, order);
    const a = await assign(h, h.a, { externalUserId: 'order-1', testId });
    const s = new Student(h);
    await s.start(a.startUrl);
    const page = (await s.page(a.assignmentId)).body;
    const shown = [...page.matchAll(/<li class="order-item" data-item-id="([a-z-]+)">/g)].map((m) => m[1]);
    expect(shown.sort()).toEqual(['car-park', 'ford', 'hill', 'mill']);
    expect(shown).not.toEqual(['car-park', 'mill', 'hill', 'ford']);
    const delivery = await h.pool.query('SELECT delivery FROM attempts WHERE assignment_id = $1', [a.assignmentId]);
    expect(delivery.rows[0].delivery.itemOrder['walk-order']).toHaveLength(4);

    const short = await s.save(a.assignmentId, [{ questionId: 'walk-order', value: ['car-park', 'mill'], version: 1 }]);
    expect(expectError(short, 400, 'invalid_request').error.details).toEqual([{ field: 'answers.0.value', message: 'must list each of the 4 region ids exactly once (a permutation)' }]);
    expect((await s.save(a.assignmentId, [{ questionId: 'walk-order', value: ['car-park', 'hill', 'mill', 'ford'], version: 2 }])).statusCode).toBe(200);
    expect((await s.submit(a.assignmentId)).statusCode).toBe(303);
    // car-park and ford in place: 4 × 2 ÷ 4.
    expect((await readAssignment(h, h.a, a.assignmentId)).result.score).toMatchObject({ points: 2, maxPoints: 4 });
  });
});

describe('test mode, statistics and QTI', () => {
  it('simulate answers each image question with its key when aiming at full points', async () => {
    const t = await testModeTenant(h, h.b);
    for (const input of [hotspot, order]) {
      const testId = await createPublishedTest(h, h.b, input);
      const created = await h.partner(t, 'POST', '/api/partner/v1/assignments', { externalUserId: `sim-${input.questions![0]!.type}`, testId, user: { email: 'dev@example.org' }, callbackUrl: t.callbackUrl });
      expect(created.statusCode, created.body).toBe(201);
      const id = created.json().assignmentId as string;
      const simulate = (body: unknown) => h.partner(t, 'POST', `/api/partner/v1/assignments/${id}/simulate`, body);
      expect((await simulate({ action: 'start' })).statusCode).toBe(200);
      const sub = await simulate({ action: 'submit', score: 100 });
      expect(sub.statusCode, sub.body).toBe(200);
      expect(sub.json()).toMatchObject({ status: 'completed', result: { score: { points: 4, maxPoints: 4, percent: 100 } } });
      const answer = (await h.admin('GET', `/api/admin/v1/assignments/${id}`)).json().items[0].answer;
      expect(answer).toEqual(input.questions![0]!.type === 'hotspot' ? ['rv', 'lv'] : ['car-park', 'mill', 'hill', 'ford']);
    }
  });

  it('statistics count a hotspot question\'s regions as options', async () => {
    const testId = await createPublishedTest(h, h.a, hotspot);
    for (const [n, value] of [['rv', 'lv'], ['rv'], ['ra']].entries()) {
      const a = await assign(h, h.a, { externalUserId: `stats-${n}`, testId });
      const s = new Student(h);
      await s.start(a.startUrl);
      await s.page(a.assignmentId);
      expect((await s.save(a.assignmentId, [{ questionId: 'ventricles', value, version: 1 }])).statusCode).toBe(200);
      expect((await s.submit(a.assignmentId)).statusCode).toBe(303);
    }
    await h.runJobs();
    const res = await h.admin('GET', `${A}/tests/${testId}/statistics?institutionId=${h.a.institutionId}`);
    expect(res.statusCode, res.body).toBe(200);
    const item = res.json().items[0];
    expect(item, JSON.stringify(item)).toMatchObject({ questionId: 'ventricles', type: 'hotspot', attempts: 3 });
    expect(item.options.map((o: any) => [o.optionId, o.chosen, o.correct])).toEqual([['ra', 1, false], ['la', 0, false], ['rv', 2, true], ['lv', 1, true], ['ao', 0, false]]);
  });

  it('QTI export then import gives the same questions (the image stored again as an asset) and the same marks', async () => {
    for (const input of [hotspot, order]) {
      const created = (await h.admin('POST', `${A}/tests`, input)).json();
      const zip = await h.admin('GET', `${A}/tests/${created.testId}/export?format=qti3`);
      expect(zip.statusCode).toBe(200);
      const again = await h.app.inject({ method: 'POST', url: `${A}/tests/import`, headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/zip' }, payload: zip.rawPayload });
      expect(again.statusCode, again.body).toBe(201);
      const a = (await h.admin('GET', `${A}/tests/${created.testId}`)).json().questions[0];
      const b = (await h.admin('GET', `${A}/tests/${again.json().testId}`)).json().questions[0];
      expect(b.image).toMatch(/^asset:ast_/);
      expect({ ...b, image: a.image }).toEqual(a);
    }
  });
});
