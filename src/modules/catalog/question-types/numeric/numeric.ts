import { Type } from '@sinclair/typebox';
import { html } from '../../../../platform/web/html.js';
import { answerLabel } from '../answer-label.js';
import { defineQuestionType } from '../definition.js';
import { checkParameters } from '../parameters/check.js';
import { NUMERIC_TEXT_MAX, NumericQ, type NumericQuestion } from './schema.js';
import { parseNumericAnswer, withinTolerance } from './number-text.js';
import { readNumeric, summedNumeric, writeNumeric } from './qti.js';

/**
 * numeric: `{ answer, tolerance? }`; the answer is the text as typed (so a
 * reload shows "3,5" or a half-typed "-"), right when it parses as a
 * decimal number (dot or comma, optional exponent) within the tolerance of
 * the answer, inclusive.
 */
export const numericType = defineQuestionType<NumericQuestion>({
  type: 'numeric',
  label: 'Numeric',
  schema: NumericQ,
  part: { title: 'NumericPart' },
  autoMarkable: true,

  withDefaults: (q) => ({ ...q, tolerance: q.tolerance ?? 0 }),
  // Only the prompt is content: the answer is a number.
  contentFields: () => [],

  // The answer or its formula, and a parametrised question's variables (parameters/check.ts).
  check: (q, at, details) => checkParameters(q, at, details),

  answer: {
    schema: Type.String({ maxLength: NUMERIC_TEXT_MAX }),
    check(_q, value) {
      if (typeof value !== 'string') return { ok: false, message: 'must be text or null' };
      if (value.length > NUMERIC_TEXT_MAX) return { ok: false, message: `must be at most ${NUMERIC_TEXT_MAX} characters` };
      return { ok: true, value: value.trim() === '' ? null : value };
    },
  },

  mark(q, value) {
    const n = typeof value === 'string' ? parseNumericAnswer(value) : null;
    // A parametrised question has its answer once the candidate's values are in (catalog/delivery.ts's deliver).
    return { kind: 'auto', points: n !== null && q.answer !== undefined && withinTolerance(n, q.answer, q.tolerance ?? 0) ? q.points : 0 };
  },

  simulate: { correct: (q) => String(q.answer) },

  page: (_q, { id, where, value, texts: { t } }) =>
    html`${answerLabel(t, `${id}-input`, where)}
<p class="hint" id="${id}-hint">${t.t('question.numeric.hint')}</p>
<input type="text" id="${id}-input" name="${id}" value="${typeof value === 'string' ? value : ''}" inputmode="decimal" autocomplete="off" maxlength="${NUMERIC_TEXT_MAX}" aria-describedby="${id}-hint">`,

  review(q, value) {
    if (typeof value !== 'string' || value.trim() === '') return html`<p class="empty">Not answered.</p>`;
    return html`<p class="answer">${value}</p><p class="hint">Expected: ${q.answer}${q.tolerance ? ` ± ${q.tolerance}` : ''}</p>`;
  },
  answerText: (_q, value) => (typeof value === 'string' ? value : ''),

  scripts: { student: new URL('./student.js', import.meta.url), editor: new URL('./editor.js', import.meta.url) },
  editorMessages: [
    'portal.editor.type.numeric', 'portal.editor.numeric.answer', 'portal.editor.numeric.tolerance', 'portal.editor.numeric.toleranceHint',
  ],

  qti: {
    // A text entry is read by qti-items.ts, which gives a numeric response to readNumeric; this type claims no interaction of its own.
    interactions: [],
    read: readNumeric,
    write: writeNumeric,
    summed: summedNumeric,
  },
});
