import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from '../helpers/expect-error.js';
import { createHarness, type Harness } from '../helpers/harness.js';
import { portalGet, signedIn, type PortalUser } from '../helpers/portal.js';

/**
 * Issue 20, item 2: every numeric query parameter is bounded in its schema,
 * so a value past what the database can take (a bigint's maximum, a number
 * that parses to Infinity) is a 400 (the envelope on the APIs, the portal's
 * own 400 page on its pages), never a 500 from PostgreSQL.
 */
const OUT_OF_RANGE = ['9223372036854775807', '9007199254740993', '1e309', '1e400', '-1', '0', '1.5', 'abc'];
let h: Harness;
let operator: PortalUser;
let admin: PortalUser;
let endpointId: string;

beforeAll(async () => {
  h = await createHarness();
  operator = await signedIn(h, 'operator');
  admin = await signedIn(h, 'admin', h.a.institutionId);
  const created = await h.partner(h.a, 'POST', '/api/partner/v1/webhook-endpoints', { url: 'https://hooks.alpha.example/x' });
  expect(created.statusCode, created.body).toBe(201);
  endpointId = created.json().endpointId ?? created.json().id;
});
afterAll(() => h.close());

const API: Array<[string, string, 'partner' | 'admin']> = [
  ['/api/partner/v1/tests', 'limit', 'partner'],
  ['/api/partner/v1/tests', 'offset', 'partner'],
  ['/api/partner/v1/events', 'limit', 'partner'],
  ['/api/partner/v1/webhook-endpoints', 'offset', 'partner'],
  ['/api/admin/v1/institutions', 'offset', 'admin'],
  ['/api/admin/v1/webhook-endpoints', 'limit', 'admin'],
];

describe('the APIs', () => {
  it.each(API)('%s?%s= out of range is 400 invalid_request', async (path, param, who) => {
    for (const v of OUT_OF_RANGE) {
      if (param === 'offset' && (v === '0')) continue; // 0 is a valid offset
      const url = `${path}?${param}=${encodeURIComponent(v)}`;
      const res = who === 'partner' ? await h.partner(h.a, 'GET', url) : await h.admin('GET', url);
      expectError(res, 400, 'invalid_request');
    }
  });
});

describe('the portal', () => {
  const pages = () =>
    [
      [operator, '/portal/audit', 'before'],
      [admin, '/portal/audit', 'before'],
      [admin, '/portal/marking', 'page'],
      [operator, '/portal/institutions', 'page'],
      [operator, '/portal/tests', 'page'],
      [admin, `/portal/webhooks/${endpointId}`, 'before'],
    ] as const;

  it('out-of-range numbers answer the portal 400 page, never a 500', async () => {
    for (const [user, path, param] of pages()) {
      for (const v of OUT_OF_RANGE) {
        if (param === 'before' && path.includes('webhooks') && v === '0') continue;
        const res = await portalGet(h, user, `${path}?${param}=${encodeURIComponent(v)}`);
        expect({ url: `${path}?${param}=${v}`, status: res.statusCode }).toEqual({ url: `${path}?${param}=${v}`, status: 400 });
        expect(res.headers['content-type']).toMatch(/^text\/html/);
        expect(res.body).toContain('<h1>');
      }
      // The largest accepted value still answers the page.
      const largest = param === 'page' ? 100000 : path.includes('webhooks') ? 999_999_999_999_999 : Number.MAX_SAFE_INTEGER;
      const ok = await portalGet(h, user, `${path}?${param}=${largest}`);
      expect({ path, status: ok.statusCode }).toEqual({ path, status: 200 });
    }
  });
});
