import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { joinTransaction, withTransaction } from '../../src/platform/db.js';
import { AppError } from '../../src/platform/errors.js';
import { averageScoreByTest, completionsPerDay, countAssignmentsByStatus } from '../../src/modules/assignments/assignment-stats.js';
import { listAssignments } from '../../src/modules/assignments/list-assignments.js';
import { addCallbackDomain, getCallbackDomains, removeCallbackDomain } from '../../src/modules/institutions/institutions.js';
import { listMarkingQueue } from '../../src/modules/marking/marking-queue.js';
import { MarksChangedError } from '../../src/modules/marking/marks-version.js';
import { finishMarking, openMarkingItem, saveMarkingDraft } from '../../src/modules/marking/reviewer-marking.js';
import { recordMarks } from '../../src/modules/marking/record-marks.js';
import { createHarness, type Harness } from '../helpers/harness.js';
import { ALL_TYPES_TEST, Student, assign, createPublishedTest, readAssignment } from '../helpers/student.js';

let h: Harness;
let hybridTestId: string;
beforeAll(async () => {
  h = await createHarness();
  hybridTestId = await createPublishedTest(h, h.a, ALL_TYPES_TEST);
});
afterAll(() => h.close());

async function submittedHybrid(externalUserId: string, essay = 'I had tea and read the news.') {
  const a = await assign(h, h.a, { testId: hybridTestId, externalUserId });
  const s = new Student(h);
  await s.start(a.startUrl);
  await s.page(a.assignmentId);
  await s.save(a.assignmentId, [
    { questionId: 'sc', value: 'a', version: 1 },
    { questionId: 'es', value: essay, version: 1 },
  ]);
  expect((await s.submit(a.assignmentId)).statusCode).toBe(303);
  return a.assignmentId;
}

describe('listAssignments', () => {
  it('pages by keyset both ways, filters by status, test, date and externalUserId prefix, and never shows another tenant', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 7; i++) ids.push((await assign(h, h.a, { externalUserId: `list-${i}` })).assignmentId);
    await assign(h, h.b, { externalUserId: 'list-b' });

    const first = await listAssignments(h.pool, { institutionId: h.a.institutionId, externalUserId: 'list-' }, { limit: 3 });
    expect(first.data.map((r) => r.externalUserId)).toEqual(['list-6', 'list-5', 'list-4']);
    expect(first.newer).toBeNull();
    const second = await listAssignments(h.pool, { institutionId: h.a.institutionId, externalUserId: 'list-' }, { limit: 3, cursor: first.older! });
    expect(second.data.map((r) => r.externalUserId)).toEqual(['list-3', 'list-2', 'list-1']);
    const third = await listAssignments(h.pool, { institutionId: h.a.institutionId, externalUserId: 'list-' }, { limit: 3, cursor: second.older! });
    expect(third.data.map((r) => r.externalUserId)).toEqual(['list-0']);
    expect(third.older).toBeNull();
    const back = await listAssignments(h.pool, { institutionId: h.a.institutionId, externalUserId: 'list-' }, { limit: 3, cursor: second.newer!, direction: 'newer' });
    expect(back.data.map((r) => r.externalUserId)).toEqual(['list-6', 'list-5', 'list-4']);
    expect(back.newer).toBeNull();

    const exact = await listAssignments(h.pool, { institutionId: h.a.institutionId, externalUserId: 'list-3' }, { limit: 10 });
    expect(exact.data.map((r) => r.assignmentId)).toEqual([ids[3]]);
    // LIKE wildcards in the search are literal.
    expect((await listAssignments(h.pool, { institutionId: h.a.institutionId, externalUserId: 'list_' }, { limit: 10 })).data).toEqual([]);
    expect((await listAssignments(h.pool, { institutionId: h.a.institutionId, externalUserId: 'list-b' }, { limit: 10 })).data).toEqual([]);

    const byStatus = await listAssignments(h.pool, { institutionId: h.a.institutionId, status: 'completed' }, { limit: 10 });
    expect(byStatus.data).toEqual([]);
    const byTest = await listAssignments(h.pool, { institutionId: h.a.institutionId, testId: h.b.testId }, { limit: 10 });
    expect(byTest.data).toEqual([]);
    const future = await listAssignments(h.pool, { institutionId: h.a.institutionId, createdFrom: new Date(Date.now() + 86_400_000) }, { limit: 10 });
    expect(future.data).toEqual([]);
    const past = await listAssignments(h.pool, { institutionId: h.a.institutionId, createdTo: new Date(Date.now() + 86_400_000), externalUserId: 'list-' }, { limit: 10 });
    expect(past.data).toHaveLength(7);
    // A malformed cursor is no cursor.
    expect((await listAssignments(h.pool, { institutionId: h.a.institutionId, externalUserId: 'list-' }, { limit: 2, cursor: 'junk' })).data).toHaveLength(2);
  });
});

