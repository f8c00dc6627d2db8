import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/platform/config.js';
import { assignmentBody, createHarness, type Harness } from '../helpers/harness.js';

/** ASSAY_PORTAL=off: a process that serves the APIs and the student pages, and no staff portal. */
describe('an API process with the portal off', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness({ config: { operations: { ...parseConfig({}).operations, portal: false } } });
  });
  afterAll(() => h.close());

  it('has no portal pages', async () => {
    for (const url of ['/portal', '/portal/sign-in', '/portal/assets/portal.css']) {
      const res = await h.app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(404);
    }
  });

  it('still serves the partner API and the student start links', async () => {
    const created = await h.partner(h.a, 'POST', '/api/partner/v1/assignments', assignmentBody(h.a));
    expect(created.statusCode).toBe(201);
    const read = await h.partner(h.a, 'GET', `/api/partner/v1/assignments/${created.json().assignmentId}`);
    expect(read.statusCode).toBe(200);
    const link = new URL(created.json().startUrl as string);
    const opened = await h.app.inject({ method: 'GET', url: link.pathname });
    expect(opened.statusCode).toBe(303);
  });
});
