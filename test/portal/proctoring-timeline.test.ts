import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, manualClock, type Harness } from '../helpers/harness.js';
import { portalGet, signedIn, type PortalUser } from '../helpers/portal.js';
import { flagsOf, jpeg, proctoredTest, signal, startProctored, webm, type Proctored } from '../helpers/proctoring.js';
import { createPublishedTest } from '../helpers/student.js';

/**
 * The record page's timeline as served (the browser half is
 * test/browser/proctoring-timeline.test.ts): one player, not one per
 * segment; a Jump to per flag at its second on the player's axis; times to
 * the second in UTC; a missing segment named as a gap; the segment files with
 * the page's and the server's times; a CSP that lets the player use a
 * MediaSource (blob:) and fetch the files.
 */
const start = new Date('2026-03-02T11:00:00.000Z');
const clock = manualClock(start);
let h: Harness;
let p: Proctored;
let reviewer: PortalUser;
const at = (seconds: number) => new Date(start.getTime() + seconds * 1000);

beforeAll(async () => {
  h = await createHarness({ clock });
  const testId = await createPublishedTest(h, h.a, proctoredTest('record'));
  p = await startProctored(h, h.a, testId, 'timeline-student');
  // Segments 0, 1 and 3 of 10 s from 11:00:00; segment 2 (11:00:20–11:00:30) never arrived.
  clock.set(at(41));
  for (const seq of [0, 1, 3]) expect((await p.segment(seq, webm(), { startedAt: at(seq * 10), durationMs: 10_000 })).statusCode).toBe(201);
  expect((await p.snapshot(jpeg(), { takenAt: at(12) })).statusCode).toBe(201);
  // A flag at 11:00:13 (the page's clock).
  flagsOf(await p.heartbeat([signal('cp-0000001', 'copy_paste', 0, at(13), false)]));
  reviewer = await signedIn(h, 'reviewer', h.a.institutionId, 'Dana Reviewer');
});
afterAll(() => h.close());

describe('the record page timeline', () => {
  it('is one player with the flags at their seconds, a Jump to per flag, a gap named, and both clocks per segment', async () => {
    const res = await portalGet(h, reviewer, `/portal/assignments/${p.assignmentId}/proctoring`);
    expect(res.statusCode, res.body).toBe(200);
    const csp = res.headers['content-security-policy'] as string;
    expect(csp).toMatch(/media-src 'self' http[^;]* blob:/);
    expect(csp).toMatch(/connect-src 'self' http/);
    expect(res.body.match(/<video /g)).toHaveLength(1);
    expect(res.body).toContain('<script src="/portal/assets/proctoring-timeline.js" defer></script>');
    // The flag: 13 s into the recording, to the second, in UTC, with its Jump to (shown by the script).
    expect(res.body).toMatch(/<button type="button" class="button small jump" data-jump="13" hidden>Jump to<span class="sr-only"> Copy or paste at 11:00:13 UTC<\/span><\/button>/);
    expect(res.body).toContain('2 Mar 2026, 11:00:13 UTC');
    // Severity by shape and word.
    expect(res.body).toMatch(/<span class="badge badge-severity-warning"><span class="shape" aria-hidden="true">▲<\/span> Warning<\/span>/);
    // The missing segment is a gap, from the end of segment 2 to the start of segment 4.
    expect(res.body).toContain('Not recorded: 11:00:20 UTC to 11:00:30 UTC (1 segment missing)');
    // Each segment file: the page's start and the server's receive time (11:00:41).
    expect(res.body).toMatch(/Segment 4<\/a><\/th>\s*<td data-label="Began \(page’s clock\)"><time datetime="2026-03-02T11:00:30.000Z">2 Mar 2026, 11:00:30 UTC<\/time><\/td>\s*<td data-label="Received \(server’s clock\)"><time datetime="2026-03-02T11:00:41.000Z">/);
    // The data for the script: the segments on the player's axis, the snapshot with both times.
    const data = JSON.parse(/<script type="application\/json" id="timeline-data">([^<]*)<\/script>/.exec(res.body)![1]!);
    expect(data.segments.map((s: { seq: number; at: number }) => [s.seq, s.at])).toEqual([
      [0, 0],
      [1, 10],
      [3, 30],
    ]);
    expect(data.gaps).toEqual([{ from: 20, to: 30, missing: 1 }]);
    expect(data.snapshots).toEqual([expect.objectContaining({ at: 12, taken: '11:00:12 UTC', received: '11:00:41 UTC' })]);
  });

  it('serves the timeline script', async () => {
    const res = await h.app.inject({ method: 'GET', url: '/portal/assets/proctoring-timeline.js' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/javascript/);
    expect(res.body).toContain("sb.mode = 'sequence'");
  });
});
