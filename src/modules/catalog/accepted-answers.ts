import type { Static } from '@sinclair/typebox';
import type { AcceptedAnswerEntry } from './question-types/short-text/schema.js';

/**
 * A short_text question's accepted answers, read the same way everywhere
 * (marking, AI reference answers, the sandbox, staff views, export).
 *
 * An item of `acceptedAnswers` is a plain string (the question's points,
 * compared under the question's `caseSensitive`) or an entry
 * `{ text, points?, caseSensitive?, pattern? }`: absent points are the
 * question's, an absent caseSensitive is the question's, and an entry with a
 * `pattern` matches by the pattern (an XML Schema regular expression, whole
 * answer, capitals as written — so it is always case-sensitive). Points above
 * the question's are capped at them.
 */
export type AcceptedAnswer = string | Static<typeof AcceptedAnswerEntry>;

export interface AnswerEntry {
  /** The answer as shown to staff; what a plain entry is compared with. */
  text: string;
  /** Points for a match, capped at the question's. */
  points: number;
  caseSensitive: boolean;
  pattern: string | null;
}

interface ShortTextKey {
  points: number;
  acceptedAnswers: readonly AcceptedAnswer[];
  caseSensitive?: boolean | undefined;
}

export function answerEntries(q: ShortTextKey): AnswerEntry[] {
  const questionCase = q.caseSensitive ?? false;
  return q.acceptedAnswers.map((a) => {
    if (typeof a === 'string') return { text: a, points: q.points, caseSensitive: questionCase, pattern: null };
    return {
      text: a.text,
      points: Math.min(q.points, a.points ?? q.points),
      caseSensitive: a.pattern !== undefined ? true : (a.caseSensitive ?? questionCase),
      pattern: a.pattern ?? null,
    };
  });
}

/** The answers' texts, in order (reference answers for AI marking). */
export function answerTexts(q: ShortTextKey): string[] {
  return q.acceptedAnswers.map((a) => (typeof a === 'string' ? a : a.text));
}

/** The text of the first entry worth the full points (the sample answer); the first entry's when none is. */
export function fullPointsText(q: ShortTextKey): string {
  const entries = answerEntries(q);
  // A parametrised question may have no entries of its own: its answer comes from the formula (question-types/parameters).
  return (entries.find((e) => e.points >= q.points) ?? entries[0])?.text ?? '';
}

/** How staff see one entry: its text, its points, and how it is matched (`Paris — 2 points, any case`). */
export function describeEntry(e: AnswerEntry): string {
  const how = e.pattern !== null ? `pattern ${e.pattern}` : e.caseSensitive ? 'case-sensitive' : 'any case';
  return `${e.text} — ${e.points} ${e.points === 1 ? 'point' : 'points'}, ${how}`;
}

/** How answers are compared: trimmed, inner whitespace collapsed, NFC; case-folded unless caseSensitive. */
export function normaliseText(s: string, caseSensitive: boolean): string {
  const collapsed = s.normalize('NFC').trim().replace(/\s+/gu, ' ');
  return caseSensitive ? collapsed : collapsed.toLocaleLowerCase('und');
}
