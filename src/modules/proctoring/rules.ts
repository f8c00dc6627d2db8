import type { ProctoringRules } from '../catalog/proctoring-rules.js';
import type { ProctoredMode } from '../catalog/test-settings.js';

/**
 * Proctoring severity rules, pure: no I/O, no clock. The server alone
 * decides a flag's severity from what the page reports (kind, how long,
 * how many times); the page never does.
 *
 * Glossary
 * - signal: what the page observed (`left_test` for 12 s, id chosen by the page).
 * - flag: the server's record of one signal (or of a server-side finding), with a severity.
 * - critical: a violation; sent to partners as `violation.detected`, once per flag.
 * - escalation: a flag's severity only ever rises as its signal goes on (never falls).
 *
 * Default thresholds (docs/proctoring.md), each overridable per test:
 * no_face ≥ 10 s, multiple_faces ≥ 3 s, left_test ≥ 10 s at once or the 3rd
 * time, camera_stopped at once, proctoring_interrupted after 60 s without a
 * heartbeat. Below a threshold: `warning` from half of it, `info` under that.
 * fullscreen_exit, copy_paste and second_screen are `warning`: worth a
 * reviewer's look, never a violation on their own.
 */
export const FLAG_KINDS = [
  'no_face',
  'multiple_faces',
  'left_test',
  'fullscreen_exit',
  'copy_paste',
  'camera_stopped',
  'second_screen',
  'proctoring_interrupted',
] as const;
export type FlagKind = (typeof FLAG_KINDS)[number];

/** What a page may report: everything but the server's own finding. */
export const SIGNAL_KINDS = FLAG_KINDS.filter((k): k is Exclude<FlagKind, 'proctoring_interrupted'> => k !== 'proctoring_interrupted');
export type SignalKind = (typeof SIGNAL_KINDS)[number];

/** Face analysis runs only in live_ai tests; a record test's page has no business sending these. */
const LIVE_AI_ONLY: ReadonlySet<FlagKind> = new Set(['no_face', 'multiple_faces']);

export const SEVERITIES = ['info', 'warning', 'critical'] as const;
export type Severity = (typeof SEVERITIES)[number];

export function acceptsSignal(mode: ProctoredMode, kind: FlagKind): boolean {
  return kind !== 'proctoring_interrupted' && (mode === 'live_ai' || !LIVE_AI_ONLY.has(kind));
}

/**
 * Whether an assignment's accommodations relax this kind of signal away: leaving full screen when full
 * screen is not required, copy and paste when allowed. Such signals are ignored (never become flags).
 * Camera and face signals are never relaxed per assignment.
 */
export function relaxedAway(kind: FlagKind, relaxations: { fullscreenRequired: boolean; copyPasteAllowed: boolean }): boolean {
  if (kind === 'fullscreen_exit') return !relaxations.fullscreenRequired;
  if (kind === 'copy_paste') return relaxations.copyPasteAllowed;
  return false;
}

/** The kinds an accommodation can relax: a heartbeat without them needs no look at the assignment's accommodations. */
export const RELAXABLE_KINDS: ReadonlySet<FlagKind> = new Set(['fullscreen_exit', 'copy_paste']);

export interface Observation {
  kind: FlagKind;
  durationSeconds: number;
  /** left_test only: 1 for the first time the student left, 2 for the second, … */
  occurrence?: number | null;
}

/** A sustained condition: critical at the threshold, warning from half of it, info below. */
function sustained(durationSeconds: number, thresholdSeconds: number): Severity {
  if (durationSeconds >= thresholdSeconds) return 'critical';
  return durationSeconds >= thresholdSeconds / 2 ? 'warning' : 'info';
}

/** The severity an observation earns under the rules, on its own (see `escalate` for an existing flag). */
export function severityOf(o: Observation, rules: ProctoringRules): Severity {
  switch (o.kind) {
    case 'no_face':
      return sustained(o.durationSeconds, rules.noFaceSeconds);
    case 'multiple_faces':
      return sustained(o.durationSeconds, rules.multipleFacesSeconds);
    case 'left_test':
      if ((o.occurrence ?? 0) >= rules.leftTestCount) return 'critical';
      return sustained(o.durationSeconds, rules.leftTestSeconds);
    case 'camera_stopped':
      return 'critical';
    case 'proctoring_interrupted':
      return sustained(o.durationSeconds, rules.heartbeatTimeoutSeconds);
    case 'fullscreen_exit':
    case 'copy_paste':
    case 'second_screen':
      return 'warning';
  }
}

const RANK: Record<Severity, number> = { info: 0, warning: 1, critical: 2 };

/** The higher of the two: a flag never de-escalates, whatever a late or replayed report says. */
export function escalate(current: Severity | null, observed: Severity): Severity {
  if (current === null) return observed;
  return RANK[observed] > RANK[current] ? observed : current;
}

export function isCritical(s: Severity): boolean {
  return s === 'critical';
}

/** True when a flag has just become critical and so must emit its one `violation.detected`. */
export function becomesViolation(before: Severity | null, after: Severity, alreadyEmitted: boolean): boolean {
  return after === 'critical' && before !== 'critical' && !alreadyEmitted;
}

/** A reviewer's decision on a critical flag. */
export const REVIEW_OUTCOMES = ['confirmed', 'dismissed'] as const;
export type ReviewOutcome = (typeof REVIEW_OUTCOMES)[number];
