import { Type } from '@sinclair/typebox';
import { defineQuestionType } from '../definition.js';
import { chosenText, optionFields, optionsInput, optionsReview, quoted, uniqueOptionIds } from '../choice-options.js';
import { html } from '../../../../platform/web/html.js';
import { MultipleChoice, type MultipleChoiceQuestion } from './schema.js';
import { readMultipleChoice, summedMultipleChoice, writeMultipleChoice } from './qti.js';

/**
 * multiple_choice: `{ options, correctOptionIds, partialCredit?, shuffleOptions? }`;
 * the answer is the chosen options' ids, stored in the question's option
 * order. Without partial credit the points need exactly the key's options;
 * with it, points × (right picks − wrong picks) ÷ correct options, never
 * below 0.
 */
export const multipleChoiceType = defineQuestionType<MultipleChoiceQuestion>({
  type: 'multiple_choice',
  label: 'Multiple choice',
  schema: MultipleChoice,
  part: { title: 'MultipleChoicePart' },
  autoMarkable: true,

  check(q, at, details) {
    const optionIds = uniqueOptionIds(q.options, at, details);
    const seen = new Set<string>();
    q.correctOptionIds.forEach((id, j) => {
      if (!optionIds.has(id)) details.push({ field: `${at}.correctOptionIds.${j}`, message: `"${id}" is not one of the options` });
      if (seen.has(id)) details.push({ field: `${at}.correctOptionIds.${j}`, message: `repeats "${id}"` });
      seen.add(id);
    });
  },
  withDefaults: (q) => ({ ...q, partialCredit: q.partialCredit ?? false }),
  contentFields: (q) => optionFields(q.options),

  answer: {
    schema: Type.Array(Type.String({ maxLength: 64 }), { maxItems: 50 }),
    check(q, value) {
      if (!Array.isArray(value) || value.some((v) => typeof v !== 'string')) return { ok: false, message: 'must be an array of option ids or null' };
      const ids = value as string[];
      if (ids.length > q.options.length) return { ok: false, message: `must list at most the ${q.options.length} options of this question` };
      if (new Set(ids).size !== ids.length) return { ok: false, message: 'repeats an option id' };
      const unknown = ids.find((id) => !q.options.some((o) => o.id === id));
      if (unknown !== undefined) return { ok: false, message: `${quoted(unknown)} is not an option of this question` };
      // Stored in the test's option order, so equal choices are equal values.
      const ordered = q.options.map((o) => o.id).filter((id) => ids.includes(id));
      return { ok: true, value: ordered.length > 0 ? ordered : null };
    },
    answered: (_q, value) => Array.isArray(value) && value.length > 0,
  },

  mark(q, value) {
    if (!Array.isArray(value)) return { kind: 'auto', points: 0 };
    const picked = new Set(value);
    const correct = new Set(q.correctOptionIds);
    const right = [...picked].filter((id) => typeof id === 'string' && correct.has(id)).length;
    const wrong = picked.size - right;
    if (!q.partialCredit) return { kind: 'auto', points: right === correct.size && wrong === 0 ? q.points : 0 };
    return { kind: 'auto', points: q.points * Math.max(0, (right - wrong) / correct.size) };
  },

  simulate: {
    correct: (q) => q.options.map((o) => o.id).filter((id) => q.correctOptionIds.includes(id)),
    wrong: (q) => {
      const other = q.options.find((o) => !q.correctOptionIds.includes(o.id));
      return other ? [other.id] : null;
    },
  },

  statistics: {
    options: (q) => q.options.map((o) => ({ id: o.id, text: o.text, correct: q.correctOptionIds.includes(o.id) })),
    chosen: (q, value) => (Array.isArray(value) ? q.options.map((o) => o.id).filter((id) => value.includes(id)) : []),
  },

  page: (q, ctx) => html`<p class="hint">${ctx.texts.t.t('question.multipleChoice.hint')}</p>${optionsInput(q, ctx, 'checkbox', new Set(Array.isArray(ctx.value) ? ctx.value : []))}`,
  review: (q, value, { texts }) => optionsReview(q, new Set(Array.isArray(value) ? value : []), new Set(q.correctOptionIds), texts),
  answerText: (q, value) => (Array.isArray(value) ? chosenText(q.options, value) : ''),

  scripts: { student: new URL('./student.js', import.meta.url), editor: new URL('./editor.js', import.meta.url) },
  editorMessages: [
    'portal.editor.type.multipleChoice', 'portal.editor.shuffleOptions', 'portal.editor.multipleChoice.partialCredit',
  ],

  qti: {
    // The choice interaction is read by qti-items.ts, which gives a several-choice interaction to readMultipleChoice; this type claims none of its own.
    interactions: [],
    read: readMultipleChoice,
    write: writeMultipleChoice,
    summed: summedMultipleChoice,
  },
});
