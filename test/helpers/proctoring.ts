import type { LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import type { TestInput } from '../../src/modules/catalog/schemas.js';
import type { Harness, Tenant } from './harness.js';
import { assign, createPublishedTest, Student } from './student.js';

/** Driving a proctored attempt over HTTP, as the page's script does (no browser). */

export function proctoredTest(proctoring: 'record' | 'live_ai', proctoringRules?: TestInput['proctoringRules']): TestInput {
  return {
    title: `Proctored (${proctoring})`,
    description: 'A supervised test.',
    durationMinutes: 30,
    proctoring,
    marking: 'auto',
    resultVisibility: 'immediate',
    passPercent: null,
    ...(proctoringRules ? { proctoringRules } : {}),
    questions: [{ id: 'q1', type: 'numeric', prompt: '6 × 7?', points: 1, answer: 42 }],
  };
}

/** A WebM-looking body of `size` bytes (EBML magic first, then a Tracks element's id), filled with `fill`. */
export function webm(size = 2048, fill = 7): Buffer {
  const b = Buffer.alloc(size, fill);
  Buffer.from([0x1a, 0x45, 0xdf, 0xa3]).copy(b);
  Buffer.from([0x16, 0x54, 0xae, 0x6b]).copy(b, 8);
  return b;
}

/** What Chromium's MediaRecorder hands over when stopped before its first frame: the EBML header alone (110 bytes). */
export const FRAMELESS_WEBM = Buffer.from(
  'GkXfo59ChoEBQveBAULygQRC84EIQoKEd2VibUKHgQRChYECAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=',
  'base64',
);

export function jpeg(size = 1024, fill = 9): Buffer {
  const b = Buffer.alloc(size, fill);
  Buffer.from([0xff, 0xd8, 0xff, 0xe0]).copy(b);
  return b;
}

export interface Signal {
  id: string;
  kind: string;
  startedAt: string;
  durationSeconds: number;
  ongoing: boolean;
}

/** A student at a proctored test: the journey's Student plus the proctoring calls. */
export class Proctored {
  constructor(
    readonly h: Harness,
    readonly student: Student,
    readonly assignmentId: string,
  ) {}

  private headers(extra: Record<string, string> = {}, csrf = this.student.csrf): Record<string, string> {
    return { ...(this.student.cookie ? { cookie: this.student.cookie } : {}), ...(csrf ? { 'x-csrf-token': csrf } : {}), ...extra };
  }

  heartbeat(signals: Signal[] = [], extra: { cameraActive?: boolean; fullscreen?: boolean | null; assignmentId?: string; csrf?: string | null } = {}) {
    return this.h.app.inject({
      method: 'POST',
      url: `/a/${extra.assignmentId ?? this.assignmentId}/proctoring/heartbeat`,
      headers: this.headers({ 'content-type': 'application/json' }, extra.csrf === null ? null : (extra.csrf ?? this.student.csrf)),
      payload: JSON.stringify({ signals, cameraActive: extra.cameraActive ?? true, fullscreen: extra.fullscreen ?? true }),
    });
  }

  /** A JSON POST to the attempt's proctoring routes: `uploads` (presign), `uploads/record`, … */
  post(path: string, body: unknown) {
    return this.h.app.inject({
      method: 'POST',
      url: `/a/${this.assignmentId}/proctoring/${path}`,
      headers: this.headers({ 'content-type': 'application/json' }),
      payload: JSON.stringify(body),
    });
  }

  segment(seq: number, body: Buffer = webm(), opts: { startedAt?: Date; durationMs?: number; type?: string; assignmentId?: string } = {}) {
    return this.h.app.inject({
      method: 'POST',
      url: `/a/${opts.assignmentId ?? this.assignmentId}/proctoring/segments/${seq}`,
      headers: this.headers({
        'content-type': opts.type ?? 'video/webm;codecs=vp8',
        'x-segment-started-at': (opts.startedAt ?? this.h.clock.now()).toISOString(),
        'x-segment-duration-ms': String(opts.durationMs ?? 10_000),
      }),
      payload: body,
    });
  }

  snapshot(body: Buffer = jpeg(), opts: { takenAt?: Date; flagId?: string; snapshotId?: string; type?: string } = {}) {
    return this.h.app.inject({
      method: 'POST',
      url: `/a/${this.assignmentId}/proctoring/snapshots`,
      headers: this.headers({
        'content-type': opts.type ?? 'image/jpeg',
        'x-snapshot-taken-at': (opts.takenAt ?? this.h.clock.now()).toISOString(),
        ...(opts.flagId ? { 'x-flag-id': opts.flagId } : {}),
        ...(opts.snapshotId ? { 'x-snapshot-id': opts.snapshotId } : {}),
      }),
      payload: body,
    });
  }
}

/** Publishes a proctored test to the tenant, assigns it and begins it: the attempt is running. */
export async function startProctored(
  h: Harness,
  tenant: Tenant,
  test: TestInput | string,
  externalUserId = `student-${Math.random().toString(36).slice(2, 10)}`,
): Promise<Proctored & { testId: string }> {
  const testId = typeof test === 'string' ? test : await createPublishedTest(h, tenant, test);
  const a = await assign(h, tenant, { testId, externalUserId });
  const student = new Student(h);
  const assignmentId = await student.start(a.startUrl);
  await student.page(assignmentId);
  expect(student.csrf).toBeTruthy();
  return Object.assign(new Proctored(h, student, assignmentId), { testId });
}

export const signal = (id: string, kind: string, durationSeconds: number, startedAt: Date, ongoing = true): Signal => ({
  id,
  kind,
  startedAt: startedAt.toISOString(),
  durationSeconds,
  ongoing,
});

export function flagsOf(res: LightMyRequestResponse): Array<{ signalId: string; flagId: string; severity: string; needsEvidence: boolean }> {
  expect(res.statusCode, res.body).toBe(200);
  return res.json().flags;
}

/** The heartbeat time stored for an attempt (what the interruption sweep reads), or null before the first write. */
export async function lastHeartbeatAt(h: Harness, assignmentId: string): Promise<Date | null> {
  const { rows } = await h.pool.query('SELECT last_heartbeat_at FROM proctoring_sessions WHERE assignment_id = $1', [assignmentId]);
  return rows[0]?.last_heartbeat_at ?? null;
}