describe('marking by a signed-in reviewer', () => {
  const jo = { staffId: 'stf_jo', label: 'Jo Reviewer' };
  const kim = { staffId: 'stf_kim', label: 'kim@alpha.example' };

  it('lists the queue oldest first with counts, tells a second reviewer who opened the item, keeps drafts per reviewer, and finishes', async () => {
    const first = await submittedHybrid('queue-1');
    const second = await submittedHybrid('queue-2');
    const queue = await listMarkingQueue(h.pool, { institutionId: h.a.institutionId, limit: 10, offset: 0 });
    expect(queue.data.map((q) => q.assignmentId).slice(0, 2)).toEqual([first, second]);
    expect(queue.total).toBeGreaterThanOrEqual(2);
    expect(queue.byTest.find((t) => t.testId === hybridTestId)!.count).toBe(queue.total);
    expect((await listMarkingQueue(h.pool, { institutionId: h.b.institutionId, limit: 10, offset: 0 })).total).toBe(0);

    const byJo = await openMarkingItem(h.ctx, h.a.institutionId, first, jo);
    expect(byJo.others).toEqual([]);
    const byKim = await openMarkingItem(h.ctx, h.a.institutionId, first, kim);
    expect(byKim.others.map((o) => o.label)).toEqual(['Jo Reviewer']);

    await saveMarkingDraft(h.ctx, { institutionId: h.a.institutionId, assignmentId: first, staffId: jo.staffId, marks: [{ questionId: 'es', points: 4, comment: 'Short.' }], baseVersion: byJo.version });
    expect((await openMarkingItem(h.ctx, h.a.institutionId, first, jo)).draft!.marks).toEqual([{ questionId: 'es', points: 4, comment: 'Short.' }]);
    expect((await openMarkingItem(h.ctx, h.a.institutionId, first, kim)).draft).toBeNull();

    // Out of range, and missing on finish: refused with the field of the form.
    const bad = saveMarkingDraft(h.ctx, { institutionId: h.a.institutionId, assignmentId: first, staffId: jo.staffId, marks: [{ questionId: 'es', points: 11, comment: '' }], baseVersion: byJo.version });
    await expect(bad).rejects.toMatchObject({ code: 'invalid_request', details: [{ field: 'points-es' }] });
    const missing = finishMarking(h.ctx, { institutionId: h.a.institutionId, assignmentId: first, markedBy: 'jo@alpha.example', marks: [], baseVersion: byJo.version });
    await expect(missing).rejects.toMatchObject({ code: 'invalid_request', details: [{ field: 'points-es' }] });

    const done = await finishMarking(h.ctx, { institutionId: h.a.institutionId, assignmentId: first, markedBy: 'jo@alpha.example', marks: [{ questionId: 'es', points: 8, comment: 'Good.' }], baseVersion: byJo.version });
    expect(done.status).toBe('completed');
    expect(done.items.find((i) => i.questionId === 'es')!.mark).toMatchObject({ points: 8, markedBy: 'jo@alpha.example', comment: 'Good.' });
    expect((await readAssignment(h, h.a, first)).result.score).toMatchObject({ gradingStatus: 'final', points: 10 });
    const { rows } = await h.pool.query('SELECT count(*)::int AS n FROM marking_drafts WHERE assignment_id = $1', [first]);
    expect(rows[0].n).toBe(0);

    // Kim's form is now stale: neither a draft nor a finish from it is applied.
    await expect(
      saveMarkingDraft(h.ctx, { institutionId: h.a.institutionId, assignmentId: first, staffId: kim.staffId, marks: [{ questionId: 'es', points: 2, comment: '' }], baseVersion: byKim.version }),
    ).rejects.toBeInstanceOf(MarksChangedError);
    await expect(
      finishMarking(h.ctx, { institutionId: h.a.institutionId, assignmentId: first, markedBy: 'kim@alpha.example', marks: [{ questionId: 'es', points: 2, comment: '' }], baseVersion: byKim.version }),
    ).rejects.toBeInstanceOf(MarksChangedError);
    expect((await readAssignment(h, h.a, first)).result.score.points).toBe(10);
  });

  it('refuses a finish based on marks that changed meanwhile (the operator API recorded one), storing nothing', async () => {
    const id = await submittedHybrid('queue-3');
    const opened = await openMarkingItem(h.ctx, h.a.institutionId, id, jo);
    await recordMarks(h.ctx, id, { marks: [{ questionId: 'es', points: 3 }], complete: false, markedBy: 'automation' }, { kind: 'operator' });
    const stale = finishMarking(h.ctx, { institutionId: h.a.institutionId, assignmentId: id, markedBy: 'jo@alpha.example', marks: [{ questionId: 'es', points: 9, comment: '' }], baseVersion: opened.version });
    await expect(stale).rejects.toBeInstanceOf(MarksChangedError);
    const now = await openMarkingItem(h.ctx, h.a.institutionId, id, jo);
    expect(now.view.status).toBe('marking');
    expect(now.view.items.find((i) => i.questionId === 'es')!.mark).toMatchObject({ points: 3, markedBy: 'automation' });
    expect(now.version).not.toBe(opened.version);
  });

  it("hides another institution's item", async () => {
    const id = await submittedHybrid('queue-4');
    await expect(openMarkingItem(h.ctx, h.b.institutionId, id, jo)).rejects.toMatchObject({ code: 'not_found' });
    await expect(saveMarkingDraft(h.ctx, { institutionId: h.b.institutionId, assignmentId: id, staffId: 'x', marks: [], baseVersion: 'x' })).rejects.toMatchObject({ code: 'not_found' });
  });
});

