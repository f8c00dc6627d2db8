import { Type, type Static } from '@sinclair/typebox';
import { Nullable, StringEnum, TimestampText } from '../../platform/http/schemas.js';
import type { ResultVisibility } from '../catalog/test-settings.js';

/**
 * The score object (docs/api-rules.md "Marking and the score object"), carried by
 * `exam.completed`, `grading.done` and the assignment's `result.score`: its
 * schema (the API's) and its type. `markedBy`, who marked what the answer key
 * could not, is present on scores released by marking (`grading.done` and the
 * read after it): `auto` (nothing needed a marker), `reviewer`, `ai:<model>`, or `mixed`.
 */
export const ScoreSchema = Type.Object(
  {
    points: Type.Number(),
    maxPoints: Type.Number(),
    percent: Type.Number(),
    passed: Nullable(Type.Boolean(), { description: 'Null when the test has no pass mark or the score is not final' }),
    gradingStatus: StringEnum(['final', 'pending_review']),
    markedAt: TimestampText,
    markedBy: Type.Optional(
      Type.String({
        description:
          "Added with AI marking, on scores released by marking (grading.done): who marked what the answer key could not: 'auto', 'reviewer', 'ai:<model>' or 'mixed'",
      }),
    ),
  },
  { title: 'Score' },
);
export type Score = Static<typeof ScoreSchema>;

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
