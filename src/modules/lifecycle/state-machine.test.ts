import { describe, expect, it } from 'vitest';
import { ASSIGNMENT_STATUSES, isPastDue, transition, type AssignmentStatus, type LifecycleAction } from './state-machine.js';
import type { Score } from './score.js';

const NOW = new Date('2031-05-01T10:00:00.000Z');
const BEFORE = new Date(NOW.getTime() - 1000);
const AFTER = new Date(NOW.getTime() + 1000);
const SCORE: Score = { points: 1, maxPoints: 2, percent: 50, passed: true, gradingStatus: 'final', markedAt: NOW.toISOString() };

const STATUSES: AssignmentStatus[] = ['assigned', 'started', 'submitted', 'marking', 'completed', 'expired', 'cancelled'];
const CHANGES = { dueAt: { from: null, to: AFTER.toISOString() } };
const ACTIONS: Record<string, LifecycleAction> = {
  start: { type: 'start' },
  submit: { type: 'submit', score: SCORE },
  'settle immediate': { type: 'settle', resultVisibility: 'immediate', score: SCORE },
  'settle after_review': { type: 'settle', resultVisibility: 'after_review', score: null },
  complete_marking: { type: 'complete_marking', score: SCORE },
  expire: { type: 'expire' },
  update: { type: 'update', changes: CHANGES },
  cancel: { type: 'cancel' },
  reissue_link: { type: 'reissue_link' },
};

/** Spec section 3: the only legal (from, action) pairs and what they lead to (dueAt already passed for `expire`). */
const LEGAL: Record<string, { to: AssignmentStatus; events: string[] }> = {
  'assigned|start': { to: 'started', events: ['exam.started'] },
  'started|submit': { to: 'submitted', events: ['exam.completed'] },
  'submitted|settle immediate': { to: 'completed', events: [] },
  'submitted|settle after_review': { to: 'marking', events: [] },
  'marking|complete_marking': { to: 'completed', events: ['grading.done'] },
  'assigned|expire': { to: 'expired', events: ['assignment.expired'] },
  // Assignment controls: the institution changes, cancels or gives a new link while assigned or started.
  'assigned|update': { to: 'assigned', events: ['assignment.updated'] },
  'started|update': { to: 'started', events: ['assignment.updated'] },
  'assigned|cancel': { to: 'cancelled', events: ['assignment.cancelled'] },
  'started|cancel': { to: 'cancelled', events: ['assignment.cancelled'] },
  // Cancelling twice is harmless: no change, no second event.
  'cancelled|cancel': { to: 'cancelled', events: [] },
  'assigned|reissue_link': { to: 'assigned', events: [] },
  'started|reissue_link': { to: 'started', events: [] },
};

describe('state machine: one status list', () => {
  it('is the list the table below walks, cancelled included', () => {
    expect([...ASSIGNMENT_STATUSES]).toEqual(STATUSES);
  });
});

describe('state machine: every (status, action) pair', () => {
  for (const from of STATUSES) {
    for (const [name, action] of Object.entries(ACTIONS)) {
      const legal = LEGAL[`${from}|${name}`];
      // `expire` needs dueAt passed; `start` needs it not passed. Give each action the dueAt it needs.
      const dueAt = name === 'expire' ? BEFORE : AFTER;
      it(`${from} --${name}--> ${legal ? legal.to : 'refused'}`, () => {
        const outcome = transition({ status: from, dueAt }, action, NOW);
        if (!legal) {
          expect(outcome.ok).toBe(false);
          if (!outcome.ok) expect(outcome.reason).toMatch(/\S/);
          return;
        }
        expect(outcome.ok).toBe(true);
        if (!outcome.ok) return;
        expect(outcome.result.status).toBe(legal.to);
        expect(outcome.result.events.map((e) => e.type)).toEqual(legal.events);
      });
    }
  }
});

