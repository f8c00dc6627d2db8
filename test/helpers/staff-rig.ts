import type { LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import { manualClock } from '../../src/platform/clock.js';
import type { Config } from '../../src/platform/config.js';
import { createHarness, type Harness } from './harness.js';
import { linksIn, startSmtpSink, type SmtpSink } from './smtp-sink.js';

/**
 * The portal's sign-in rig: the harness (two institutions) on a manual
 * clock, a real SMTP server receiving Assay's mail, and a small browser
 * (a cookie jar over app.inject) per person.
 */
export interface StaffRig {
  h: Harness;
  smtp: SmtpSink;
  clock: ReturnType<typeof manualClock>;
  /** A browser on the harness app, or on `app` (e.g. one that logs into memory). */
  browser(ip?: string, app?: Harness['app']): PortalBrowser;
  /** Invites through the operator API and delivers the invitation mail; returns the staff id. */
  invite(institutionId: string, email: string, role: string): Promise<string>;
  /** Runs the mail job and returns the sign-in links of the newest mail to `email`. */
  mailedLinks(email: string): Promise<string[]>;
  close(): Promise<void>;
}

export interface PortalBrowser {
  cookies: Map<string, string>;
  get(url: string, headers?: Record<string, string>): Promise<LightMyRequestResponse>;
  /** A form post (urlencoded). */
  post(url: string, form: Record<string, string>, headers?: Record<string, string>): Promise<LightMyRequestResponse>;
  postJson(url: string, body: unknown, headers?: Record<string, string>): Promise<LightMyRequestResponse>;
  /** GET the page, then post its form with its own CSRF token (as the browser would). */
  submit(pageUrl: string, action: string, form?: Record<string, string>): Promise<LightMyRequestResponse>;
  /** The whole sign-in: sign-in form, mail, link page, "Sign in". Returns the final response (303). */
  signIn(email: string, next?: string): Promise<LightMyRequestResponse>;
  /** Follows a mailed link: its page, then the Sign in button. */
  useLink(link: string): Promise<LightMyRequestResponse>;
}

export function csrfOf(html: string): string {
  const m = /name="csrf" value="([^"]+)"/.exec(html);
  if (!m) throw new Error('no csrf field in the page');
  return m[1]!;
}

export async function createStaffRig(opts: { config?: Partial<Config> } = {}): Promise<StaffRig> {
  const smtp = await startSmtpSink();
  // Ahead of the database's clock, so jobs enqueued "now" (by the database) are due by the app's clock.
  const clock = manualClock(new Date(Date.now() + 3_600_000));
  const h = await createHarness({ clock, config: { mail: { smtpUrl: smtp.url, from: 'Assay <no-reply@assay.test>' }, ...opts.config } });

  function browser(ip = '203.0.113.7', app: Harness['app'] = h.app): PortalBrowser {
    const cookies = new Map<string, string>();
    const cookieHeader = () => [...cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    const remember = (res: LightMyRequestResponse) => {
      for (const c of res.cookies as Array<{ name: string; value: string; maxAge?: number; expires?: Date }>) {
        if (c.maxAge === 0 || (c.expires && c.expires.getTime() < Date.now()) || c.value === '') cookies.delete(c.name);
        else cookies.set(c.name, c.value);
      }
      return res;
    };
    const b: PortalBrowser = {
      cookies,
      async get(url, headers = {}) {
        return remember(await app.inject({ method: 'GET', url, remoteAddress: ip, headers: { accept: 'text/html', cookie: cookieHeader(), ...headers } }));
      },
      async post(url, form, headers = {}) {
        return remember(
          await app.inject({
            method: 'POST',
            url,
            remoteAddress: ip,
            headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: cookieHeader(), ...headers },
            payload: new URLSearchParams(form).toString(),
          }),
        );
      },
      async postJson(url, body, headers = {}) {
        return remember(
          await app.inject({ method: 'POST', url, remoteAddress: ip, headers: { 'content-type': 'application/json', cookie: cookieHeader(), ...headers }, payload: JSON.stringify(body) }),
        );
      },
      async submit(pageUrl, action, form = {}) {
        const page = await b.get(pageUrl);
        expect(page.statusCode, page.body).toBe(200);
        return b.post(action, { csrf: csrfOf(page.body), ...form });
      },
      async useLink(link) {
        const path = new URL(link).pathname;
        const page = await b.get(path);
        if (page.statusCode !== 200) return page;
        return b.post(path, { csrf: csrfOf(page.body) });
      },
      async signIn(email, next) {
        const asked = await b.submit(next ? `/portal/sign-in?next=${encodeURIComponent(next)}` : '/portal/sign-in', '/portal/sign-in', { email, ...(next ? { next } : {}) });
        expect(asked.statusCode, asked.body).toBe(303);
        const links = await mailedLinks(email);
        return b.useLink(links[0]!);
      },
    };
    return b;
  }

  async function mailedLinks(email: string): Promise<string[]> {
    const before = smtp.to(email).length;
    await h.runJobs();
    const deadline = Date.now() + 5000;
    while (smtp.to(email).length === before) {
      if (Date.now() > deadline) throw new Error(`no mail to ${email}`);
      await new Promise((r) => setTimeout(r, 20));
    }
    return linksIn(smtp.to(email).at(-1)!);
  }

  return {
    h,
    smtp,
    clock,
    browser,
    mailedLinks,
    async invite(institutionId, email, role) {
      const res = await h.admin('POST', `/api/admin/v1/institutions/${institutionId}/staff`, { email, role });
      expect(res.statusCode, res.body).toBe(201);
      // Sent now, so a later sign-in mail is the newest one to this address.
      await mailedLinks(email);
      return res.json().staffId;
    },
    async close() {
      await h.close();
      await smtp.close();
    },
  };
}