describe('overview figures', () => {
  it('counts by status, completions per day and average score per test, per institution', async () => {
    const counts = await countAssignmentsByStatus(h.pool, h.a.institutionId);
    expect(counts.get('assigned')).toBeGreaterThan(0);
    const days = await completionsPerDay(h.pool, h.a.institutionId, new Date(), 14);
    expect(days).toHaveLength(14);
    expect(days[13]!.day).toBe(new Date().toISOString().slice(0, 10));
    const completedToday = days[13]!.count;
    expect(completedToday).toBe(counts.get('completed') ?? 0);
    // The averages come from the statistics' rollup, which the worker keeps.
    await h.runJobs();
    const averages = await averageScoreByTest(h.pool, h.a.institutionId);
    expect(averages.find((t) => t.testId === hybridTestId)).toMatchObject({ completed: counts.get('completed') });
    expect((await averageScoreByTest(h.pool, h.b.institutionId))).toEqual([]);
  });
});

describe('callback domains one at a time', () => {
  it('adds with the allowlist rules, ignores a repeat, removes, and refuses what is not a host', async () => {
    expect(await addCallbackDomain(h.pool, h.b.institutionId, ' *.Bücher.example ')).toBe('*.xn--bcher-kva.example');
    expect(await addCallbackDomain(h.pool, h.b.institutionId, '*.bücher.example')).toBe('*.xn--bcher-kva.example');
    await expect(addCallbackDomain(h.pool, h.b.institutionId, 'https://evil.example/x')).rejects.toMatchObject({ code: 'invalid_request', details: [{ field: 'domain' }] });
    await expect(addCallbackDomain(h.pool, h.b.institutionId, '10.0.0.1')).rejects.toBeInstanceOf(AppError);
    expect(await getCallbackDomains(h.pool, h.b.institutionId)).toContain('*.xn--bcher-kva.example');
    expect(await removeCallbackDomain(h.pool, h.a.institutionId, '*.xn--bcher-kva.example')).toBe(false);
    expect(await removeCallbackDomain(h.pool, h.b.institutionId, '*.xn--bcher-kva.example')).toBe(true);
    expect(await getCallbackDomains(h.pool, h.b.institutionId)).not.toContain('*.xn--bcher-kva.example');
  });
});

describe('joinTransaction', () => {
  it("makes a service's own transaction part of the caller's: both commit, or neither", async () => {
    await expect(
      withTransaction(h.pool, async (tx) => {
        await addCallbackDomain(joinTransaction(tx), h.a.institutionId, 'joined.example');
        throw new Error('the caller fails after the service succeeded');
      }),
    ).rejects.toThrow('the caller fails');
    expect(await getCallbackDomains(h.pool, h.a.institutionId)).not.toContain('joined.example');

    await withTransaction(h.pool, async (tx) => {
      // A service that fails inside the joined transaction rolls back to its savepoint; the caller carries on.
      await expect(addCallbackDomain(joinTransaction(tx), h.a.institutionId, 'not a host')).rejects.toBeInstanceOf(AppError);
      await addCallbackDomain(joinTransaction(tx), h.a.institutionId, 'joined.example');
    });
    expect(await getCallbackDomains(h.pool, h.a.institutionId)).toContain('joined.example');
  });
});