describe('state machine: what each transition records', () => {
  it('start sets startedAt and emits exam.started', () => {
    const o = transition({ status: 'assigned', dueAt: null }, { type: 'start' }, NOW);
    expect(o).toEqual({ ok: true, result: { status: 'started', set: { startedAt: NOW }, events: [{ type: 'exam.started', extra: {} }] } });
  });

  it('submit sets submittedAt and the auto-marked score, and exam.completed carries that score', () => {
    const o = transition({ status: 'started', dueAt: null }, { type: 'submit', score: SCORE }, NOW);
    expect(o).toEqual({
      ok: true,
      result: { status: 'submitted', set: { submittedAt: NOW, score: SCORE }, events: [{ type: 'exam.completed', extra: { score: SCORE } }] },
    });
  });

  it('exam.completed carries score null when nothing was auto-markable', () => {
    const o = transition({ status: 'started', dueAt: null }, { type: 'submit', score: null }, NOW);
    expect(o.ok && o.result.events[0]!.extra).toEqual({ score: null });
  });

  it('settling an immediate test completes it with completedAt and the score', () => {
    const o = transition({ status: 'submitted', dueAt: null }, { type: 'settle', resultVisibility: 'immediate', score: SCORE }, NOW);
    expect(o).toEqual({ ok: true, result: { status: 'completed', set: { completedAt: NOW, score: SCORE }, events: [] } });
  });

  it('settling an after_review test moves it to marking without completing it', () => {
    const o = transition({ status: 'submitted', dueAt: null }, { type: 'settle', resultVisibility: 'after_review', score: SCORE }, NOW);
    expect(o).toEqual({ ok: true, result: { status: 'marking', set: {}, events: [] } });
  });

  it('finishing marking completes with the final score and emits grading.done carrying it', () => {
    const o = transition({ status: 'marking', dueAt: null }, { type: 'complete_marking', score: SCORE }, NOW);
    expect(o).toEqual({
      ok: true,
      result: { status: 'completed', set: { completedAt: NOW, score: SCORE }, events: [{ type: 'grading.done', extra: { score: SCORE } }] },
    });
  });

  it('expire sets expiredAt and emits assignment.expired', () => {
    const o = transition({ status: 'assigned', dueAt: BEFORE }, { type: 'expire' }, NOW);
    expect(o).toEqual({ ok: true, result: { status: 'expired', set: { expiredAt: NOW }, events: [{ type: 'assignment.expired', extra: {} }] } });
  });
});

describe('state machine: dueAt', () => {
  it('an assignment is past due at dueAt exactly, not a millisecond before', () => {
    expect(isPastDue({ status: 'assigned', dueAt: NOW }, NOW)).toBe(true);
    expect(isPastDue({ status: 'assigned', dueAt: NOW }, new Date(NOW.getTime() - 1))).toBe(false);
  });

  it('without dueAt nothing is ever past due or expirable', () => {
    expect(isPastDue({ status: 'assigned', dueAt: null }, new Date('2999-01-01T00:00:00Z'))).toBe(false);
    expect(transition({ status: 'assigned', dueAt: null }, { type: 'expire' }, NOW).ok).toBe(false);
  });

  it('only assigned assignments are past due: a started attempt runs on after dueAt', () => {
    for (const s of STATUSES.filter((x) => x !== 'assigned')) expect(isPastDue({ status: s, dueAt: BEFORE }, NOW)).toBe(false);
    expect(transition({ status: 'started', dueAt: BEFORE }, { type: 'submit', score: null }, NOW).ok).toBe(true);
  });

  it('an assignment cannot be started at or after dueAt', () => {
    expect(transition({ status: 'assigned', dueAt: NOW }, { type: 'start' }, NOW)).toEqual({ ok: false, reason: 'past dueAt' });
    expect(transition({ status: 'assigned', dueAt: BEFORE }, { type: 'start' }, NOW).ok).toBe(false);
  });

  it('an assignment cannot be expired before dueAt', () => {
    expect(transition({ status: 'assigned', dueAt: AFTER }, { type: 'expire' }, NOW)).toEqual({ ok: false, reason: 'not yet due' });
  });
});

describe('state machine: assignment controls', () => {
  it('cancel sets cancelledAt and emits assignment.cancelled; a second cancel sets and emits nothing', () => {
    expect(transition({ status: 'started', dueAt: null }, { type: 'cancel' }, NOW)).toEqual({
      ok: true,
      result: { status: 'cancelled', set: { cancelledAt: NOW }, events: [{ type: 'assignment.cancelled', extra: {} }] },
    });
    expect(transition({ status: 'cancelled', dueAt: null }, { type: 'cancel' }, NOW)).toEqual({ ok: true, result: { status: 'cancelled', set: {}, events: [] } });
  });

  it('update keeps the status and carries what changed in assignment.updated', () => {
    expect(transition({ status: 'started', dueAt: null }, { type: 'update', changes: CHANGES }, NOW)).toEqual({
      ok: true,
      result: { status: 'started', set: {}, events: [{ type: 'assignment.updated', extra: { changes: CHANGES } }] },
    });
  });

  it('an assigned assignment past dueAt is expired: no update, cancel or new link', () => {
    for (const action of [ACTIONS.update!, ACTIONS.cancel!, ACTIONS.reissue_link!]) {
      expect(transition({ status: 'assigned', dueAt: BEFORE }, action, NOW)).toEqual({ ok: false, reason: 'past dueAt' });
    }
  });

  it('a cancelled assignment is final: it can no longer start, be submitted, expire or change', () => {
    for (const [name, action] of Object.entries(ACTIONS)) {
      if (name === 'cancel') continue;
      expect(transition({ status: 'cancelled', dueAt: BEFORE }, action, NOW).ok, name).toBe(false);
    }
  });
});
