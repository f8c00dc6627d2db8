import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../../src/platform/errors.js';
import { checkEndpointUrl } from '../../src/modules/webhooks/url-guard.js';
import { createHarness, type Harness } from '../helpers/harness.js';
import { expectError } from '../helpers/expect-error.js';

/**
 * A developer registering a local receiver (`http://127.0.0.1:…`) on a
 * development Assay (the embedded database, no DATABASE_URL) is told how to
 * allow it: ASSAY_ALLOW_INSECURE_URLS=1. A production service (DATABASE_URL
 * set) refuses the same URL without advertising the switch, and an address
 * the switch would not admit (a private network) never gets the hint.
 */
const P = '/api/partner/v1/webhook-endpoints';
let dev: Harness;

beforeAll(async () => {
  // The harness's pool has its own URL; a null databaseUrl is how the config says "the embedded database".
  dev = await createHarness({ config: { databaseUrl: null } });
});
afterAll(() => dev?.close());

function refusal(url: string, development: boolean): string {
  try {
    checkEndpointUrl(url, { allowInsecure: false, development });
  } catch (err) {
    expect(err).toBeInstanceOf(AppError);
    return (err as AppError).message;
  }
  throw new Error(`${url} was accepted`);
}

describe('webhook URL refusals on a development service', () => {
  it.each(['http://127.0.0.1:4000/hooks', 'http://localhost:4000/hooks', 'https://127.0.0.1/hooks', 'https://[::1]/hooks', 'https://localhost/hooks'])(
    'refusing %s over the partner API names ASSAY_ALLOW_INSECURE_URLS=1 and stores nothing',
    async (url) => {
      const before = await dev.pool.query('SELECT count(*)::int AS n FROM webhook_endpoints');
      const res = await dev.partner(dev.a, 'POST', P, { url });
      const body = expectError(res, 422, 'webhook_url_not_allowed');
      expect(body.error.message).toContain('ASSAY_ALLOW_INSECURE_URLS=1');
      expect(body.error.details?.[0]?.message).toContain('ASSAY_ALLOW_INSECURE_URLS=1');
      expect((await dev.pool.query('SELECT count(*)::int AS n FROM webhook_endpoints')).rows[0].n).toBe(before.rows[0].n);
    },
  );

  it('keeps the plain reason first: "must use https:" for http', () => {
    expect(refusal('http://127.0.0.1:4000/hooks', true)).toMatch(/^url: must use https:/);
  });

  it.each(['https://10.1.2.3/hooks', 'https://169.254.169.254/latest', 'https://intranet/hooks'])('gives no hint for %s, which the switch would not admit', (url) => {
    expect(refusal(url, true)).not.toContain('ASSAY_ALLOW_INSECURE_URLS');
  });

  it.each(['http://127.0.0.1:4000/hooks', 'https://localhost/hooks'])('gives no hint in production (DATABASE_URL set) for %s', (url) => {
    expect(refusal(url, false)).not.toContain('ASSAY_ALLOW_INSECURE_URLS');
  });
});
