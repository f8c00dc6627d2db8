import { Type, type Static } from '@sinclair/typebox';
import { common } from '../common-fields.js';
import { aiFields } from '../ai-marking-fields.js';

/** An essay: free text marked by a person (or the model, against criteria), with a rubric and an optional word limit. */
export const Essay = Type.Object(
  {
    type: Type.Literal('essay'),
    ...common,
    rubric: Type.Optional(Type.String({ maxLength: 10_000 })),
    maxWords: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000 })),
    ...aiFields,
  },
  { additionalProperties: false, title: 'EssayQuestion' },
);
export type EssayQuestion = Static<typeof Essay> & { id: string };

/** The longest essay answer, in characters. */
export const ESSAY_TEXT_MAX = 60_000;

/** Chinese characters, kana and Hangul syllables: each counts as a word, as word processors count East Asian text. */
const EAST_ASIAN = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/gu;

/**
 * Words as the page counts them (student assets/question-fields.js counts
 * the same way): runs of non-space, and each Chinese character, kana or
 * Hangul syllable as one, since Chinese and Japanese put no spaces between
 * words. ICU's dictionary word breaker (Intl.Segmenter) would count
 * dictionary words instead, but takes seconds over a 60,000-character answer
 * and would run on every keystroke and every page render.
 */
export function countWords(text: string): number {
  const eastAsian = text.match(EAST_ASIAN)?.length ?? 0;
  const rest = (eastAsian === 0 ? text : text.replace(EAST_ASIAN, ' ')).trim();
  return eastAsian + (rest === '' ? 0 : rest.split(/\s+/u).filter((run) => /[\p{L}\p{N}]/u.test(run)).length);
}
