import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assignmentBody, createHarness, type Harness } from '../helpers/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(() => h.close());

describe('smoke', () => {
  it('lists the tests published to the caller and creates then reads an assignment', async () => {
    const list = await h.partner(h.a, 'GET', '/api/partner/v1/tests');
    expect(list.statusCode).toBe(200);
    expect(list.json().data.map((t: { testId: string }) => t.testId)).toEqual([h.a.testId]);
    const created = await h.partner(h.a, 'POST', '/api/partner/v1/assignments', assignmentBody(h.a));
    expect(created.statusCode).toBe(201);
    const read = await h.partner(h.a, 'GET', `/api/partner/v1/assignments/${created.json().assignmentId}`);
    expect(read.statusCode).toBe(200);
    expect(read.json().status).toBe('assigned');
  });
});
