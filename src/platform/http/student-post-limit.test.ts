import { describe, expect, it } from 'vitest';
import type { FastifyRequest } from 'fastify';
import { AppError } from '../errors.js';
import { createStudentPostLimit } from './rate-limit-requests.js';

/** A request as the hook reads it: method, cookies, route config and address. */
const request = (cookie: string | undefined, opts: { method?: string; background?: boolean; ip?: string } = {}) =>
  ({
    method: opts.method ?? 'POST',
    cookies: cookie === undefined ? {} : { s: cookie },
    ip: opts.ip ?? '192.0.2.1',
    routeOptions: { config: { studentBackground: opts.background ?? false } },
  }) as unknown as FastifyRequest;

function run(check: ReturnType<typeof createStudentPostLimit>, r: FastifyRequest): AppError | undefined {
  return check(r); // at once: no promise
}

describe('the per-session student POST limit', () => {
  it('counts per session in fixed one-minute windows, answers 429 with Retry-After, and starts again when the window ends', () => {
    let t = 1_000_000;
    const hook = createStudentPostLimit(3, 's', () => t);
    for (let i = 0; i < 3; i++) expect(run(hook, request('one'))).toBeUndefined();
    t += 20_000;
    const refused = run(hook, request('one'))!;
    expect(refused.code).toBe('rate_limited');
    expect(refused.headers).toEqual({ 'Retry-After': '40' });
    expect(run(hook, request('two'))).toBeUndefined(); // another session: its own allowance
    t += 40_000; // the first window ends
    expect(run(hook, request('one'))).toBeUndefined();
  });

  it('keeps the background budget apart from the student actions, counts no GET, and falls back to the address without a session', () => {
    const t = 5_000;
    const hook = createStudentPostLimit(1, 's', () => t);
    expect(run(hook, request('one'))).toBeUndefined();
    expect(run(hook, request('one', { background: true }))).toBeUndefined();
    expect(run(hook, request('one'))?.code).toBe('rate_limited');
    expect(run(hook, request('one', { background: true }))?.code).toBe('rate_limited');
    for (let i = 0; i < 5; i++) expect(run(hook, request('one', { method: 'GET' }))).toBeUndefined();
    expect(run(hook, request(undefined, { ip: '198.51.100.1' }))).toBeUndefined();
    expect(run(hook, request(undefined, { ip: '198.51.100.1' }))?.code).toBe('rate_limited');
    expect(run(hook, request(undefined, { ip: '198.51.100.2' }))).toBeUndefined();
  });
});
