import type { ErrorDetail } from '../../../../platform/errors.js';
import { normaliseText } from '../../accepted-answers.js';
import { compileXsdPattern, xsdPatternProblem } from '../../xsd-pattern.js';
import type { ShortTextQuestion } from './schema.js';

/**
 * short_text entries: points at most the question's, a pattern that compiles
 * (and no `caseSensitive: false` beside it: a pattern says its own capitals)
 * and matches its entry's text (the sample answer), and at least one answer
 * worth the full points, so full marks can be earned.
 */
export function checkAcceptedAnswers(q: ShortTextQuestion, at: string, details: ErrorDetail[]): void {
  let full = false;
  q.acceptedAnswers.forEach((a, j) => {
    const field = `${at}.acceptedAnswers.${j}`;
    if (typeof a === 'string') {
      full = true;
      return;
    }
    if (a.points === undefined || a.points >= q.points) full = true;
    if (a.points !== undefined && a.points > q.points) details.push({ field: `${field}.points`, message: `is ${a.points}, more than the question's ${q.points} points` });
    if (a.pattern !== undefined) {
      const problem = xsdPatternProblem(a.pattern);
      if (problem) details.push({ field: `${field}.pattern`, message: problem });
      else if (!compileXsdPattern(a.pattern).test(normaliseText(a.text, true))) {
        details.push({ field: `${field}.text`, message: `"${a.text}" does not match the pattern; the text is the sample answer, so give one the pattern accepts` });
      }
      if (a.caseSensitive === false) details.push({ field: `${field}.caseSensitive`, message: 'cannot be false with a pattern: a pattern is matched as written, so give both forms (e.g. [Pp]aris)' });
    }
  });
  if (q.acceptedAnswers.length === 0 && !q.answerFormula) details.push({ field: `${at}.acceptedAnswers`, message: 'needs at least one answer (or answerFormula, with variables)' });
  else if (!full && !q.answerFormula) details.push({ field: `${at}.acceptedAnswers`, message: `no answer gives the full ${q.points} points: give at least one answer without points, or with the question's points` });
}
