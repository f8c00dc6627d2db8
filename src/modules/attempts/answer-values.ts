import type { Question } from '../catalog/schemas.js';

/**
 * What the test page may store as an answer, per question type (the shapes
 * auto-marking reads). Text is kept exactly as typed (a numeric field keeps
 * "3,5" or a half-typed "-"), so a reload shows what the student wrote.
 * An empty answer is stored as null: it still carries a version, so clearing
 * a field also beats an older save.
 */
/** A stored answer: an option id, option ids, or text; null when cleared. */
export type AnswerValue = string | string[] | null;

export const TEXT_MAX = { short_text: 1_000, numeric: 100, essay: 60_000 } as const;

export type CheckedValue = { ok: true; value: AnswerValue } | { ok: false; message: string };

export function checkAnswerValue(q: Question, value: unknown): CheckedValue {
  if (value === null) return { ok: true, value: null };
  switch (q.type) {
    case 'single_choice':
      if (typeof value !== 'string') return { ok: false, message: 'must be an option id or null' };
      if (!q.options.some((o) => o.id === value)) return { ok: false, message: `"${value}" is not an option of this question` };
      return { ok: true, value };
    case 'multiple_choice': {
      if (!Array.isArray(value) || value.some((v) => typeof v !== 'string')) {
        return { ok: false, message: 'must be an array of option ids or null' };
      }
      const ids = value as string[];
      if (new Set(ids).size !== ids.length) return { ok: false, message: 'repeats an option id' };
      const unknown = ids.find((id) => !q.options.some((o) => o.id === id));
      if (unknown !== undefined) return { ok: false, message: `"${unknown}" is not an option of this question` };
      // Stored in the test's option order, so equal choices are equal values.
      const ordered = q.options.map((o) => o.id).filter((id) => ids.includes(id));
      return { ok: true, value: ordered.length > 0 ? ordered : null };
    }
    case 'short_text':
    case 'numeric':
    case 'essay': {
      if (typeof value !== 'string') return { ok: false, message: 'must be text or null' };
      const max = TEXT_MAX[q.type];
      if (value.length > max) return { ok: false, message: `must be at most ${max} characters` };
      return { ok: true, value: value.trim() === '' ? null : value };
    }
  }
}

/** Counts words as the page does: runs of non-space characters. */
export function countWords(text: string): number {
  const t = text.trim();
  return t === '' ? 0 : t.split(/\s+/u).length;
}
