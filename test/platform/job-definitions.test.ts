import { Type } from '@sinclair/typebox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createJobWorker } from '../../src/platform/job-worker.js';
import { defineJob, definedJobKinds, enqueueJob, JobPayloadError } from '../../src/platform/jobs.js';
import { expireAssignmentJob } from '../../src/modules/assignments/expire-job.js';
import { aiMarkingJobs } from '../../src/modules/marking/ai/ai-worker.js';
import { workerJobs } from '../../src/worker.js';
import { createHarness, manualClock, type Harness } from '../helpers/harness.js';

const clock = manualClock(new Date('2030-01-01T10:00:00Z'));
let h: Harness;
beforeAll(async () => {
  h = await createHarness({ clock });
});
afterAll(async () => {
  await h.close();
});

const ran: Array<{ n: number; label: string }> = [];
const probeJob = defineJob({
  kind: 'test.probe',
  payload: Type.Object({ n: Type.Integer(), label: Type.String() }, { additionalProperties: false }),
  run: async (_ctx: null, payload) => {
    ran.push(payload);
  },
});

const jobRow = async (kind: string) =>
  (await h.pool.query('SELECT attempts, failed_at, last_error FROM jobs WHERE kind = $1', [kind])).rows[0] as
    | { attempts: number; failed_at: Date | null; last_error: string | null }
    | undefined;

describe('typed job definitions', () => {
  it('refuses to enqueue a payload that does not match the kind, naming the field, and writes nothing', async () => {
    const bad = { n: 'one', label: 'x' } as unknown as { n: number; label: string };
    await expect(enqueueJob(h.pool, probeJob, bad)).rejects.toThrow(JobPayloadError);
    await expect(enqueueJob(h.pool, probeJob, bad)).rejects.toThrow('malformed test.probe payload: /n Expected integer');
    await expect(enqueueJob(h.pool, expireAssignmentJob, { assignmentId: 'asg_1', extra: true } as never)).rejects.toThrow(/malformed assignment\.expire payload/);
    expect(await jobRow('test.probe')).toBeUndefined();
    expect(await jobRow('assignment.expire')).toBeUndefined();
  });

  it('refuses to enqueue a kind that no definition declares', async () => {
    const stranger = { kind: 'nobody.defined', payload: Type.Object({}), run: async () => {} };
    await expect(enqueueJob(h.pool, stranger, {})).rejects.toThrow('unknown job kind "nobody.defined"');
    // A look-alike of a defined kind is not its definition either.
    await expect(enqueueJob(h.pool, { ...expireAssignmentJob }, { assignmentId: 'asg_1' })).rejects.toThrow(/unknown job kind/);
    expect(await jobRow('nobody.defined')).toBeUndefined();
  });

  it('refuses a second definition of a kind', () => {
    expect(() => defineJob({ kind: 'test.probe', payload: Type.Object({}), run: async () => {} })).toThrow('job kind test.probe is defined twice');
  });

  it('fails a claimed job whose stored payload is malformed, with the reason, at once, and keeps running the others', async () => {
    const worker = createJobWorker({ pool: h.pool, connectionString: h.databaseUrl, clock, jobs: [probeJob], context: null });
    // A row written by older code or by hand: the queue never saw it through enqueueJob.
    await h.pool.query(`INSERT INTO jobs (kind, payload, run_at) VALUES ('test.probe', '{"n": "seven"}', $1)`, [clock.now()]);
    await enqueueJob(h.pool, probeJob, { n: 2, label: 'good' }, { runAt: clock.now() });
    expect(await worker.drain()).toBe(2);
    expect(ran).toEqual([{ n: 2, label: 'good' }]);
    const failed = await jobRow('test.probe');
    expect(failed?.attempts).toBe(1);
    expect(failed?.failed_at).not.toBeNull();
    expect(failed?.last_error).toMatch(/^malformed test\.probe payload: .*\/n Expected integer/);
    expect(failed?.last_error).toContain('/label Expected required property');
    // Left failed, not retried: a later drain does not pick it up again.
    clock.advance(60 * 60_000);
    expect(await worker.drain()).toBe(0);
    await h.pool.query("DELETE FROM jobs WHERE kind = 'test.probe'");
  });

  it('fails a real kind with a malformed payload the same way in the app worker', async () => {
    await h.pool.query(`INSERT INTO jobs (kind, payload, run_at) VALUES ('assignment.expire', '{"assignmentId": 42}', $1)`, [clock.now()]);
    expect(await h.runJobs()).toBeGreaterThanOrEqual(1);
    const failed = await jobRow('assignment.expire');
    expect(failed?.failed_at).not.toBeNull();
    expect(failed?.last_error).toMatch(/^malformed assignment\.expire payload: \/assignmentId Expected string/);
  });

  it('every defined kind is run by exactly one worker', () => {
    const run = [...workerJobs, ...aiMarkingJobs].map((j) => j.kind);
    expect(new Set(run).size).toBe(run.length);
    expect(definedJobKinds().filter((k) => k !== 'test.probe').sort()).toEqual([...run].sort());
  });
});
