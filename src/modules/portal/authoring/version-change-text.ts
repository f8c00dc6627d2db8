import type { Translator } from '../../../platform/i18n/catalogue.js';
import type { FieldChange, VersionChange } from '../../catalog/version-diff.js';

/**
 * A version's changes in words for the editor's Versions list, each field
 * with its value before and after: "Duration 20 → 25 min", "Pass mark 50 %
 * → 60 %", "Points 1 → 2", a prompt as a short excerpt around where it
 * changed. A value that is a list or an object (options, rules, passages)
 * is only named as changed: its before and after would not read as a line.
 */

/** How much of a text an excerpt keeps. */
export const EXCERPT_LENGTH = 40;
/** How much of a text an excerpt keeps before the first character that changed. */
const LEAD = 12;

/**
 * Two texts cut to the same window, starting a little before the first
 * character where they differ, so a change at the end of a long prompt
 * still shows.
 */
export function excerpts(before: string, after: string, length = EXCERPT_LENGTH): [string, string] {
  if (before.length <= length && after.length <= length) return [before, after];
  let same = 0;
  while (same < before.length && same < after.length && before[same] === after[same]) same++;
  const start = Math.max(0, Math.min(same - LEAD, Math.max(before.length, after.length) - length));
  const cut = (s: string) => {
    const part = s.slice(start, start + length);
    return `${start > 0 ? '…' : ''}${part}${start + length < s.length ? '…' : ''}`;
  };
  return [cut(before), cut(after)];
}

const ENUM_LABELS = {
  proctoring: { none: 'portal.editor.settings.proctoringNone', record: 'portal.editor.settings.proctoringRecord', live_ai: 'portal.editor.settings.proctoringLive' },
  marking: { auto: 'portal.editor.settings.markingAuto', manual: 'portal.editor.settings.markingManual', hybrid: 'portal.editor.settings.markingHybrid' },
  resultVisibility: { immediate: 'portal.editor.settings.resultImmediate', after_review: 'portal.editor.settings.resultAfterReview' },
  contentFormat: { plain: 'portal.editor.settings.formatPlain', markdown: 'portal.editor.settings.formatMarkdown' },
} as const;

const isScalar = (v: unknown) => v === null || v === undefined || ['string', 'number', 'boolean'].includes(typeof v);

/** One field's change in words. */
export function fieldChangeText(c: FieldChange, t: Translator): string {
  const field = t.t('portal.editor.change.field', { field: c.field });
  const none = t.t('portal.editor.change.none');
  if (!isScalar(c.from) || !isScalar(c.to)) return t.t('portal.editor.change.fieldChanged', { field });
  const value = (v: unknown): string => {
    if (v === null || v === undefined) return c.field === 'draw' ? t.t('portal.editor.change.allQuestions') : none;
    if (typeof v === 'boolean') return t.t(v ? 'portal.editor.change.yes' : 'portal.editor.change.no');
    const labels = (ENUM_LABELS as Record<string, Record<string, Parameters<Translator['t']>[0]>>)[c.field];
    if (typeof v === 'string' && labels?.[v]) return t.t(labels[v]);
    if (c.field === 'passPercent') return t.t('portal.editor.change.percent', { value: String(v) });
    return String(v);
  };
  if (typeof c.from === 'string' && typeof c.to === 'string' && !(c.field in ENUM_LABELS)) {
    const [from, to] = excerpts(c.from, c.to);
    return t.t('portal.editor.change.fieldValues', { field, from: t.t('portal.editor.change.quoted', { text: from }), to: t.t('portal.editor.change.quoted', { text: to }) });
  }
  if (c.field === 'durationMinutes') return t.t('portal.editor.change.minutes', { field, from: value(c.from), to: value(c.to) });
  return t.t('portal.editor.change.fieldValues', { field, from: value(c.from), to: value(c.to) });
}

/** One change of a version in words. */
export function versionChangeText(c: VersionChange, t: Translator): string {
  const fields = (values: FieldChange[]) => values.map((v) => fieldChangeText(v, t)).join('; ');
  switch (c.kind) {
    case 'test_changed':
      return t.t('portal.editor.change.testChanged', { fields: fields(c.values) });
    case 'section_added':
      return t.t('portal.editor.change.sectionAdded', { section: c.title || c.sectionId });
    case 'section_removed':
      return t.t('portal.editor.change.sectionRemoved', { section: c.title || c.sectionId });
    case 'section_renamed':
      return t.t('portal.editor.change.sectionRenamed', { from: c.from, to: c.to });
    case 'section_changed':
      return t.t('portal.editor.change.sectionChanged', { section: c.sectionId, fields: fields(c.values) });
    case 'question_added':
      return t.t('portal.editor.change.questionAdded', { question: c.questionId });
    case 'question_removed':
      return t.t('portal.editor.change.questionRemoved', { question: c.questionId });
    case 'question_moved':
      return t.t('portal.editor.change.questionMoved', { question: c.questionId, from: c.from, to: c.to });
    case 'question_changed':
      return t.t('portal.editor.change.questionChanged', { question: c.questionId, fields: fields(c.values) });
  }
}
