import type { Score } from '../lifecycle/score.js';
import type { ResultVisibility } from '../catalog/test-settings.js';
import { deliveredSections, type DeliveredTest } from '../catalog/delivery.js';
import { roundPoints } from './auto-mark.js';

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
const percentOf = (points: number, maxPoints: number) => (maxPoints > 0 ? round2((points / maxPoints) * 100) : 0);

/** A section's share of a score, before rounding. */
export interface SectionPoints {
  sectionId: string;
  title: string;
  points: number;
  maxPoints: number;
}

/**
 * Each section's points for a test with sections (null for a flat test,
 * whose score keeps its v1 shape): the marked points of the questions the
 * candidate was given in that section, over their maximum.
 */
export function sectionPoints(test: DeliveredTest, pointsOf: (questionId: string) => number): SectionPoints[] | null {
  if (!test.sections) return null;
  const byId = new Map(test.questions.map((q) => [q.id, q]));
  return deliveredSections(test).map((s) => ({
    sectionId: s.id,
    title: s.title,
    points: roundPoints(s.shownIds.reduce((sum, id) => sum + pointsOf(id), 0)),
    maxPoints: roundPoints(s.shownIds.reduce((sum, id) => sum + byId.get(id)!.points, 0)),
  }));
}

export function makeScore(input: {
  points: number;
  maxPoints: number;
  passPercent: number | null;
  final: boolean;
  markedAt: Date;
  markedBy?: string;
  sections?: SectionPoints[] | null;
}): Score {
  const percent = percentOf(input.points, input.maxPoints);
  return {
    points: round2(input.points),
    maxPoints: round2(input.maxPoints),
    percent,
    passed: input.final && input.passPercent !== null ? percent >= input.passPercent : null,
    gradingStatus: input.final ? 'final' : 'pending_review',
    markedAt: input.markedAt.toISOString(),
    ...(input.markedBy !== undefined ? { markedBy: input.markedBy } : {}),
    ...(input.sections
      ? {
          sections: input.sections.map((s) => ({
            sectionId: s.sectionId,
            title: s.title,
            points: round2(s.points),
            maxPoints: round2(s.maxPoints),
            percent: percentOf(s.points, s.maxPoints),
          })),
        }
      : {}),
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
  sections?: SectionPoints[] | null;
}): Score | null {
  if (input.autoMarkableCount === 0) return null;
  const final = input.resultVisibility === 'immediate' && input.manualCount === 0;
  return makeScore({
    points: input.autoPoints,
    maxPoints: input.maxPoints,
    passPercent: input.passPercent,
    final,
    markedAt: input.markedAt,
    sections: input.sections ?? null,
  });
}
