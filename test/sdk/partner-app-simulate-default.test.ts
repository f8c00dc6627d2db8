import { describe, expect, it } from 'vitest';
import { studentRows } from '../../examples/partner-app/pages.js';
import type { Enrolment } from '../../examples/partner-app/store.js';
import type { AssignmentStatus } from '../../packages/partner-sdk/src/index.js';

/**
 * The example app's Simulate control preselects the step that moves the row
 * on from its status (start on an assigned row, submit on a started one,
 * finish marking in marking), so pressing Simulate never sends a step the
 * status refuses; a row with nothing left to play offers no control.
 */
const row = (status: AssignmentStatus): Enrolment => ({
  assignmentId: `asg_${status}`,
  externalUserId: `s-${status}`,
  name: 'Sam',
  email: 'sam@example.org',
  testId: 'tst_1',
  testTitle: 'Arithmetic',
  status,
  score: null,
  sequence: 1,
  livemode: false,
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
});

const selected = (status: AssignmentStatus): string[] =>
  [...studentRows([row(status)], true).matchAll(/<option value="(\w+)"[^>]*\bselected\b/g)].map((m) => m[1]!);

describe('the example app\'s Simulate control', () => {
  it.each([
    ['assigned', 'start'],
    ['started', 'submit'],
    ['submitted', 'finish_marking'],
    ['marking', 'finish_marking'],
  ] as const)('on a row that is %s, preselects %s', (status, action) => {
    expect(selected(status)).toEqual([action]);
  });

  it('still offers every step, so a row the webhooks have not caught up with can be moved on', () => {
    const html = studentRows([row('started')], true);
    for (const action of ['start', 'submit', 'violation', 'finish_marking', 'expire']) expect(html).toContain(`<option value="${action}"`);
  });

  it.each(['completed', 'expired', 'cancelled'] as const)('on a row that is %s, offers no Simulate button and says why', (status) => {
    const html = studentRows([row(status)], true);
    expect(html).not.toContain('action="/simulate"');
    expect(html).toContain('Nothing left to simulate');
  });

  it('is not shown with a live key', () => {
    expect(studentRows([row('assigned')], false)).not.toContain('action="/simulate"');
  });
});
