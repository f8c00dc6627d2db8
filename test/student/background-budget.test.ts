import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from '../helpers/expect-error.js';
import { createHarness, type Harness } from '../helpers/harness.js';
import { proctoredTest, startProctored, webm } from '../helpers/proctoring.js';

/**
 * Issue 20, item 7: the page's background traffic (heartbeats, recording
 * segments, snapshots) is budgeted apart from the student's own actions
 * (Begin, saves, Submit) under ASSAY_STUDENT_RATE_LIMIT, so a page flooding
 * heartbeats can never get the student's Submit refused.
 */
const LIMIT = 5;
let h: Harness;

beforeAll(async () => {
  h = await createHarness({ config: { requestLimits: { unauthenticatedPerMinute: 100_000, startLinksPerMinute: 100_000, startLinkOpensPerMinute: 100_000, studentPostsPerMinute: LIMIT } } });
});
afterAll(() => h.close());

describe('the student POST allowance', () => {
  it('heartbeats and uploads past the allowance are refused on their own; saves and Submit still go through', async () => {
    const p = await startProctored(h, h.a, proctoredTest('record'), 'flooder'); // Begin: one of the actions
    let refused = 0;
    for (let i = 0; i < LIMIT * 3; i++) {
      const res = await p.heartbeat();
      if (res.statusCode === 429) refused++;
      else expect(res.statusCode, res.body).toBe(200);
    }
    expect(refused).toBeGreaterThan(0); // background traffic still has a limit
    expectError(await p.segment(0, webm()), 429, 'rate_limited'); // the same background budget
    const saved = await p.student.save(p.assignmentId, [{ questionId: 'q1', value: '42', version: 1 }]);
    expect(saved.statusCode, saved.body).toBe(200);
    const submitted = await p.student.submit(p.assignmentId);
    expect(submitted.statusCode, submitted.body).toBe(303);
    expect((await h.partner(h.a, 'GET', `/api/partner/v1/assignments/${p.assignmentId}`)).json().status).toBe('completed');
  });

  it("the student's own actions still have their limit", async () => {
    const p = await startProctored(h, h.a, proctoredTest('record'), 'saver'); // Begin: 1
    for (let i = 1; i < LIMIT; i++) expect((await p.student.save(p.assignmentId, [{ questionId: 'q1', value: String(i), version: i }])).statusCode).toBe(200);
    expectError(await p.student.save(p.assignmentId, [{ questionId: 'q1', value: 'x', version: 99 }]), 429, 'rate_limited');
  });
});
