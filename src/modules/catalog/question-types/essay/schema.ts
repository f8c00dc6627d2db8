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

/** Words as the page counts them: runs of non-space. */
export function countWords(text: string): number {
  const t = text.trim();
  return t === '' ? 0 : t.split(/\s+/u).length;
}
