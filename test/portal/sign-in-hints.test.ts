import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/platform/config.js';
import { createHarness, type Harness } from '../helpers/harness.js';
import { portalPost, signedIn } from '../helpers/portal.js';

/**
 * First-run frictions on the staff sign-in pages: without ASSAY_SMTP_URL no
 * mail leaves the machine and the link is written to the server's log, so
 * the pages say where to look; with SMTP they say nothing of it. And an
 * address that is not one gets a message that shows what one looks like.
 */
let dev: Harness;
let mailing: Harness;

beforeAll(async () => {
  dev = await createHarness();
  mailing = await createHarness({ config: { mail: { ...parseConfig({}).mail, smtpUrl: 'smtp://127.0.0.1:2525' } } });
});
afterAll(async () => {
  await dev?.close();
  await mailing?.close();
});

const LOG_NOTE = /sign-in link is written to the server(’|')s log/;
const page = async (h: Harness, url: string) => {
  const res = await h.app.inject({ method: 'GET', url });
  expect(res.statusCode).toBe(200);
  return res.body;
};

describe('the sign-in pages without SMTP', () => {
  it('the sign-in page says the link goes to the server log, names ASSAY_SMTP_URL and says it is for development', async () => {
    const body = await page(dev, '/portal/sign-in');
    expect(body).toMatch(LOG_NOTE);
    expect(body).toContain('ASSAY_SMTP_URL');
    expect(body).toMatch(/development/i);
  });

  it('"check your email" says the same, since no email is coming', async () => {
    expect(await page(dev, '/portal/sign-in/sent')).toMatch(LOG_NOTE);
  });

  it('with ASSAY_SMTP_URL set, neither page mentions the log', async () => {
    for (const url of ['/portal/sign-in', '/portal/sign-in/sent']) {
      const body = await page(mailing, url);
      expect(body).not.toMatch(LOG_NOTE);
      expect(body).not.toContain('ASSAY_SMTP_URL');
    }
  });
});

describe('an address that is not one', () => {
  it('the staff invite form says what an address looks like, not "Email address is not an email address"', async () => {
    const admin = await signedIn(dev, 'admin', dev.a.institutionId);
    const bad = await portalPost(dev, admin, '/portal/staff', { email: 'not-an-address', role: 'reviewer' });
    expect(bad.statusCode).toBe(400);
    expect(bad.body).not.toContain('is not an email address');
    expect(bad.body).toContain('Enter an email address like name@example.com');
  });

  it('the operator API says what an address looks like, in the envelope, and creates nothing', async () => {
    const res = await dev.admin('POST', `/api/admin/v1/institutions/${dev.a.institutionId}/staff`, { email: 'not-an-address', role: 'viewer' });
    expect(res.statusCode).toBe(400);
    const { error } = res.json();
    expect(error.code).toBe('invalid_request');
    expect(error.details).toEqual([{ field: 'email', message: 'must be an email address like name@example.com' }]);
    expect((await dev.pool.query("SELECT count(*)::int AS n FROM staff WHERE email = 'not-an-address'")).rows[0].n).toBe(0);
  });
});
