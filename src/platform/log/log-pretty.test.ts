import { describe, expect, it } from 'vitest';
import { createPrettyStream } from './log-pretty.js';

/**
 * The terminal form of the logs: one line per request, other lines short, nothing before the banner.
 * The stream on its own here; a real server logging through it in test/platform/log-pretty.test.ts.
 */
const T = Date.UTC(2030, 0, 1, 12, 3, 7);
const line = (o: object) => `${JSON.stringify({ level: 30, time: T, pid: 1, hostname: 'h', ...o })}\n`;

describe('pretty log stream', () => {
  it('holds every line until released, then writes one line per request: method, URL, status, time, refusal code', () => {
    const out: string[] = [];
    const s = createPrettyStream({ write: (t) => void out.push(t) });
    s.write(line({ requestId: 'req_1', req: { method: 'GET', url: '/api/partner/v1/tests?api_key=[redacted]' }, msg: 'incoming request' }));
    s.write(line({ requestId: 'req_1', code: 'unauthenticated', status: 401, msg: 'request refused' }));
    s.write(line({ requestId: 'req_1', res: { statusCode: 401 }, responseTime: 2.46, msg: 'request completed' }));
    s.write(line({ msg: 'Server listening at http://127.0.0.1:3000' }));
    expect(out).toEqual([]);
    s.release();
    expect(out).toHaveLength(1);
    expect(out[0]).toMatch(/^\d\d:\d\d:\d\d {2}GET \/api\/partner\/v1\/tests\?api_key=\[redacted\] {2}401 {2}2\.5 ms {2}unauthenticated\n$/);
    s.write(line({ level: 40, msg: 'webhook endpoint answered 410 Gone; disabling it', endpointId: 'whep_1' }));
    expect(out[1]).toMatch(/ {2}WARN {2}webhook endpoint answered 410 Gone; disabling it {2}endpointId=whep_1\n$/);
    s.write('not json\n');
    expect(out[2]).toBe('not json\n');
  });
});
