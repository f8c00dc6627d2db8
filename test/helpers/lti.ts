import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, expect } from 'vitest';
import type { Clock } from '../../src/platform/clock.js';
import { createHarness, type Harness, type Tenant } from './harness.js';
import { LTI, startFakePlatform, type FakePlatform } from './lti-platform.js';

/**
 * The LTI test files' rig, set up before the file's tests and closed after
 * them: a harness on `clock` (insecure URLs allowed: the fake platform is
 * plain http), the fake platform on that clock, registered for tenant A.
 * `ready` receives both once they stand.
 */
export function useLtiRig(clock: Clock, ready: (rig: { h: Harness; platform: FakePlatform }) => void): void {
  let h: Harness | undefined;
  let platform: FakePlatform | undefined;
  beforeAll(async () => {
    h = await createHarness({ clock, config: { allowInsecureUrls: true } });
    const app = h.app;
    platform = await startFakePlatform({ toolJwks: async () => (await app.inject({ method: 'GET', url: '/lti/jwks' })).json(), now: () => clock.now() });
    await registerPlatform(h, h.a, platform);
    ready({ h, platform });
  });
  afterAll(async () => {
    await platform?.close();
    await h?.close();
  });
}

/** Drives LTI launches against the app (no browser): the cookie jar of one browser, the login redirect, the platform's form post. */
export class LtiBrowser {
  cookies = new Map<string, string>();

  constructor(private readonly h: Harness) {}

  private header(): Record<string, string> {
    return this.cookies.size === 0 ? {} : { cookie: [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ') };
  }

  private keep(res: LightMyRequestResponse): LightMyRequestResponse {
    const set = res.headers['set-cookie'];
    for (const line of Array.isArray(set) ? set : set ? [set] : []) {
      const [pair] = line.split(';');
      const i = pair!.indexOf('=');
      const name = pair!.slice(0, i);
      const value = pair!.slice(i + 1);
      if (value === '' || /max-age=0|expires=thu, 01 jan 1970/i.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return res;
  }

  get(url: string) {
    return this.h.app.inject({ method: 'GET', url, headers: this.header() }).then((r) => this.keep(r));
  }

  postForm(url: string, fields: Record<string, string>, headers: Record<string, string> = {}) {
    return this.h.app
      .inject({ method: 'POST', url, headers: { 'content-type': 'application/x-www-form-urlencoded', ...this.header(), ...headers }, payload: new URLSearchParams(fields).toString() })
      .then((r) => this.keep(r));
  }

  /** Third-party login initiation, as the platform starts it: the answer is the redirect to the platform's /auth. */
  login(platform: FakePlatform, loginHint: string, extra: Record<string, string> = {}) {
    const q = new URLSearchParams({
      iss: platform.registration.issuer,
      login_hint: loginHint,
      target_link_uri: 'http://assay.test/lti/launch',
      client_id: platform.registration.clientId,
      lti_deployment_id: platform.registration.deploymentIds[0]!,
      ...extra,
    });
    return this.get(`/lti/login?${q}`);
  }

  /** Login, then the platform's authorisation answer: the id_token and state the browser would post. */
  async authorize(platform: FakePlatform, loginHint: string, claims: Record<string, unknown> = {}): Promise<{ id_token: string; state: string; nonce: string }> {
    platform.launches.set(loginHint, claims);
    const login = await this.login(platform, loginHint);
    expect(login.statusCode).toBe(302);
    const location = String(login.headers.location);
    const res = await fetch(location);
    expect(res.status).toBe(200);
    const form = await res.text();
    const field = (name: string) => new RegExp(`name="${name}" value="([^"]*)"`).exec(form)![1]!;
    return { id_token: field('id_token'), state: field('state'), nonce: new URL(location).searchParams.get('nonce')! };
  }

  /** The whole launch: login, authorisation, the id_token post. */
  async launch(platform: FakePlatform, loginHint: string, claims: Record<string, unknown> = {}, headers: Record<string, string> = {}) {
    const posted = await this.authorize(platform, loginHint, claims);
    return this.postForm('/lti/launch', { id_token: posted.id_token, state: posted.state }, headers);
  }
}

/** The claims of a resource-link launch of `testId`, with a line item when `lineItem` is given, and a launch presentation claim for `returnUrl` and `locale`. */
export function resourceLinkClaims(testId: string, opts: { linkId?: string; lineItem?: string; returnUrl?: string; locale?: string; roles?: string[] } = {}) {
  const presentation = { ...(opts.returnUrl ? { return_url: opts.returnUrl } : {}), ...(opts.locale ? { locale: opts.locale } : {}) };
  return {
    [`${LTI}resource_link`]: { id: opts.linkId ?? 'link-1', title: 'Week 3 quiz' },
    [`${LTI}context`]: { id: 'course-1', title: 'Biology 101' },
    [`${LTI}custom`]: { assay_test_id: testId },
    ...(opts.roles ? { [`${LTI}roles`]: opts.roles } : {}),
    ...(Object.keys(presentation).length > 0 ? { [`${LTI}launch_presentation`]: presentation } : {}),
    ...(opts.lineItem
      ? { 'https://purl.imsglobal.org/spec/lti-ags/claim/endpoint': { scope: ['https://purl.imsglobal.org/spec/lti-ags/scope/score'], lineitem: opts.lineItem } }
      : {}),
  };
}

export async function registerPlatform(h: Harness, tenant: Tenant, platform: FakePlatform): Promise<string> {
  const res = await h.admin('POST', `/api/admin/v1/institutions/${tenant.institutionId}/lti-platforms`, platform.registration);
  expect(res.statusCode).toBe(201);
  return res.json().ltiPlatformId as string;
}

/** Rows that a launch would create: a refused launch must leave every count as it was. */
export async function launchFootprint(h: Harness): Promise<Record<string, number>> {
  const { rows } = await h.pool.query(`SELECT
      (SELECT count(*) FROM assignments)::int AS assignments,
      (SELECT count(*) FROM users)::int AS users,
      (SELECT count(*) FROM lti_resource_links)::int AS links,
      (SELECT count(*) FROM lti_link_assignments)::int AS link_assignments,
      (SELECT count(*) FROM lti_nonces)::int AS nonces,
      (SELECT count(*) FROM lti_deep_link_requests)::int AS deep_link_requests,
      (SELECT count(*) FROM student_sessions)::int AS sessions`);
  return rows[0];
}
