import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../helpers/harness.js';
import { proctoredTest, startProctored, type Proctored } from '../helpers/proctoring.js';
import { baseUrlOf } from '../helpers/read-during.js';
import { rawPost } from '../helpers/raw-post.js';

/**
 * Every route that takes a body other than small JSON (an upload, a
 * multipart or url-encoded form) knows who sends it before it reads the body
 * (review C1): a request without a valid credential, or a browser's upload
 * without its CSRF token, is answered while most of its body is still unsent.
 * Each request declares a big body (within the route's limit) and sends only
 * its first 64 KB; an answer within 3 s proves nothing waited for the rest.
 */
let h: Harness;
let p: Proctored;
let base: string;

beforeAll(async () => {
  h = await createHarness();
  p = await startProctored(h, h.a, proctoredTest('record'), 'body-after-auth');
  base = await baseUrlOf(h);
});
afterAll(() => h.close());

const MB = 1024 * 1024;
const now = () => new Date().toISOString();
const someAssignment = 'asg_0123456789abcdefABCDEF';

interface Row {
  name: string;
  url: () => string;
  headers: () => Record<string, string>;
  bytes: number;
  status: number;
}

const ROUTES: Row[] = [
  { name: 'portal Import form, signed out', url: () => '/portal/tests/import', headers: () => ({ 'content-type': 'multipart/form-data; boundary=x' }), bytes: 49 * MB, status: 403 },
  { name: 'portal editor image, signed out', url: () => '/portal/authoring/assets', headers: () => ({ 'content-type': 'image/png' }), bytes: 4 * MB, status: 403 },
  { name: 'portal form, no session and no pre-session cookie', url: () => '/portal/callback-domains/remove', headers: () => ({ 'content-type': 'application/x-www-form-urlencoded' }), bytes: 60 * 1024 * 4, status: 403 },
  { name: 'operator image upload, no token', url: () => '/api/admin/v1/assets', headers: () => ({ 'content-type': 'image/png' }), bytes: 4 * MB, status: 401 },
  { name: 'operator import, wrong token', url: () => '/api/admin/v1/tests/import', headers: () => ({ 'content-type': 'application/zip', authorization: 'Bearer wrong' }), bytes: 49 * MB, status: 401 },
  {
    name: 'file answer, no session',
    url: () => `/a/${someAssignment}/files/q1`,
    headers: () => ({ 'content-type': 'application/pdf', 'x-file-name': 'a.pdf', 'x-answer-version': '1' }),
    bytes: 19 * MB,
    status: 401,
  },
  {
    name: 'file answer, session without its token',
    url: () => `/a/${p.assignmentId}/files/q1`,
    headers: () => ({ cookie: p.student.cookie!, 'content-type': 'application/pdf', 'x-file-name': 'a.pdf', 'x-answer-version': '1' }),
    bytes: 19 * MB,
    status: 403,
  },
  {
    name: 'recording segment, no session',
    url: () => `/a/${someAssignment}/proctoring/segments/1`,
    headers: () => ({ 'content-type': 'video/webm', 'x-segment-started-at': now(), 'x-segment-duration-ms': '10000' }),
    bytes: 4 * MB - 1,
    status: 401,
  },
  {
    name: 'recording segment, session without its token',
    url: () => `/a/${p.assignmentId}/proctoring/segments/1`,
    headers: () => ({ cookie: p.student.cookie!, 'content-type': 'video/webm', 'x-segment-started-at': now(), 'x-segment-duration-ms': '10000' }),
    bytes: 4 * MB - 1,
    status: 403,
  },
  {
    name: 'snapshot, session from another site',
    url: () => `/a/${p.assignmentId}/proctoring/snapshots`,
    headers: () => ({ cookie: p.student.cookie!, 'x-csrf-token': p.student.csrf!, 'sec-fetch-site': 'cross-site', 'content-type': 'image/jpeg', 'x-snapshot-taken-at': now() }),
    bytes: 512 * 1024 - 1,
    status: 403,
  },
  { name: 'Begin form, no session', url: () => `/a/${someAssignment}/begin`, headers: () => ({ 'content-type': 'application/x-www-form-urlencoded' }), bytes: 60 * 1024 * 4, status: 404 },
];

describe('no body is read before its sender is known', () => {
  it.each(ROUTES.map((r) => [r.name, r] as const))('%s: refused before the body arrives', async (_name, row) => {
    const body = randomBytes(row.bytes);
    const before = process.memoryUsage().arrayBuffers;
    const res = await rawPost(base, row.url(), { headers: row.headers(), body, stopAfter: 64 * 1024, waitMs: 3000 });
    expect(res.status, res.body.slice(0, 300)).toBe(row.status);
    expect(res.sentBeforeAnswer).toBeLessThan(row.bytes);
    // The refused body was not kept: the process holds about the test's own copy of it, no more.
    expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(row.bytes + 8 * MB);
  });

  it('nothing was stored by any of them', async () => {
    const { rows } = await h.pool.query(
      `SELECT (SELECT count(*) FROM assets)::int AS assets, (SELECT count(*) FROM recording_segments)::int AS segments, (SELECT count(*) FROM answer_files)::int AS files`,
    );
    expect(rows[0]).toEqual({ assets: 0, segments: 0, files: 0 });
  });
});
