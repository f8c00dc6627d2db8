import { normaliseText, type AnswerEntry } from '../accepted-answers.js';
import type { QuestionInput } from '../schemas.js';
import { compileXsdPattern, xsdPatternProblem } from '../xsd-pattern.js';
import type { TextBranch } from './response-processing.js';
import { round } from './qti-item-context.js';

/**
 * A QTI string text entry as a short_text question with its entries
 * (catalog/accepted-answers.ts): from a mapping (qti-items.ts checks it) or
 * from the branches the export writes when an entry has a pattern.
 */
/** Branches (first match decides) as entries (best match decides): the same while each branch is worth no more than the one before. */
export function textEntryBranches(prompt: string, branches: TextBranch[], correct: string[]): QuestionInput | string {
  for (let i = 1; i < branches.length; i++) {
    if (branches[i]!.points > branches[i - 1]!.points) return 'text entry conditions worth more after ones worth less cannot be expressed (Assay gives the best matching answer)';
  }
  if (branches.some((b) => b.points < 0)) return 'a condition that takes points away cannot be expressed';
  const points = round(branches[0]!.points);
  if (!(points > 0)) return 'the response processing gives no answer any points';
  const entries: AnswerEntry[] = [];
  for (const b of branches) {
    if (b.pattern === null) {
      entries.push({ text: b.text, points: round(b.points), caseSensitive: b.caseSensitive, pattern: null });
      continue;
    }
    const problem = xsdPatternProblem(b.pattern);
    if (problem) return `the pattern ${b.pattern} ${problem}`;
    // An entry's text is its sample answer: the export's own, else a correct response the pattern accepts.
    const re = compileXsdPattern(b.pattern);
    const text = b.text ?? correct.find((c) => re.test(normaliseText(c, true)));
    if (text === undefined || !re.test(normaliseText(text, true))) return `no correct response matches the pattern ${b.pattern}, so it has no sample answer`;
    entries.push({ text, points: round(b.points), caseSensitive: true, pattern: b.pattern });
  }
  return shortText(prompt, points, entries);
}

/**
 * A short_text question in its plainest form: an entry worth the full points,
 * without a pattern and compared as the question compares (the first text
 * entry's case) is a plain string; others keep only what differs.
 */
export function shortText(prompt: string, points: number, entries: AnswerEntry[]): QuestionInput {
  const caseSensitive = entries.find((e) => e.pattern === null)?.caseSensitive ?? false;
  const acceptedAnswers = entries.map((e) => {
    if (e.pattern === null && e.points >= points && e.caseSensitive === caseSensitive) return e.text;
    return {
      text: e.text,
      ...(e.points < points ? { points: e.points } : {}),
      ...(e.pattern === null && e.caseSensitive !== caseSensitive ? { caseSensitive: e.caseSensitive } : {}),
      ...(e.pattern !== null ? { pattern: e.pattern } : {}),
    };
  });
  return { type: 'short_text', prompt, points, acceptedAnswers, caseSensitive };
}
