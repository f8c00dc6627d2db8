import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storageFor } from '../../src/platform/storage/storage.js';
import { createHarness, manualClock, type Harness } from '../helpers/harness.js';
import { expectError } from '../helpers/expect-error.js';
import { createPublishedTest } from '../helpers/student.js';
import { jpeg, proctoredTest, startProctored, webm, type Proctored } from '../helpers/proctoring.js';

/**
 * The page's capture times are checked against the attempt: from its start
 * minus 2 minutes (the allowed clock skew) to its submission (or, while it
 * runs, now) plus 2 minutes. Anything else is 400 invalid_request naming the
 * header or field, and stores nothing. The server's receive time is kept
 * beside the page's time on every stored segment and snapshot.
 */
const clock = manualClock(new Date());
let h: Harness;
let testId: string;
const MIN = 60_000;
const Y2099 = new Date('2099-01-01T00:00:00Z');
// Heartbeat signals are not refused: their starts are clamped into the attempt (test/proctoring-flags.test.ts),
// since refusing a heartbeat would also lose its liveness record and every other signal in it.

beforeAll(async () => {
  h = await createHarness({ clock });
  testId = await createPublishedTest(h, h.a, proctoredTest('record'));
});
afterAll(() => h.close());

const count = async (table: string, assignmentId: string) =>
  (await h.pool.query(`SELECT count(*)::int AS n FROM ${table} WHERE assignment_id = $1`, [assignmentId])).rows[0].n as number;
const files = (p: Proctored) => storageFor(h.ctx.config).list(`proctoring/${h.a.institutionId}/${p.assignmentId}/`);
const startedAtOf = async (assignmentId: string) =>
  (await h.pool.query('SELECT started_at FROM attempts WHERE assignment_id = $1', [assignmentId])).rows[0].started_at as Date;

function refused(res: Parameters<typeof expectError>[0], field: string) {
  const err = expectError(res, 400, 'invalid_request');
  expect(err.error.details).toEqual([expect.objectContaining({ field })]);
  return err;
}

describe('capture times outside the attempt', () => {
  it('a segment stamped before the attempt began is 400 naming X-Segment-Started-At, while running and after submission; nothing stored', async () => {
    const p = await startProctored(h, h.a, testId, 'early-bird');
    const began = await startedAtOf(p.assignmentId);
    refused(await p.segment(0, webm(), { startedAt: new Date(began.getTime() - 3 * MIN) }), 'X-Segment-Started-At');
    clock.advance(5_000);
    expect((await p.student.submit(p.assignmentId)).statusCode).toBe(303);
    clock.advance(MIN);
    const err = refused(await p.segment(1, webm(), { startedAt: new Date(began.getTime() - 60 * MIN) }), 'X-Segment-Started-At');
    expect(err.error.message).toMatch(/before the attempt began/);
    expect(await count('recording_segments', p.assignmentId)).toBe(0);
    expect(await files(p)).toEqual([]);
  });

  it('a segment stamped after submission (beyond the skew) is 400, not taken for a late upload; within the skew the submission rule still answers 409', async () => {
    const p = await startProctored(h, h.a, testId, 'late-stamp');
    clock.advance(5_000);
    expect((await p.student.submit(p.assignmentId)).statusCode).toBe(303);
    const submittedAt = clock.now();
    clock.advance(MIN);
    const err = refused(await p.segment(0, webm(), { startedAt: new Date(submittedAt.getTime() + 5 * MIN) }), 'X-Segment-Started-At');
    expect(err.error.message).toMatch(/after the attempt ended/);
    expectError(await p.segment(1, webm(), { startedAt: new Date(submittedAt.getTime() + 1_000) }), 409, 'invalid_state');
    expect(await count('recording_segments', p.assignmentId)).toBe(0);
  });

  it('a stamp in the future while the attempt runs is 400; within 2 minutes of the server clock it is accepted', async () => {
    const p = await startProctored(h, h.a, testId, 'future-clock');
    refused(await p.segment(0, webm(), { startedAt: new Date(clock.now().getTime() + 10 * MIN) }), 'X-Segment-Started-At');
    expect((await p.segment(0, webm(), { startedAt: new Date(clock.now().getTime() + 90_000) })).statusCode).toBe(201);
    const began = await startedAtOf(p.assignmentId);
    expect((await p.segment(1, webm(), { startedAt: new Date(began.getTime() - 90_000) })).statusCode).toBe(201);
  });

  it('a snapshot dated 2099 is 400 naming X-Snapshot-Taken-At; nothing stored', async () => {
    const p = await startProctored(h, h.a, testId, 'time-traveller');
    refused(await p.snapshot(jpeg(), { takenAt: Y2099 }), 'X-Snapshot-Taken-At');
    const began = await startedAtOf(p.assignmentId);
    refused(await p.snapshot(jpeg(), { takenAt: new Date(began.getTime() - 10 * MIN) }), 'X-Snapshot-Taken-At');
    expect(await count('proctoring_snapshots', p.assignmentId)).toBe(0);
    expect(await files(p)).toEqual([]);
  });
});

describe('server receive time', () => {
  it('is stored beside the page’s time on segments and snapshots, and the report gives both', async () => {
    const p = await startProctored(h, h.a, testId, 'received');
    const captured = new Date(clock.now().getTime() - 20_000);
    clock.advance(30_000);
    const receivedAt = clock.now();
    expect((await p.segment(0, webm(), { startedAt: captured })).statusCode).toBe(201);
    expect((await p.snapshot(jpeg(), { takenAt: captured })).statusCode).toBe(201);
    const seg = (await h.pool.query('SELECT started_at, received_at FROM recording_segments WHERE assignment_id = $1', [p.assignmentId])).rows[0];
    expect(seg.started_at.toISOString()).toBe(captured.toISOString());
    expect(seg.received_at.toISOString()).toBe(receivedAt.toISOString());
    const snap = (await h.pool.query('SELECT taken_at, received_at FROM proctoring_snapshots WHERE assignment_id = $1', [p.assignmentId])).rows[0];
    expect(snap.received_at.toISOString()).toBe(receivedAt.toISOString());
    const report = await h.admin('GET', `/api/admin/v1/assignments/${p.assignmentId}/proctoring`);
    expect(report.statusCode, report.body).toBe(200);
    expect(report.json().recording.segments[0]).toMatchObject({ startedAt: captured.toISOString(), receivedAt: receivedAt.toISOString() });
    expect(report.json().snapshots[0]).toMatchObject({ takenAt: captured.toISOString(), receivedAt: receivedAt.toISOString() });
  });
});
