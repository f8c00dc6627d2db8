import type { Score } from '../lifecycle/score.js';
import type { ResultVisibility } from '../catalog/test-settings.js';

/** Who marked an answer: the answer key, a reviewer, or the model (decide mode). */
export const MARK_SOURCES = ['auto', 'reviewer', 'ai'] as const;
export type MarkSource = (typeof MARK_SOURCES)[number];

/**
 * The score's `markedBy`, from an attempt's marks: the one marker of every
 * mark not made by the answer key (`reviewer`, or `ai:<model>` for the
 * model's), `auto` when there is none, `mixed` when there are several.
 */
export function scoreMarkedBy(marks: ReadonlyArray<{ source: MarkSource; markedBy: string | null }>): string {
  const markers = new Set(marks.filter((m) => m.source !== 'auto').map((m) => (m.source === 'ai' ? (m.markedBy ?? 'ai:unknown') : 'reviewer')));
  if (markers.size === 0) return 'auto';
  return markers.size === 1 ? [...markers][0]! : 'mixed';
}

const round2 = (n: number) => Math.round(n * 100) / 100;

export function makeScore(input: {
  points: number;
  maxPoints: number;
  passPercent: number | null;
  final: boolean;
  markedAt: Date;
  markedBy?: string;
}): Score {
  const percent = input.maxPoints > 0 ? round2((input.points / input.maxPoints) * 100) : 0;
  return {
    points: round2(input.points),
    maxPoints: round2(input.maxPoints),
    percent,
    passed: input.final && input.passPercent !== null ? percent >= input.passPercent : null,
    gradingStatus: input.final ? 'final' : 'pending_review',
    markedAt: input.markedAt.toISOString(),
    ...(input.markedBy !== undefined ? { markedBy: input.markedBy } : {}),
  };
}

/**
 * The score carried by `exam.completed` at submission (null when no question
 * is auto-markable). It is final only for `immediate` tests, which are
 * all-auto by the authoring rules; an `after_review` test's score stays
 * `pending_review` until a reviewer completes marking, even when every item
 * was auto-marked, because the review may still change or confirm it.
 */
export function submissionScore(input: {
  autoPoints: number;
  maxPoints: number;
  autoMarkableCount: number;
  manualCount: number;
  resultVisibility: ResultVisibility;
  passPercent: number | null;
  markedAt: Date;
}): Score | null {
  if (input.autoMarkableCount === 0) return null;
  const final = input.resultVisibility === 'immediate' && input.manualCount === 0;
  return makeScore({ points: input.autoPoints, maxPoints: input.maxPoints, passPercent: input.passPercent, final, markedAt: input.markedAt });
}
