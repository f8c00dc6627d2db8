import { describe, expect, it } from 'vitest';
import { acceptsSignal, becomesViolation, escalate, FLAG_KINDS, severityOf, SIGNAL_KINDS, type FlagKind, type Severity } from './rules.js';
import { DEFAULT_RULES, resolveRules } from '../catalog/proctoring-rules.js';
import { reviewStatusOf } from '../assignments/proctoring-summary.js';
import { checkTestInput, storedProctoringRules } from '../catalog/authoring.js';
import type { TestInput } from '../catalog/schemas.js';

/** The pure severity rules: thresholds, escalation, the n-th left_test, per-test overrides. */
const R = DEFAULT_RULES;
const sev = (kind: FlagKind, durationSeconds: number, occurrence?: number, rules = R): Severity => severityOf({ kind, durationSeconds, occurrence }, rules);

describe('defaults (docs/proctoring.md)', () => {
  it('are 10 s no face, 3 s multiple faces, 10 s or the 3rd time away, 60 s without a heartbeat', () => {
    expect(DEFAULT_RULES).toEqual({ noFaceSeconds: 10, multipleFacesSeconds: 3, leftTestSeconds: 10, leftTestCount: 3, heartbeatTimeoutSeconds: 60 });
    expect(Object.isFrozen(DEFAULT_RULES)).toBe(true);
  });
});

describe('sustained conditions: critical at the threshold, warning from half of it, info below', () => {
  it.each([
    ['no_face', 0, 'info'],
    ['no_face', 4.9, 'info'],
    ['no_face', 5, 'warning'],
    ['no_face', 9.99, 'warning'],
    ['no_face', 10, 'critical'],
    ['no_face', 600, 'critical'],
    ['multiple_faces', 1.4, 'info'],
    ['multiple_faces', 1.5, 'warning'],
    ['multiple_faces', 2.9, 'warning'],
    ['multiple_faces', 3, 'critical'],
    ['left_test', 4, 'info'],
    ['left_test', 5, 'warning'],
    ['left_test', 10, 'critical'],
    ['proctoring_interrupted', 59, 'warning'],
    ['proctoring_interrupted', 60, 'critical'],
  ] as const)('%s for %d s is %s', (kind, seconds, expected) => {
    expect(sev(kind, seconds, 1)).toBe(expected);
  });

  it('camera_stopped is critical at once; fullscreen_exit, copy_paste and second_screen are warnings whatever their length', () => {
    expect(sev('camera_stopped', 0)).toBe('critical');
    for (const kind of ['fullscreen_exit', 'copy_paste', 'second_screen'] as const) {
      expect(sev(kind, 0)).toBe('warning');
      expect(sev(kind, 3600)).toBe('warning');
    }
  });
});

describe('left_test counts the times away', () => {
  it('the 1st and 2nd short absences are not critical, the 3rd is, however short', () => {
    expect(sev('left_test', 1, 1)).toBe('info');
    expect(sev('left_test', 1, 2)).toBe('info');
    expect(sev('left_test', 0.2, 3)).toBe('critical');
    expect(sev('left_test', 0.2, 7)).toBe('critical');
  });

  it('a missing occurrence counts as none', () => {
    expect(sev('left_test', 1)).toBe('info');
  });
});

