import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from '../helpers/expect-error.js';
import { createHarness, type Harness } from '../helpers/harness.js';
import { baseUrlOf } from '../helpers/read-during.js';
import { assign, Student } from '../helpers/student.js';

/**
 * The open test page's push channel, `GET /a/{id}/events`: Server-Sent Events
 * over a real socket, fed by NOTIFY from whichever connection made the
 * change. Extra time given through the partner API reaches the stream within
 * a second; a cancellation sends the final status and ends it; another
 * student's or another institution's session gets 404, none 401; the caps
 * answer 503 with Retry-After; app.close() ends open streams.
 */
const P = '/api/partner/v1';
let h: Harness;
let base: string;

beforeAll(async () => {
  h = await createHarness({ config: { statusStreams: { perProcess: 5, perSession: 2, pingMs: 300 } } as never });
  base = await baseUrlOf(h);
});
afterAll(() => h?.close());

interface Opened {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** Each `event: status` received so far, parsed. */
  events: Array<Record<string, unknown>>;
  /** Raw text received so far. */
  text: string;
  ended: Promise<void>;
  /** Resolves with the n-th status event (1-based) once it has arrived. */
  nth(n: number, timeoutMs?: number): Promise<Record<string, unknown>>;
  /** Resolves with the first status event that `pred` accepts. */
  first(pred: (e: Record<string, unknown>) => boolean, timeoutMs?: number): Promise<Record<string, unknown>>;
  close(): void;
}

function openStream(assignmentId: string, cookie: string | null): Promise<Opened> {
  return new Promise((resolve, reject) => {
    const req = http.get(`${base}/a/${assignmentId}/events`, { headers: { accept: 'text/event-stream', ...(cookie ? { cookie } : {}) } }, (res) => {
      const waiters: Array<() => void> = [];
      const wait = (pick: (events: Array<Record<string, unknown>>) => Record<string, unknown> | undefined, what: string, timeoutMs: number) =>
        new Promise<Record<string, unknown>>((ok, fail) => {
          const check = () => {
            const found = pick(o.events);
            if (found) ok(found);
            return found !== undefined;
          };
          if (check()) return;
          const timer = setTimeout(() => fail(new Error(`no ${what} within ${timeoutMs} ms; got ${o.text}`)), timeoutMs);
          waiters.push(() => check() && clearTimeout(timer));
        });
      const o: Opened = {
        status: res.statusCode!,
        headers: res.headers,
        events: [],
        text: '',
        ended: new Promise((r) => res.on('end', () => r()).on('close', () => r())),
        nth(n, timeoutMs = 1000) {
          return wait((events) => events[n - 1], `status event #${n}`, timeoutMs);
        },
        first(pred, timeoutMs = 1000) {
          return wait((events) => events.find(pred), 'the status event awaited', timeoutMs);
        },
        close: () => req.destroy(),
      };
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        o.text += chunk;
        o.events = [...o.text.matchAll(/event: status\ndata: (.*)\n\n/g)].map((m) => JSON.parse(m[1]!));
        for (const w of [...waiters]) w();
      });
      resolve(o);
    });
    req.on('error', reject);
  });
}

async function running(externalUserId: string) {
  const a = await assign(h, h.a, { externalUserId });
  const s = new Student(h);
  await s.start(a.startUrl);
  return { ...a, s };
}

