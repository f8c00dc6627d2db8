import { html, SafeHtml } from '../../../../platform/web/html.js';
import { normaliseText } from '../../accepted-answers.js';
import type { AnswerJson, FieldContext, ReviewContext } from '../definition.js';
import { BLANK_MAX, BLANK_PLACEHOLDER, type Blank, type FillBlanksQuestion } from './schema.js';

// A stored answer is { blankId: text or optionId } (attempts check it); anything else reads as no blank filled.
const asRecord = (v: AnswerJson): Readonly<Record<string, string>> => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Readonly<Record<string, string>>) : {});

/**
 * The text with each `{{id}}` as a field named Blank 1, Blank 2, … in
 * reading order. The whole text is rendered first (escaped, or Markdown:
 * placeholders pass through rendering unchanged), then each placeholder in
 * the output is replaced by its field, so emphasis or a list around a blank
 * still works. A choice blank's options are text (an `<option>` holds no markup).
 */
export function fillBlanksPage(q: FillBlanksQuestion, { id, value, texts }: FieldContext): SafeHtml {
  const given = asRecord(value);
  const blanks = new Map(q.blanks.map((b) => [b.id, b]));
  let n = 0;
  const rendered = texts.block(`${q.id}.text`, q.text).toString();
  const out = rendered.replace(new RegExp(BLANK_PLACEHOLDER.source, 'g'), (_whole: string, blankId: string) => {
    const blank = blanks.get(blankId);
    if (!blank) return `{{${blankId}}}`;
    n++;
    const name = texts.t.t('question.fillBlanks.blank', { n });
    const fieldId = `${id}-b${n}`;
    if (blank.kind === 'choice') {
      return html`<select class="blank" id="${fieldId}" data-blank-id="${blank.id}" aria-label="${name}"><option value="">${texts.t.t('question.choose')}</option>${blank.options.map(
        (o) => html`<option value="${o.id}"${given[blank.id] === o.id ? html` selected` : ''}>${texts.text(o.text)}</option>`,
      )}</select>`.toString();
    }
    return html`<input type="text" class="blank" id="${fieldId}" data-blank-id="${blank.id}" aria-label="${name}" value="${given[blank.id] ?? ''}" autocomplete="off" maxlength="${BLANK_MAX}">`.toString();
  });
  const body = new SafeHtml(out);
  const hint = texts.t.t('question.fillBlanks.hint');
  return texts.markdown ? html`<p class="hint">${hint}</p><div class="blank-text content">${body}</div>` : html`<p class="hint">${hint}</p><p class="blank-text">${body}</p>`;
}

const ONE_BLANK = new RegExp(BLANK_PLACEHOLDER.source);

/** Whether a blank's answer is right: the correct option, or a text equal to an accepted answer as short_text compares them. */
export function blankRight(b: Blank, given: string): boolean {
  if (b.kind === 'choice') return given === b.correctOptionId;
  const cs = b.caseSensitive ?? false;
  const norm = normaliseText(given, cs);
  return norm !== '' && b.acceptedAnswers.some((a) => normaliseText(a, cs) === norm);
}

/**
 * The text with each blank filled in as the student did (a choice blank by
 * its option's text), each blank named as the student page names it
 * (Blank 1, Blank 2, … in reading order) and marked right or wrong.
 */
export function fillBlanksReview(q: FillBlanksQuestion, answer: AnswerJson, { texts }: ReviewContext): SafeHtml {
  const given = asRecord(answer);
  if (!q.blanks.some((b) => (given[b.id] ?? '').trim() !== '')) return html`<p class="empty">Not answered.</p>`;
  const blank = new Map(q.blanks.map((b) => [b.id, b]));
  let n = 0;
  const filled = (b: Blank): SafeHtml => {
    n++;
    const value = given[b.id];
    const empty = value === undefined || value.trim() === '';
    const optionText = (id: string | undefined) => {
      const o = b.kind === 'choice' ? b.options.find((x) => x.id === id) : undefined;
      return o ? texts.text(o.text) : undefined;
    };
    const shown = b.kind === 'choice' ? optionText(value) : value;
    const right =
      !empty &&
      (b.kind === 'choice' ? value === b.correctOptionId : b.acceptedAnswers.some((a) => normaliseText(a, b.caseSensitive ?? false) === normaliseText(value, b.caseSensitive ?? false)));
    const expected = b.kind === 'choice' ? (optionText(b.correctOptionId) ?? '') : b.acceptedAnswers.join(' · ');
    return html`<span class="blank"><mark>${empty ? html`<em>left empty</em>` : (shown ?? value)}</mark> <span class="hint">(Blank ${n}, ${right ? 'right' : html`wrong; ${b.kind === 'choice' ? 'correct' : 'accepted'}: ${expected}`})</span></span>`;
  };
  if (texts.markdown) {
    // As on the student page: the whole text rendered, then each placeholder in the output replaced.
    const out = texts.block(`${q.id}.text`, q.text).toString().replace(new RegExp(ONE_BLANK.source, 'g'), (whole: string, id: string) => {
      const b = blank.get(id);
      return b ? filled(b).toString() : whole;
    });
    return html`<div class="answer answer-blanks content">${new SafeHtml(out)}</div>`;
  }
  // split with a capturing group: text, blank id, text, blank id, …
  const parts = q.text.split(new RegExp(ONE_BLANK.source, 'g'));
  return html`<p class="answer answer-blanks">${parts.map((part, i) => {
    if (i % 2 === 0) return part;
    const b = blank.get(part);
    return b ? filled(b) : part;
  })}</p>`;
}
