import { Type } from '@sinclair/typebox';
import type { ErrorDetail } from '../../../../platform/errors.js';
import { defineQuestionType, type AnswerJson, type CheckedValue } from '../definition.js';
import { hotTextPage, hotTextReview } from './hot-text-page.js';
import { hotTextQti } from './hot-text-qti.js';
import { hotTextFraction, HOTSPOT_PLACEHOLDER, HotTextSchema, type HotTextQuestion } from './hot-text-schema.js';

/**
 * hot_text: phrases in a text that the candidate chooses (QTI
 * hottextInteraction). The answer is the chosen hotspots' ids, in the
 * question's order. Marking: points × (right − wrong) ÷ correct hotspots,
 * never below 0 — all or nothing when one hotspot is correct (as it must be
 * with maxChoices 1), partial credit as multiple_choice gives it when
 * several are (docs/test-format.md).
 */

export const HotTextAnswer = Type.Array(Type.String({ maxLength: 64 }), { maxItems: 100, description: 'hot_text: the chosen hotspot ids' });

function check(q: HotTextQuestion, at: string, details: ErrorDetail[]): void {
  const ids = new Set<string>();
  q.hotspots.forEach((h, j) => {
    if (ids.has(h.id)) details.push({ field: `${at}.hotspots.${j}.id`, message: `duplicates hotspot id "${h.id}"` });
    ids.add(h.id);
  });
  const placed = new Set<string>();
  for (const m of q.text.matchAll(HOTSPOT_PLACEHOLDER)) {
    const id = m[1]!;
    if (!ids.has(id)) details.push({ field: `${at}.text`, message: `places hotspot "{{${id}}}", which has no definition in hotspots` });
    else if (placed.has(id)) details.push({ field: `${at}.text`, message: `places hotspot "{{${id}}}" twice` });
    placed.add(id);
  }
  q.hotspots.forEach((h, j) => {
    if (!placed.has(h.id)) details.push({ field: `${at}.hotspots.${j}.id`, message: `hotspot "${h.id}" is not placed in text (write {{${h.id}}} where its phrase goes)` });
  });
  const seen = new Set<string>();
  q.correct.forEach((id, j) => {
    if (!ids.has(id)) details.push({ field: `${at}.correct.${j}`, message: `"${id}" is not one of the hotspots` });
    else if (seen.has(id)) details.push({ field: `${at}.correct.${j}`, message: `repeats "${id}"` });
    else seen.add(id);
  });
  if (q.maxChoices !== undefined) {
    if (q.maxChoices < seen.size) details.push({ field: `${at}.maxChoices`, message: `is ${q.maxChoices}, fewer than the ${seen.size} correct hotspots: no answer could earn full points` });
    else if (q.maxChoices > q.hotspots.length) details.push({ field: `${at}.maxChoices`, message: `is ${q.maxChoices}, more than the ${q.hotspots.length} hotspots` });
  }
}

function checkAnswer(q: HotTextQuestion, value: AnswerJson): CheckedValue {
  if (value === null) return { ok: true, value: null };
  if (!Array.isArray(value) || !value.every((v) => typeof v === 'string')) return { ok: false, message: 'a hot_text answer is an array of hotspot ids' };
  const order = q.hotspots.map((h) => h.id);
  const chosen = new Set(value as string[]);
  const unknown = [...chosen].find((id) => !order.includes(id));
  if (unknown !== undefined) return { ok: false, message: `"${unknown.slice(0, 64)}" is not one of the question's hotspots` };
  if (chosen.size !== value.length) return { ok: false, message: 'names a hotspot twice' };
  if (q.maxChoices !== undefined && chosen.size > q.maxChoices) return { ok: false, message: `chooses ${chosen.size} hotspots; at most ${q.maxChoices} may be chosen` };
  const normalised = order.filter((id) => chosen.has(id));
  return { ok: true, value: normalised.length > 0 ? normalised : null };
}

const chosenOf = (value: AnswerJson): string[] => (Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : []);

export const hotTextType = defineQuestionType<HotTextQuestion>({
  type: 'hot_text',
  label: 'Hot text',
  schema: HotTextSchema,
  part: { title: 'HotTextPart' },
  autoMarkable: true,
  check,
  contentFields: (q) => [['text', q.text], ...q.hotspots.map((h, j): [string, string] => [`hotspots.${j}.phrase`, h.phrase])],
  answer: {
    schema: HotTextAnswer,
    check: checkAnswer,
    answered: (_q, value) => Array.isArray(value) && value.length > 0,
  },
  mark: (q, value) => ({ kind: 'auto', points: Math.round(q.points * hotTextFraction(q, chosenOf(value)) * 10_000) / 10_000 }),
  simulate: {
    correct: (q) => q.hotspots.map((h) => h.id).filter((id) => q.correct.includes(id)),
    // A phrase that is not correct, else (every phrase correct) one fewer than all of them; null when only one phrase exists.
    wrong: (q) => {
      const other = q.hotspots.find((h) => !q.correct.includes(h.id));
      if (other) return [other.id];
      return q.correct.length > 1 ? [q.hotspots[0]!.id] : null;
    },
  },
  statistics: {
    options: (q) => q.hotspots.map((h) => ({ id: h.id, text: h.phrase, correct: q.correct.includes(h.id) })),
    chosen: (_q, value) => chosenOf(value),
  },
  page: hotTextPage,
  review: (q, value, ctx) => hotTextReview(q, value, ctx.texts),
  answerText: (q, value) => {
    const chosen = new Set(chosenOf(value));
    return q.hotspots
      .filter((h) => chosen.has(h.id))
      .map((h) => h.phrase)
      .join('; ');
  },
  scripts: { student: new URL('./student.js', import.meta.url), editor: new URL('./editor.js', import.meta.url) },
  editorMessages: [
    'portal.editor.hotText.hotspot', 'portal.editor.hotText.phrase', 'portal.editor.hotText.correct', 'portal.editor.remove',
    'portal.editor.hotText.hotspotName', 'portal.editor.hotText.add', 'portal.editor.hotText.text', 'portal.editor.hotText.textHint',
    'portal.editor.hotText.maxChoices', 'portal.editor.hotText.maxChoicesHint', 'portal.editor.type.hotText',
  ],
  clientMessages: ['question.hotText.chosen', 'question.hotText.count', 'question.hotText.countOfMax', 'question.hotText.most', 'question.hotText.unchosen'],
  styles: { student: new URL('./student.css', import.meta.url) },
  qti: hotTextQti,
});
