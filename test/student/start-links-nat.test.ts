import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/platform/config.js';
import { assignmentBody, createHarness, type Harness } from '../helpers/harness.js';
import { pathOf } from '../helpers/student.js';

/**
 * A class behind one school NAT address opens its start links at once: with
 * the default limits (per link, under a generous per-address ceiling), 1,000
 * candidates' links from one address are all accepted. Before, the limit was
 * 300 opens a minute per address, so 700 of them saw "Too many attempts".
 */
let h: Harness;
beforeAll(async () => {
  h = await createHarness({ config: { requestLimits: parseConfig({}).requestLimits } });
});
afterAll(() => h.close());

describe('start links behind one address', () => {
  it('1,000 candidates open their own links from one address, none refused', { timeout: 120_000 }, async () => {
    const links: string[] = [];
    for (let i = 0; i < 1_000; i++) {
      const res = await h.partner(h.a, 'POST', '/api/partner/v1/assignments', assignmentBody(h.a, { externalUserId: `nat-${i}` }));
      expect(res.statusCode).toBe(201);
      links.push(pathOf(res.json().startUrl));
    }
    const statuses = new Map<number, number>();
    for (let i = 0; i < links.length; i += 50) {
      const batch = await Promise.all(links.slice(i, i + 50).map((url) => h.app.inject({ method: 'GET', url, remoteAddress: '192.0.2.44' })));
      for (const r of batch) statuses.set(r.statusCode, (statuses.get(r.statusCode) ?? 0) + 1);
    }
    expect(Object.fromEntries(statuses)).toEqual({ 303: 1_000 });
  });
});
