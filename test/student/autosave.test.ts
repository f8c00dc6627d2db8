import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createHarness, manualClock, type Harness } from '../helpers/harness.js';
import { Student, assign } from '../helpers/student.js';

/**
 * The autosave's cost and guarantees: once the session is known to the
 * process, a save is one prepared statement that itself checks the session
 * and the running attempt, so a session ended anywhere cannot save from the
 * process's memory.
 */
const clock = manualClock(new Date('2031-06-01T08:00:00Z'));
let h: Harness;
beforeAll(async () => {
  h = await createHarness({ clock });
});
afterAll(() => h.close());

async function started(externalUserId: string) {
  const a = await assign(h, h.a, { externalUserId });
  const s = new Student(h);
  await s.start(a.startUrl);
  await s.page(a.assignmentId);
  const q = (await h.admin('GET', `/api/admin/v1/assignments/${a.assignmentId}`)).json().items.map((i: { questionId: string }) => i.questionId) as string[];
  return { assignmentId: a.assignmentId, s, q };
}
const stored = async (assignmentId: string) =>
  (await h.pool.query('SELECT question_id, value, version::int AS version FROM answers WHERE assignment_id = $1 ORDER BY question_id', [assignmentId])).rows;

describe('autosave in one statement', () => {
  /** Saves one answer while counting the pool's statements: exactly one, the save itself, and the answer stored. */
  async function savesInOneStatement(p: Awaited<ReturnType<typeof started>>, value: string, version: number) {
    const { assignmentId, s, q } = p;
    const spy = vi.spyOn(h.pool, 'query');
    try {
      const res = await s.save(assignmentId, [{ questionId: q[1]!, value, version }]);
      expect(res.json().results).toEqual([{ questionId: q[1], version, saved: true }]);
      expect(spy).toHaveBeenCalledTimes(1);
      expect(spy.mock.calls[0]![0]).toMatchObject({ name: 'attempts-save-answers' });
    } finally {
      spy.mockRestore();
    }
    expect(await stored(assignmentId)).toEqual([{ question_id: q[1], value, version }]);
  }

  it('is a single database statement once the session and attempt are known', async () => {
    const p = await started('one-1');
    expect((await p.s.save(p.assignmentId, [{ questionId: p.q[1]!, value: '1', version: 1 }])).statusCode).toBe(200);
    await savesInOneStatement(p, '2.5', 2);
  });

  it('is a single statement from the first save after Begin: Begin leaves the attempt it wrote for the saves', async () => {
    await savesInOneStatement(await started('one-first'), '7', 1);
  });

  it('refuses, with 401 and nothing stored, a session ended elsewhere that this process still remembers', async () => {
    const { assignmentId, s, q } = await started('one-2');
    expect((await s.save(assignmentId, [{ questionId: q[1]!, value: '1', version: 1 }])).statusCode).toBe(200);
    // Another process (a new start link, the purge) removes the session row.
    await h.pool.query('DELETE FROM student_sessions WHERE user_id = (SELECT user_id FROM attempts WHERE assignment_id = $1)', [assignmentId]);
    const res = await s.save(assignmentId, [{ questionId: q[1]!, value: '2', version: 2 }]);
    expect(res.statusCode).toBe(401);
    expect(res.json().error.code).toBe('unauthenticated');
    expect(await stored(assignmentId)).toEqual([{ question_id: q[1], value: '1', version: 1 }]);
    // And the next save does not slip through either.
    expect((await s.save(assignmentId, [{ questionId: q[1]!, value: '3', version: 3 }])).statusCode).toBe(401);
  });

  it("cannot save into another student's attempt, with its own valid session and token", async () => {
    const mine = await started('one-3');
    const theirs = await started('one-4');
    expect((await mine.s.save(mine.assignmentId, [{ questionId: mine.q[1]!, value: '1', version: 1 }])).statusCode).toBe(200);
    const res = await mine.s.save(theirs.assignmentId, [{ questionId: theirs.q[1]!, value: '9', version: 5 }]);
    expect(res.statusCode).toBe(404);
    expect(await stored(theirs.assignmentId)).toEqual([]);
  });

  it('still refuses a wrong CSRF token, still slides the session, and ends with the session', async () => {
    const { assignmentId, s, q } = await started('one-5');
    expect((await s.save(assignmentId, [{ questionId: q[1]!, value: '1', version: 1 }])).statusCode).toBe(200);
    expect((await s.save(assignmentId, [{ questionId: q[1]!, value: '2', version: 2 }], 'x'.repeat(32))).statusCode).toBe(403);
    const seen = async () =>
      (await h.pool.query('SELECT last_seen_at FROM student_sessions WHERE user_id = (SELECT user_id FROM attempts WHERE assignment_id = $1)', [assignmentId])).rows[0]
        .last_seen_at as Date;
    const before = await seen();
    clock.advance(6 * 60_000);
    expect((await s.save(assignmentId, [{ questionId: q[1]!, value: '3', version: 3 }])).statusCode).toBe(200);
    expect((await seen()).getTime()).toBe(before.getTime() + 6 * 60_000);
    // The test lasts 20 minutes: move the session's end, not the attempt's, past now.
    await h.pool.query("UPDATE student_sessions SET expires_at = $1 WHERE last_seen_at = $2", [new Date(clock.now().getTime() + 1000), clock.now()]);
    clock.advance(2000);
    expect((await s.save(assignmentId, [{ questionId: q[1]!, value: '4', version: 4 }])).statusCode).toBe(401);
    expect((await stored(assignmentId))[0]).toMatchObject({ value: '3', version: 3 });
  });
});