describe('per-test overrides', () => {
  it('replace only the thresholds given', () => {
    const rules = resolveRules({ noFaceSeconds: 30, leftTestCount: 5 });
    expect(rules).toEqual({ ...DEFAULT_RULES, noFaceSeconds: 30, leftTestCount: 5 });
    expect(sev('no_face', 10, undefined, rules)).toBe('info');
    expect(sev('no_face', 15, undefined, rules)).toBe('warning');
    expect(sev('no_face', 30, undefined, rules)).toBe('critical');
    expect(sev('left_test', 1, 3, rules)).toBe('info');
    expect(sev('left_test', 1, 5, rules)).toBe('critical');
    expect(sev('multiple_faces', 3, undefined, rules)).toBe('critical');
  });

  it('resolve to the defaults from nothing, and ignore non-numbers', () => {
    expect(resolveRules(null)).toEqual(DEFAULT_RULES);
    expect(resolveRules(undefined)).toEqual(DEFAULT_RULES);
    expect(resolveRules({ noFaceSeconds: Number.NaN } as never)).toEqual(DEFAULT_RULES);
  });

  it('are stored resolved with a proctored test version, and refused on a test without proctoring', () => {
    const base: TestInput = {
      title: 'T',
      description: '',
      durationMinutes: 10,
      proctoring: 'live_ai',
      marking: 'auto',
      resultVisibility: 'immediate',
      questions: [{ type: 'numeric', prompt: '1+1', points: 1, answer: 2 }],
    };
    expect(storedProctoringRules({ ...base, proctoringRules: { multipleFacesSeconds: 5 } })).toEqual({ ...DEFAULT_RULES, multipleFacesSeconds: 5 });
    expect(storedProctoringRules(base)).toEqual(DEFAULT_RULES);
    expect(storedProctoringRules({ ...base, proctoring: 'none' })).toBeNull();
    expect(() => checkTestInput({ ...base, proctoring: 'none', proctoringRules: { noFaceSeconds: 5 } })).toThrow(/proctoringRules/);
    expect(() => checkTestInput({ ...base, proctoringRules: { noFaceSeconds: 5 } })).not.toThrow();
  });
});

describe('escalation', () => {
  it('only ever rises', () => {
    expect(escalate(null, 'info')).toBe('info');
    expect(escalate('info', 'warning')).toBe('warning');
    expect(escalate('warning', 'critical')).toBe('critical');
    expect(escalate('critical', 'info')).toBe('critical');
    expect(escalate('warning', 'info')).toBe('warning');
  });

  it('a no_face signal growing 2 s → 6 s → 11 s goes info → warning → critical, and a late 3 s report changes nothing', () => {
    let s: Severity | null = null;
    const seen: Severity[] = [];
    for (const d of [2, 6, 11, 3]) {
      s = escalate(s, sev('no_face', d));
      seen.push(s);
    }
    expect(seen).toEqual(['info', 'warning', 'critical', 'critical']);
  });

  it('becomes a violation exactly when it first turns critical and none was emitted', () => {
    expect(becomesViolation(null, 'critical', false)).toBe(true);
    expect(becomesViolation('warning', 'critical', false)).toBe(true);
    expect(becomesViolation('critical', 'critical', false)).toBe(false);
    expect(becomesViolation('warning', 'critical', true)).toBe(false);
    expect(becomesViolation('info', 'warning', false)).toBe(false);
  });
});

describe('which signals a page may send', () => {
  it('face signals only on live_ai; proctoring_interrupted never (the server raises it)', () => {
    expect(SIGNAL_KINDS).not.toContain('proctoring_interrupted');
    expect(FLAG_KINDS).toContain('proctoring_interrupted');
    expect(acceptsSignal('record', 'no_face')).toBe(false);
    expect(acceptsSignal('record', 'multiple_faces')).toBe(false);
    expect(acceptsSignal('live_ai', 'no_face')).toBe(true);
    for (const kind of ['left_test', 'fullscreen_exit', 'copy_paste', 'camera_stopped', 'second_screen'] as const) {
      expect(acceptsSignal('record', kind)).toBe(true);
      expect(acceptsSignal('live_ai', kind)).toBe(true);
    }
    expect(acceptsSignal('live_ai', 'proctoring_interrupted')).toBe(false);
  });
});

describe('review status', () => {
  it('not_required without critical flags, pending while one is undecided, reviewed when all are', () => {
    expect(reviewStatusOf({ critical: 0, criticalUnreviewed: 0 })).toBe('not_required');
    expect(reviewStatusOf({ critical: 2, criticalUnreviewed: 1 })).toBe('pending');
    expect(reviewStatusOf({ critical: 2, criticalUnreviewed: 0 })).toBe('reviewed');
  });
});
