import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPool } from '../../src/platform/db.js';
import { enqueueJob } from '../../src/platform/jobs.js';
import { buildServer, serverContext } from '../../src/server.js';
import { interruptionSweepJob, SWEEP_KEY } from '../../src/modules/proctoring/proctoring-jobs.js';
import { createHarness, manualClock, type Harness } from '../helpers/harness.js';
import { expectError } from '../helpers/expect-error.js';
import { createPublishedTest } from '../helpers/student.js';
import { lastHeartbeatAt, Proctored, proctoredTest, signal, startProctored } from '../helpers/proctoring.js';

/**
 * Idle heartbeats cost no write each: the process keeps the latest time per
 * attempt and writes them all in one statement every ASSAY_HEARTBEAT_FLUSH_MS
 * (4 s here, the most it may be). A beat with a signal is still written at
 * once. A process that dies between flushes loses at most its unflushed
 * beats, and the interruption sweep does not take that for a silence.
 */
const FLUSH_MS = 4_000;
const clock = manualClock(new Date());
let h: Harness;
let testId: string;

/** Every statement the app's pool runs, by its text. */
const statements: string[] = [];

beforeAll(async () => {
  h = await createHarness({ clock, config: { heartbeatFlushMs: FLUSH_MS } as never });
  testId = await createPublishedTest(h, h.a, proctoredTest('record', { heartbeatTimeoutSeconds: 15 }));
  const query = h.pool.query.bind(h.pool) as (...args: unknown[]) => unknown;
  (h.pool as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
    const q = args[0];
    statements.push(typeof q === 'string' ? q : (q as { text: string }).text);
    return query(...args);
  };
});
afterAll(() => h?.close());

const writes = () => statements.filter((s) => /\b(INSERT|UPDATE|DELETE)\b/i.test(s) && !/^\s*SELECT pg_notify/i.test(s));
const flushes = () => statements.filter((s) => /jsonb_to_recordset/.test(s) && /INSERT INTO proctoring_sessions/.test(s));
const lastSeen = (assignmentId: string) => lastHeartbeatAt(h, assignmentId);

async function sweep() {
  await enqueueJob(h.pool, interruptionSweepJob, {}, { runAt: clock.now(), uniqueKey: SWEEP_KEY });
  await h.runJobs();
}
const interruptions = async (assignmentId: string) =>
  (await h.pool.query(`SELECT duration_seconds FROM proctoring_flags WHERE assignment_id = $1 AND kind = 'proctoring_interrupted'`, [assignmentId])).rows;

/** Waits (real time) for the coalescer's timer to write `assignmentId`'s time as `at`. */
async function flushed(assignmentId: string, at: Date) {
  await expect.poll(async () => (await lastSeen(assignmentId))?.getTime(), { timeout: FLUSH_MS * 2, interval: 100 }).toBe(at.getTime());
}

describe('idle heartbeats', () => {
  it('write nothing durable per beat; the flush writes every attempt’s last time in one statement', async () => {
    const students: Proctored[] = [];
    for (let i = 0; i < 3; i++) students.push(await startProctored(h, h.a, testId, `coalesced-${i}`));
    // The first beat of each attempt in this process reads its state; wait out the flush that writes it.
    for (const p of students) expect((await p.heartbeat([])).statusCode).toBe(200);
    for (const p of students) await flushed(p.assignmentId, clock.now());

    statements.length = 0;
    const before = flushes().length;
    for (let beat = 1; beat <= 5; beat++) {
      clock.advance(1_000);
      for (const p of students) expect((await p.heartbeat([], { cameraActive: beat !== 5 })).statusCode).toBe(200);
    }
    const last = clock.now();
    // Fifteen beats: the statements they ran were the session lookups alone, no write (the timer may have flushed meanwhile).
    expect(writes().filter((s) => !/jsonb_to_recordset/.test(s))).toEqual([]);
    for (const p of students) await flushed(p.assignmentId, last);
    expect(flushes().length - before).toBeGreaterThanOrEqual(1);
    expect(flushes().length - before).toBeLessThanOrEqual(2);
    const { rows } = await h.pool.query('SELECT camera_active FROM proctoring_sessions WHERE assignment_id = ANY($1)', [students.map((p) => p.assignmentId)]);
    expect(rows.map((r) => r.camera_active)).toEqual([false, false, false]);
  });

  it('a beat that carries a signal is written at once, in its transaction', async () => {
    const p = await startProctored(h, h.a, testId, 'signalled');
    statements.length = 0;
    const [flag] = (await p.heartbeat([signal('cp-0000001', 'copy_paste', 0, clock.now(), false)])).json().flags;
    expect(flag.severity).toBeDefined();
    expect(await lastSeen(p.assignmentId)).toEqual(clock.now());
    expect((await h.pool.query('SELECT count(*)::int AS n FROM proctoring_flags WHERE assignment_id = $1', [p.assignmentId])).rows[0].n).toBe(1);
  });

  it('a beat after the submission is refused (409), also when the attempt was known open', async () => {
    const p = await startProctored(h, h.a, testId, 'submitting');
    expect((await p.heartbeat([])).statusCode).toBe(200);
    expect((await p.student.submit(p.assignmentId)).statusCode).toBe(303);
    // The status NOTIFY reaches this process's LISTEN connection within moments; the flush would catch it otherwise.
    await expect.poll(async () => (await p.heartbeat([])).statusCode, { timeout: FLUSH_MS * 2, interval: 100 }).toBe(409);
    expectError(await p.heartbeat([]), 409, 'invalid_state');
  });
});

describe('a process that dies between flushes', () => {
  it('loses only its unflushed beats, and the sweep (15 s timeout) does not flag the gap; a real silence is still flagged', async () => {
    const p = await startProctored(h, h.a, testId, 'crash-student');
    const t0 = clock.now();
    expect((await p.heartbeat([])).statusCode).toBe(200);
    await flushed(p.assignmentId, t0);

    // The next beat goes (round robin) to a second process, which dies before its flush.
    const pool2 = createPool(h.databaseUrl, 2);
    const other = await buildServer(serverContext({ config: h.ctx.config, pool: pool2, clock }), { logger: false });
    clock.advance(5_000);
    const lost = await other.inject({
      method: 'POST',
      url: `/a/${p.assignmentId}/proctoring/heartbeat`,
      headers: { cookie: p.student.cookie!, 'x-csrf-token': p.student.csrf!, 'content-type': 'application/json' },
      payload: JSON.stringify({ signals: [], cameraActive: true, fullscreen: true }),
    });
    expect(lost.statusCode).toBe(200);
    await pool2.end(); // the process is gone: its closing flush cannot write
    await other.close();
    expect(await lastSeen(p.assignmentId)).toEqual(t0);

    // The page's next beat reaches the surviving process; until that one flushes, the stored time is t0.
    clock.advance(5_000);
    const t2 = clock.now();
    expect((await p.heartbeat([])).statusCode).toBe(200);
    clock.advance(FLUSH_MS);
    await sweep(); // 14 s since the stored beat: under 15 s + one flush
    expect(await interruptions(p.assignmentId)).toEqual([]);
    await flushed(p.assignmentId, t2);
    await sweep();
    expect(await interruptions(p.assignmentId)).toEqual([]);

    // The sweep is live: a page that really goes silent is flagged after 15 s + one flush.
    clock.advance(15_000 - 100);
    await sweep();
    expect(await interruptions(p.assignmentId)).toEqual([]);
    clock.advance(200);
    await sweep();
    expect(await interruptions(p.assignmentId)).toHaveLength(1);
  });
});
