import type { ErrorDetail } from '../../platform/errors.js';
import type { Passage, TestInput } from './schemas.js';

/**
 * Passages (shared stimuli): texts a test holds once in `passages` and
 * shows beside each question whose `passageId` names one. A passage no
 * question names is allowed (an editor adds the passage before the questions).
 *
 * Storage: `test_versions.passages` (migration 0037), beside `questions`.
 */
export type { Passage };

type InputQuestion = NonNullable<TestInput['questions']>[number];

/**
 * The passage rules the schema cannot express: ids unique within the test,
 * and each question's `passageId` naming one of them (`at` lists each
 * question with its path, as validation errors name it).
 */
export function checkPassages(input: TestInput, questions: Array<{ at: string; q: InputQuestion }>, details: ErrorDetail[]): void {
  const ids = new Set<string>();
  input.passages?.forEach((p, k) => {
    if (ids.has(p.id)) details.push({ field: `passages.${k}.id`, message: `duplicates passage id "${p.id}"` });
    ids.add(p.id);
  });
  for (const { at, q } of questions) {
    if (q.passageId === undefined || ids.has(q.passageId)) continue;
    const known = ids.size === 0 ? 'the test has no passages' : `the test's passages are ${[...ids].map((id) => `"${id}"`).join(', ')}`;
    details.push({ field: `${at}.passageId`, message: `"${q.passageId}" is not one of the test's passages (${known})` });
  }
}

/** The name a passage's region is given on the page: its title, or "Passage". */
export const passageName = (p: Passage): string => p.title?.trim() || 'Passage';