describe('saves arriving together share one statement', () => {
  it('stores each student\'s answers in one statement, and refuses the one whose session ended, alone', async () => {
    const students = await Promise.all(['batch-1', 'batch-2', 'batch-3', 'batch-4'].map(started));
    for (const { assignmentId, s, q } of students) expect((await s.save(assignmentId, [{ questionId: q[1]!, value: '1', version: 1 }])).statusCode).toBe(200);
    // The fourth student's session ends elsewhere; this process still remembers it.
    const ended = students[3]!;
    await h.pool.query('DELETE FROM student_sessions WHERE user_id = (SELECT user_id FROM attempts WHERE assignment_id = $1)', [ended.assignmentId]);
    const spy = vi.spyOn(h.pool, 'query');
    let responses;
    try {
      responses = await Promise.all(students.map(({ assignmentId, s, q }, i) => s.save(assignmentId, [{ questionId: q[1]!, value: `${i + 2}`, version: 2 }])));
      const saveStatements = spy.mock.calls.filter(([config]) => (config as { name?: string }).name?.startsWith('attempts-save-answers'));
      expect(saveStatements.map(([config]) => (config as unknown as { name: string }).name)).toEqual(['attempts-save-answers-batch']);
    } finally {
      spy.mockRestore();
    }
    expect(responses.map((r) => r.statusCode)).toEqual([200, 200, 200, 401]);
    for (const [i, { assignmentId, q }] of students.slice(0, 3).entries()) {
      expect(responses[i]!.json().results).toEqual([{ questionId: q[1], version: 2, saved: true }]);
      expect(await stored(assignmentId)).toEqual([{ question_id: q[1], value: `${i + 2}`, version: 2 }]);
    }
    expect(await stored(ended.assignmentId)).toEqual([{ question_id: ended.q[1], value: '1', version: 1 }]);
  });

  it('sends two saves of one answer in separate statements, and keeps the newer whichever lands first', async () => {
    const { assignmentId, s, q } = await started('batch-5');
    expect((await s.save(assignmentId, [{ questionId: q[1]!, value: '1', version: 1 }])).statusCode).toBe(200);
    const spy = vi.spyOn(h.pool, 'query');
    let older, newer;
    try {
      [newer, older] = await Promise.all([
        s.save(assignmentId, [{ questionId: q[1]!, value: '3', version: 3 }]),
        s.save(assignmentId, [{ questionId: q[1]!, value: '2', version: 2 }]),
      ]);
      expect(spy.mock.calls.filter(([config]) => (config as { name?: string }).name?.startsWith('attempts-save-answers'))).toHaveLength(2);
    } finally {
      spy.mockRestore();
    }
    expect(newer.json().results).toEqual([{ questionId: q[1], version: 3, saved: true }]);
    // The older one was stored only if it landed first, and then was overwritten; either way it says what it found.
    const o = older.json().results[0];
    expect([{ saved: true, version: 2 }, { saved: false, version: 3 }]).toContainEqual({ saved: o.saved, version: o.version });
    expect(await stored(assignmentId)).toEqual([{ question_id: q[1], value: '3', version: 3 }]);
  });

  it('stores the answers of several questions and students together, each under its own attempt', async () => {
    const students = await Promise.all(['batch-6', 'batch-7'].map(started));
    for (const { assignmentId, s, q } of students) expect((await s.save(assignmentId, [{ questionId: q[1]!, value: '0', version: 1 }])).statusCode).toBe(200);
    const choices = ['a', 'b'];
    const responses = await Promise.all(
      students.map(({ assignmentId, s, q }, i) =>
        s.save(assignmentId, [
          { questionId: q[0]!, value: choices[i], version: 5 },
          { questionId: q[1]!, value: `${i}.5`, version: 5 },
        ]),
      ),
    );
    expect(responses.map((r) => r.statusCode)).toEqual([200, 200]);
    for (const [i, { assignmentId, q }] of students.entries()) {
      const rows = await stored(assignmentId);
      expect(Object.fromEntries(rows.map((r: { question_id: string; value: string; version: number }) => [r.question_id, [r.value, r.version]]))).toEqual({
        [q[0]!]: [choices[i], 5],
        [q[1]!]: [`${i}.5`, 5],
      });
    }
  });
});