describe('GET /a/{id}/events', () => {
  it('sends the status at once, then extra time given through the partner API within a second, with stream-friendly headers', async () => {
    const r = await running('sse-extra');
    const stream = await openStream(r.assignmentId, r.s.cookie);
    expect(stream.status).toBe(200);
    expect(stream.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    expect(stream.headers['cache-control']).toBe('no-store');
    expect(stream.headers['x-accel-buffering']).toBe('no');
    const first = await stream.nth(1);
    expect(first).toMatchObject({ status: 'started', deadline: expect.any(String) });

    const sent = Date.now();
    const patched = await h.partner(h.a, 'PATCH', `${P}/assignments/${r.assignmentId}`, { accommodations: { extraTimeMinutes: 15 } });
    expect(patched.statusCode).toBe(200);
    const second = await stream.first((e) => e.deadline !== first.deadline);
    expect(Date.now() - sent).toBeLessThan(1000);
    expect(Date.parse(second.deadline as string) - Date.parse(first.deadline as string)).toBe(15 * 60_000);
    stream.close();
  });

  it('a notification that changes nothing (a repeat, a reconnect, a stray NOTIFY) sends nothing; the next real change is the second event', async () => {
    const r = await running('sse-repeat');
    const stream = await openStream(r.assignmentId, r.s.cookie);
    const first = await stream.nth(1);
    await h.pool.query(`SELECT pg_notify('assay_attempt_status', $1)`, [r.assignmentId]);
    await h.pool.query(`SELECT pg_notify('assay_attempt_status', $1)`, [r.assignmentId]);
    expect((await h.partner(h.a, 'PATCH', `${P}/assignments/${r.assignmentId}`, { accommodations: { extraTimeMinutes: 3 } })).statusCode).toBe(200);
    const second = await stream.nth(2);
    expect(Date.parse(second.deadline as string) - Date.parse(first.deadline as string)).toBe(3 * 60_000);
    await new Promise((ok) => setTimeout(ok, 200));
    expect(stream.events).toHaveLength(2);
    stream.close();
  });

  it('a cancellation sends the final status and ends the stream', async () => {
    const r = await running('sse-cancel');
    const stream = await openStream(r.assignmentId, r.s.cookie);
    await stream.nth(1);
    expect((await h.partner(h.a, 'POST', `${P}/assignments/${r.assignmentId}/cancel`)).statusCode).toBe(200);
    expect(await stream.first((e) => e.status !== 'started')).toMatchObject({ status: 'cancelled', deadline: null });
    await stream.ended;
  });

  it('a submission from another tab sends the final status; a stream opened after it gets that status and ends', async () => {
    const r = await running('sse-submit');
    const stream = await openStream(r.assignmentId, r.s.cookie);
    await stream.nth(1);
    expect((await r.s.submit(r.assignmentId)).statusCode).toBe(303);
    expect(['submitted', 'marking', 'completed']).toContain((await stream.first((e) => e.status !== 'started')).status);
    await stream.ended;
    const late = await openStream(r.assignmentId, r.s.cookie);
    await late.ended;
    expect(late.events).toHaveLength(1);
    expect(late.events[0]!.status).not.toBe('started');
  });

  it('another student’s session and another institution’s session get 404; no session 401; all in the envelope, nothing opened', async () => {
    const mine = await running('sse-owner');
    const other = await running('sse-intruder');
    const b = await assign(h, h.b, { externalUserId: 'sse-owner' });
    const sb = new Student(h);
    await sb.start(b.startUrl);
    for (const [cookie, status, code] of [
      [other.s.cookie, 404, 'not_found'],
      [sb.cookie, 404, 'not_found'],
      [null, 401, 'unauthenticated'],
    ] as const) {
      const res = await h.app.inject({ method: 'GET', url: `/a/${mine.assignmentId}/events`, headers: cookie ? { cookie } : {} });
      expectError(res, status, code);
    }
  });

  it('past the per-session cap, and past the per-process cap, 503 with Retry-After in the envelope; a closed stream frees its place', async () => {
    const r = await running('sse-caps');
    const one = await openStream(r.assignmentId, r.s.cookie);
    const two = await openStream(r.assignmentId, r.s.cookie);
    await Promise.all([one.nth(1), two.nth(1)]);
    const third = await h.app.inject({ method: 'GET', url: `/a/${r.assignmentId}/events`, headers: { cookie: r.s.cookie! } });
    expectError(third, 503, 'unavailable');
    expect(third.headers['retry-after']).toBe('60');

    const others = await Promise.all(['sse-cap-1', 'sse-cap-2', 'sse-cap-3'].map(running));
    const streams = await Promise.all(others.map((o) => openStream(o.assignmentId, o.s.cookie)));
    await Promise.all(streams.map((s) => s.nth(1)));
    const full = await h.app.inject({ method: 'GET', url: `/a/${others[0]!.assignmentId}/events`, headers: { cookie: others[0]!.s.cookie! } });
    expectError(full, 503, 'unavailable');
    expect(full.headers['retry-after']).toBe('60');

    one.close();
    await one.ended;
    await new Promise((r) => setTimeout(r, 50));
    const again = await openStream(r.assignmentId, r.s.cookie);
    expect(again.status).toBe(200);
    for (const s of [two, again, ...streams]) s.close();
  });
});

describe('while open', () => {
  it('a comment line keeps the stream alive, and a new start link (which ends the session) ends the stream at the next ping', async () => {
    const r = await running('sse-relinked');
    const stream = await openStream(r.assignmentId, r.s.cookie);
    await stream.nth(1);
    await expect.poll(() => stream.text.includes(': ping\n\n'), { timeout: 2000, interval: 50 }).toBe(true);
    expect((await h.partner(h.a, 'POST', `${P}/assignments/${r.assignmentId}/start-link`)).statusCode).toBe(200);
    await stream.ended;
    // The start link changes no status: the stream ended without another status event.
    expect(stream.events.map((e) => e.status)).toEqual(['started']);
    expectError(await h.app.inject({ method: 'GET', url: `/a/${r.assignmentId}/events`, headers: { cookie: r.s.cookie! } }), 401, 'unauthenticated');
  });
});

describe('a lost LISTEN connection', () => {
  it('a change made while it was down reaches the open stream once it is back (every stream gets a fresh status)', async () => {
    const r = await running('sse-reconnect');
    const stream = await openStream(r.assignmentId, r.s.cookie);
    const first = await stream.nth(1);
    const { rows } = await h.pool.query(
      `SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'assay-status-listener'`,
    );
    expect(rows).toEqual([{ ok: true }]);
    // Made at once: its NOTIFY finds no listener of this process.
    expect((await h.partner(h.a, 'PATCH', `${P}/assignments/${r.assignmentId}`, { accommodations: { extraTimeMinutes: 5 } })).statusCode).toBe(200);
    // The listener reconnects within about a second, then refreshes every stream.
    const fresh = await stream.first((e) => e.deadline !== first.deadline, 5000);
    expect(Date.parse(fresh.deadline as string) - Date.parse(first.deadline as string)).toBe(5 * 60_000);
    stream.close();
  });
});

describe('shutdown', () => {
  it('app.close() ends open streams instead of waiting for them', async () => {
    const own = await createHarness();
    try {
      base = await baseUrlOf(own);
      const a = await assign(own, own.a, { externalUserId: 'sse-shutdown' });
      const s = new Student(own);
      await s.start(a.startUrl);
      const stream = await openStream(a.assignmentId, s.cookie);
      await stream.nth(1);
      const closing = own.app.close().then(() => 'closed');
      expect(await Promise.race([closing, new Promise((r) => setTimeout(() => r('hung'), 3000))])).toBe('closed');
      await stream.ended;
    } finally {
      await own.close().catch(() => undefined);
    }
  });
});
