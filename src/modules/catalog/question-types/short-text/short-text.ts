import { Type } from '@sinclair/typebox';
import { html, type SafeHtml } from '../../../../platform/web/html.js';
import { answerLabel } from '../answer-label.js';
import { answerEntries, describeEntry, fullPointsText } from '../../accepted-answers.js';
import { defineQuestionType } from '../definition.js';
import { checkParameters } from '../parameters/check.js';
import { checkAcceptedAnswers } from './check.js';
import { bestEntryPoints } from './mark.js';
import { readShortText, summedShortText, writeShortText } from './qti.js';
import { SHORT_TEXT_MAX, ShortText, type ShortTextQuestion } from './schema.js';

/**
 * short_text: `{ acceptedAnswers, caseSensitive?, rubric?, aiMarking?, criteria? }`
 * and a parametrised question's fields; the answer is the text as typed,
 * marked by the best accepted answer it matches (catalog/accepted-answers.ts,
 * mark.ts). With `aiMarking`, an answer that matches none waits for the
 * model or a reviewer instead of getting 0.
 */
export const shortTextType = defineQuestionType<ShortTextQuestion>({
  type: 'short_text',
  label: 'Short text',
  schema: ShortText,
  // A part is marked by its key alone: no free-text marking fields.
  part: { title: 'ShortTextPart', omit: ['rubric', 'aiMarking', 'criteria'] },
  autoMarkable: true,

  withDefaults: (q) => ({ ...q, caseSensitive: q.caseSensitive ?? false }),
  contentFields: (q) => (q.rubric ? [['rubric', q.rubric]] : []),

  // The AI marking fields are checked by authoring, which knows the test's marking; then the entries, then a parametrised question's variables.
  check(q, at, details) {
    checkAcceptedAnswers(q, at, details);
    checkParameters(q, at, details);
  },

  answer: {
    schema: Type.String({ maxLength: SHORT_TEXT_MAX }),
    check(_q, value) {
      if (typeof value !== 'string') return { ok: false, message: 'must be text or null' };
      if (value.length > SHORT_TEXT_MAX) return { ok: false, message: `must be at most ${SHORT_TEXT_MAX} characters` };
      return { ok: true, value: value.trim() === '' ? null : value };
    },
  },

  mark(q, value) {
    if (typeof value !== 'string' || value.trim() === '') return { kind: 'auto', points: 0 };
    const best = bestEntryPoints(q, value);
    if (best !== null) return { kind: 'auto', points: best };
    return q.aiMarking ? { kind: 'manual' } : { kind: 'auto', points: 0 };
  },

  // A parametrised question's answers are the candidate's (catalog/delivery.ts's deliver), the formula's value first.
  simulate: { correct: (q) => fullPointsText(q) },

  page: (_q, { id, where, value, texts: { t } }) =>
    html`${answerLabel(t, `${id}-input`, where)}
<input type="text" id="${id}-input" name="${id}" value="${typeof value === 'string' ? value : ''}" autocomplete="off" maxlength="${SHORT_TEXT_MAX}">`,

  review(q, value) {
    if (value === null || (typeof value === 'string' && value.trim() === '')) return html`<p class="empty">Not answered.</p>`;
    return html`<p class="answer" dir="auto">${answerText(value)}</p>${acceptedList(q)}`;
  },
  answerText: (_q, value) => answerText(value),

  scripts: { student: new URL('./student.js', import.meta.url), editor: new URL('./editor.js', import.meta.url) },
  editorMessages: [
    'portal.editor.shortText.listHint', 'portal.editor.shortText.pointsHint', 'portal.editor.shortText.patternHint',
    'portal.editor.shortText.options', 'portal.editor.shortText.points', 'portal.editor.shortText.caseSensitive', 'portal.editor.shortText.pattern',
    'portal.editor.shortText.answer', 'portal.editor.remove', 'portal.editor.shortText.answerName', 'portal.editor.shortText.accepted',
    'portal.editor.shortText.add', 'portal.editor.shortText.caseDefault', 'portal.editor.type.shortText', 'portal.editor.shortText.rubricHint',
  ],
  styles: { portal: new URL('./portal.css', import.meta.url) },

  qti: {
    // A text entry is read by qti-items.ts, which gives a string response to readShortText; this type claims no interaction of its own.
    interactions: [],
    read: readShortText,
    write: writeShortText,
    summed: summedShortText,
  },
});

/** The answer as typed (any other stored shape joined, as the staff's views always showed it). */
function answerText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return value.join(', ');
  if (typeof value === 'object' && value !== null) return Object.values(value).join(', ');
  return value === null || value === undefined ? '' : String(value);
}

/** The accepted answers with each one's points and how it is matched (case, or its pattern). */
function acceptedList(q: ShortTextQuestion): SafeHtml {
  const entries = answerEntries(q);
  if (entries.length === 1) return html`<p class="hint">Accepted: ${describeEntry(entries[0]!)}</p>`;
  return html`<p class="hint">Accepted:</p><ul class="hint accepted-answers">${entries.map((e) => html`<li>${describeEntry(e)}</li>`)}</ul>`;
}
