import { answerEntries, normaliseText } from '../../accepted-answers.js';
import { compileXsdPattern, type XsdPattern } from '../../xsd-pattern.js';
import type { ShortTextQuestion } from './schema.js';

/**
 * A short_text answer against the question's entries (catalog/accepted-answers.ts):
 * the points of the best entry that matches, or null when none does. A plain
 * entry matches when equal after trimming, collapsing inner whitespace and
 * NFC normalisation (and case folding unless case-sensitive); a pattern entry
 * when its XML Schema pattern matches the whole of that normalised answer
 * (re2js: linear time, so no pattern stalls marking).
 */
export function bestEntryPoints(q: Pick<ShortTextQuestion, 'points' | 'acceptedAnswers' | 'caseSensitive'>, given: string): number | null {
  let best: number | null = null;
  for (const e of answerEntries(q)) {
    const hit = e.pattern !== null ? patternOf(e.pattern)?.test(normaliseText(given, true)) === true : normaliseText(e.text, e.caseSensitive) === normaliseText(given, e.caseSensitive);
    if (hit && (best === null || e.points > best)) best = e.points;
  }
  return best === null ? null : Math.min(best, q.points);
}

// Compiled patterns, reused across answers; bounded so a long-running worker does not keep every pattern it ever saw.
const compiled = new Map<string, XsdPattern | null>();
const CACHE_LIMIT = 1_000;

function patternOf(pattern: string): XsdPattern | null {
  let p = compiled.get(pattern);
  if (p === undefined) {
    try {
      p = compileXsdPattern(pattern);
    } catch {
      // Stored patterns were checked when the test was saved; one that no longer compiles matches nothing.
      p = null;
    }
    if (compiled.size >= CACHE_LIMIT) compiled.clear();
    compiled.set(pattern, p);
  }
  return p;
}
