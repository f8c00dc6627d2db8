import { descendants, type XElement } from './xml.js';

/**
 * Feedback in an imported item (modal, block, inline): Assay shows
 * candidates none, so it is left out of the question, and the report's
 * notes say what was dropped.
 */
const FEEDBACK = ['qti-modal-feedback', 'qti-feedback-block', 'qti-feedback-inline'];
const FEEDBACK_NAMES: Record<string, [string, string]> = {
  'qti-modal-feedback': ['modal feedback', 'modal feedbacks'],
  'qti-feedback-block': ['feedback block', 'feedback blocks'],
  'qti-feedback-inline': ['inline feedback', 'inline feedbacks'],
};

/**
 * What feedback the item carries, counted by kind, for the report: Assay
 * shows candidates no feedback, so it is left out, but never silently.
 */
export function feedbackNote(item: XElement): string | null {
  const all = feedbackElements(item);
  if (all.length === 0) return null;
  const parts = FEEDBACK.map((k) => [k, all.filter((e) => e.name === k).length] as const)
    .filter(([, n]) => n > 0)
    .map(([k, n]) => `${n} ${FEEDBACK_NAMES[k]![n === 1 ? 0 : 1]}`);
  const outcomes = [...new Set(all.map((e) => e.attrs['outcome-identifier'] ?? '').filter(Boolean))];
  return `feedback is not imported (Assay shows candidates no feedback): ${parts.join(', ')}${outcomes.length > 0 ? ` on ${outcomes.join(', ')}` : ''} left out`;
}

const feedbackElements = (item: XElement) => descendants(item).filter((e) => FEEDBACK.includes(e.name));

/** The outcomes the response processing sets beside the score that no feedback element shows (set aside by rp-simplify.ts), as a note; null when none. */
export function unshownOutcomesNote(item: XElement, dropped: readonly string[]): string | null {
  const shown = new Set(feedbackElements(item).map((e) => e.attrs['outcome-identifier'] ?? ''));
  const unshown = dropped.filter((id) => !shown.has(id));
  return unshown.length > 0 ? `response processing also sets ${unshown.join(', ')}, which Assay does not keep (the score does not depend on it)` : null;
}
