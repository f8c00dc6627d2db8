import type { Translator } from '../../../platform/i18n/catalogue.js';
import type { ErrorDetail } from '../../../platform/errors.js';
import { html, type SafeHtml } from '../../../platform/web/html.js';
import {
  FEEDBACK_MAX_CHARS,
  feedbackTextProblem,
  normalizeFeedbackText,
  type CandidateFeedback,
  type CandidateFeedbackInput,
} from '../../assignments/candidate-feedback.js';
import { errorFor, textArea } from '../ui/components.js';

/**
 * The marking form's feedback for the candidate: a field per item the
 * reviewer marks (`feedback-<questionId>`) and one for the attempt as a whole
 * (`feedback-overall`). Plain text, shown to the candidate once the result
 * is released (assignments/candidate-feedback.ts); saved with the draft and
 * recorded when marking finishes.
 */
export const OVERALL_FIELD = 'feedback-overall';
export const questionField = (questionId: string) => `feedback-${questionId}`;

/** The feedback a form shows before anything was typed: the reviewer's draft, else what is stored. */
export function feedbackValues(feedback: CandidateFeedback | null): Record<string, string> {
  if (!feedback) return {};
  return {
    ...(feedback.overall !== null ? { [OVERALL_FIELD]: feedback.overall } : {}),
    ...Object.fromEntries(feedback.questions.map((q) => [questionField(q.questionId), q.feedback])),
  };
}

/** The form's feedback fields as the marking service takes them, with an error beside each field it refuses. */
export function readFeedback(questionIds: readonly string[], body: Record<string, string>, t: Translator): { feedback: CandidateFeedbackInput; errors: ErrorDetail[] } {
  const errors: ErrorDetail[] = [];
  const text = (field: string): string => {
    const value = normalizeFeedbackText(body[field]) ?? '';
    const problem = value === '' ? null : feedbackTextProblem(value);
    if (problem) {
      errors.push({
        field,
        message: problem.startsWith('must not') ? t.t('portal.marking.error.feedbackControl') : t.t('portal.marking.error.feedbackTooLong', { max: FEEDBACK_MAX_CHARS }),
      });
    }
    return value;
  };
  const overall = text(OVERALL_FIELD);
  const questions = questionIds.map((questionId) => ({ questionId, feedback: text(questionField(questionId)) }));
  return { feedback: { overall: overall === '' ? null : overall, questions }, errors };
}

/** One item's feedback field, under its marks; its label names the question for screen readers. */
export function questionFeedbackField(t: Translator, item: { questionId: string; prompt: string }, values: Record<string, string>, errors: ErrorDetail[] | undefined): SafeHtml {
  const name = questionField(item.questionId);
  return textArea({
    name,
    label: html`${t.t('portal.marking.feedback.question')}<span class="sr-only"> ${t.t('portal.marking.item.onPrompt', { prompt: item.prompt })}</span>`,
    value: values[name] ?? '',
    hint: t.t('portal.marking.feedback.hint', { max: FEEDBACK_MAX_CHARS }),
    error: errorFor(errors, name),
    rows: 3,
    maxlength: FEEDBACK_MAX_CHARS,
    className: 'candidate-feedback',
    t,
  });
}

/** The overall feedback, after every item and before the form's buttons. */
export function overallFeedbackPanel(t: Translator, values: Record<string, string>, errors: ErrorDetail[] | undefined): SafeHtml {
  return html`<section class="panel candidate-feedback" aria-labelledby="feedback-overall-heading">
<h2 id="feedback-overall-heading">${t.t('portal.marking.feedback.heading')}</h2>
<p class="hint">${t.t('portal.marking.feedback.intro')}</p>
${textArea({
  name: OVERALL_FIELD,
  label: t.t('portal.marking.feedback.overall'),
  value: values[OVERALL_FIELD] ?? '',
  hint: t.t('portal.marking.feedback.hint', { max: FEEDBACK_MAX_CHARS }),
  error: errorFor(errors, OVERALL_FIELD),
  rows: 5,
  maxlength: FEEDBACK_MAX_CHARS,
  t,
})}
</section>`;
}

/** A finished item's feedback, read only (the marking page of an item no longer in marking). */
export function feedbackSummary(t: Translator, feedback: CandidateFeedback | null, numberOf: (questionId: string) => number): SafeHtml | string {
  if (!feedback) return '';
  return html`<section class="panel candidate-feedback" aria-labelledby="feedback-given-heading">
<h2 id="feedback-given-heading">${t.t('portal.marking.feedback.heading')}</h2>
<dl class="facts">
${feedback.overall !== null ? html`<dt>${t.t('portal.marking.feedback.overall')}</dt><dd class="feedback-text" dir="auto">${feedback.overall}</dd>` : ''}
${feedback.questions.map((q) => html`<dt>${t.t('portal.marking.item.question', { n: numberOf(q.questionId) })}</dt><dd class="feedback-text" dir="auto">${q.feedback}</dd>`)}
</dl>
</section>`;
}
