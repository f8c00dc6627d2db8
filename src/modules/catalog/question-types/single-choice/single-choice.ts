import { Type } from '@sinclair/typebox';
import { defineQuestionType } from '../definition.js';
import { chosenText, optionFields, optionsInput, optionsReview, quoted, uniqueOptionIds } from '../choice-options.js';
import { SingleChoice, type SingleChoiceQuestion } from './schema.js';
import { readSingleChoice, summedSingleChoice, writeSingleChoice } from './qti.js';

/**
 * single_choice: `{ options, correctOptionId, shuffleOptions? }`; the answer
 * is the chosen option's id, full points for the correct one. The options
 * may be shuffled per candidate (catalog/delivery.ts draws the order), a
 * fixed option keeping its place.
 */
export const singleChoiceType = defineQuestionType<SingleChoiceQuestion>({
  type: 'single_choice',
  label: 'Single choice',
  schema: SingleChoice,
  part: { title: 'SingleChoicePart' },
  autoMarkable: true,

  check(q, at, details) {
    const optionIds = uniqueOptionIds(q.options, at, details);
    if (!optionIds.has(q.correctOptionId)) details.push({ field: `${at}.correctOptionId`, message: `"${q.correctOptionId}" is not one of the options` });
  },
  contentFields: (q) => optionFields(q.options),

  answer: {
    schema: Type.String({ maxLength: 64 }),
    check(q, value) {
      if (typeof value !== 'string') return { ok: false, message: 'must be an option id or null' };
      if (!q.options.some((o) => o.id === value)) return { ok: false, message: `${quoted(value)} is not an option of this question` };
      return { ok: true, value };
    },
  },

  mark: (q, value) => ({ kind: 'auto', points: value === q.correctOptionId ? q.points : 0 }),

  simulate: {
    correct: (q) => q.correctOptionId,
    wrong: (q) => q.options.find((o) => o.id !== q.correctOptionId)?.id ?? null,
  },

  statistics: {
    options: (q) => q.options.map((o) => ({ id: o.id, text: o.text, correct: o.id === q.correctOptionId })),
    chosen: (q, value) => (typeof value === 'string' && q.options.some((o) => o.id === value) ? [value] : []),
  },

  page: (q, ctx) => optionsInput(q, ctx, 'radio', new Set(typeof ctx.value === 'string' ? [ctx.value] : [])),
  review: (q, value, { texts }) => optionsReview(q, new Set(typeof value === 'string' ? [value] : []), new Set([q.correctOptionId]), texts),
  answerText: (q, value) => (typeof value === 'string' ? chosenText(q.options, [value]) : ''),

  scripts: { student: new URL('./student.js', import.meta.url), editor: new URL('./editor.js', import.meta.url) },
  editorMessages: [
    'portal.editor.type.singleChoice', 'portal.editor.shuffleOptions',
  ],

  qti: {
    // The choice interaction is read by qti-items.ts, which gives a one-choice interaction to readSingleChoice; this type claims none of its own.
    interactions: [],
    read: readSingleChoice,
    write: writeSingleChoice,
    summed: summedSingleChoice,
  },
});
