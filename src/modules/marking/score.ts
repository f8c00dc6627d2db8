/**
 * The score object (decisions.md "Marking and the score object"), carried by
 * `exam.completed`, `grading.done` and the assignment's `result.score`.
 */
export interface Score {
  points: number;
  maxPoints: number;
  percent: number;
  /** Null when the test has no pass mark or the score is not final. */
  passed: boolean | null;
  gradingStatus: 'final' | 'pending_review';
  markedAt: string;
}

const round2 = (n: number) => Math.round(n * 100) / 100;

export function makeScore(input: {
  points: number;
  maxPoints: number;
  passPercent: number | null;
  final: boolean;
  markedAt: Date;
}): Score {
  const percent = input.maxPoints > 0 ? round2((input.points / input.maxPoints) * 100) : 0;
  return {
    points: round2(input.points),
    maxPoints: round2(input.maxPoints),
    percent,
    passed: input.final && input.passPercent !== null ? percent >= input.passPercent : null,
    gradingStatus: input.final ? 'final' : 'pending_review',
    markedAt: input.markedAt.toISOString(),
  };
}
