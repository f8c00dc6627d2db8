import { Type } from '@sinclair/typebox';
import { html } from '../../../../platform/web/html.js';
import { answerLabel } from '../answer-label.js';
import { defineQuestionType } from '../definition.js';
import { countWords, Essay, ESSAY_TEXT_MAX, type EssayQuestion } from './schema.js';
import { readEssay, writeEssay } from './qti.js';

/**
 * essay: `{ rubric?, maxWords?, aiMarking?, criteria? }`; the answer is the
 * text as typed, never marked by a key: a reviewer (or the model, against
 * the criteria) marks it, so an auto-marked test refuses it. The word limit
 * is guidance the page counts against, not a refusal.
 */
export const essayType = defineQuestionType<EssayQuestion>({
  type: 'essay',
  label: 'Essay',
  schema: Essay,
  autoMarkable: false,

  // The AI marking fields are checked by authoring, which knows the test's marking.
  contentFields: (q) => (q.rubric ? [['rubric', q.rubric]] : []),

  answer: {
    schema: Type.String({ maxLength: ESSAY_TEXT_MAX }),
    check(_q, value) {
      if (typeof value !== 'string') return { ok: false, message: 'must be text or null' };
      if (value.length > ESSAY_TEXT_MAX) return { ok: false, message: `must be at most ${ESSAY_TEXT_MAX} characters` };
      return { ok: true, value: value.trim() === '' ? null : value };
    },
  },

  simulate: { correct: () => null },

  page(q, { id, where, value, texts: { t } }) {
    const text = typeof value === 'string' ? value : '';
    const words = countWords(text);
    return html`${answerLabel(t, `${id}-input`, where)}
<textarea id="${id}-input" name="${id}" rows="10" maxlength="${ESSAY_TEXT_MAX}" aria-describedby="${id}-words">
${text}</textarea>
<p class="word-count" id="${id}-words" data-max-words="${q.maxWords ?? ''}">${q.maxWords ? t.t('question.essay.wordsOfMax', { words, max: q.maxWords }) : t.t('question.essay.words', { words })}</p>`;
  },

  review(_q, value) {
    if (typeof value !== 'string' || value.trim() === '') return html`<p class="empty">Not answered.</p>`;
    return html`<p class="answer" dir="auto">${value}</p>`;
  },
  answerText: (_q, value) => (typeof value === 'string' ? value : ''),

  scripts: { student: new URL('./student.js', import.meta.url), editor: new URL('./editor.js', import.meta.url) },
  editorMessages: [
    'portal.editor.type.essay', 'portal.editor.essay.rubricHint', 'portal.editor.essay.maxWords', 'portal.editor.essay.maxWordsHint',
  ],
  // The word count is the page's question-fields.js's (student.js calls it on every edit).
  clientMessages: ['question.essay.words', 'question.essay.wordsOfMax'],

  qti: {
    interactions: ['qti-extended-text-interaction'],
    read: readEssay,
    write: writeEssay,
  },
});
