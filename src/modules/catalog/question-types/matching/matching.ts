import { Type } from '@sinclair/typebox';
import { defineQuestionType } from '../definition.js';
import { quoted } from '../choice-options.js';
import { uniqueIds } from '../unique-ids.js';
import { matchingPage, matchingReview } from './page.js';
import { readMatching, summedMatching, writeMatching } from './qti.js';
import { readGraphicGapMatch } from './graphic-gap-qti.js';
import { Matching, type MatchingQuestion } from './schema.js';

const isRecord = (v: unknown): v is Readonly<Record<string, unknown>> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * matching: `{ stems, choices, correct: { stemId: choiceId }, partialCredit? }`;
 * the answer is `{ stemId: choiceId }` (stems not yet matched absent), stored
 * in stem order so equal matchings are equal values. Marked points × stems
 * matched right ÷ stems, or (partialCredit false) all or nothing.
 */
export const matchingType = defineQuestionType<MatchingQuestion>({
  type: 'matching',
  label: 'Matching',
  schema: Matching,
  part: { title: 'MatchingPart' },
  autoMarkable: true,

  check(q, at, details) {
    const stems = uniqueIds(q.stems, `${at}.stems`, 'stem', details);
    const choices = uniqueIds(q.choices, `${at}.choices`, 'choice', details);
    for (const [stemId, choiceId] of Object.entries(q.correct)) {
      if (!stems.has(stemId)) details.push({ field: `${at}.correct.${stemId}`, message: `"${stemId}" is not one of the stems` });
      else if (!choices.has(choiceId)) details.push({ field: `${at}.correct.${stemId}`, message: `"${choiceId}" is not one of the choices` });
    }
    for (const stem of q.stems) {
      if (!(stem.id in q.correct)) details.push({ field: `${at}.correct`, message: `gives no choice for stem "${stem.id}"` });
    }
  },
  withDefaults: (q) => ({ ...q, partialCredit: q.partialCredit ?? true }),
  contentFields: (q) => [
    ...q.stems.map((s, j): [string, string] => [`stems.${j}.text`, s.text]),
    ...q.choices.map((c, j): [string, string] => [`choices.${j}.text`, c.text]),
  ],

  answer: {
    schema: Type.Record(Type.String(), Type.String({ maxLength: 64 }), { maxProperties: 50, propertyNames: { maxLength: 64 } }),
    check(q, value) {
      if (!isRecord(value)) return { ok: false, message: 'must be an object of { stemId: choiceId } or null' };
      for (const [stemId, choiceId] of Object.entries(value)) {
        if (!q.stems.some((s) => s.id === stemId)) return { ok: false, message: `${quoted(stemId)} is not a stem of this question` };
        if (choiceId === null || choiceId === '') continue;
        if (typeof choiceId !== 'string' || !q.choices.some((c) => c.id === choiceId)) {
          return { ok: false, message: `${quoted(choiceId)} is not a choice of this question` };
        }
      }
      // Stored in stem order so equal matchings are equal values.
      const out: Record<string, string> = {};
      for (const s of q.stems) if (typeof value[s.id] === 'string' && value[s.id] !== '') out[s.id] = value[s.id] as string;
      return { ok: true, value: Object.keys(out).length > 0 ? out : null };
    },
  },

  mark(q, value) {
    if (!isRecord(value)) return { kind: 'auto', points: 0 };
    const right = q.stems.filter((s) => value[s.id] === q.correct[s.id]).length;
    const fraction = q.partialCredit === false ? (right === q.stems.length ? 1 : 0) : right / q.stems.length;
    return { kind: 'auto', points: q.points * fraction };
  },

  simulate: { correct: (q) => ({ ...q.correct }) },

  page: matchingPage,
  review: matchingReview,
  answerText: (q, value) => {
    const given = isRecord(value) ? value : {};
    const text = (id: unknown) => q.choices.find((c) => c.id === id)?.text ?? String(id);
    return q.stems.filter((s) => given[s.id] !== undefined).map((s) => `${s.text} → ${text(given[s.id])}`).join('; ');
  },

  scripts: { student: new URL('./student.js', import.meta.url), editor: new URL('./editor.js', import.meta.url) },
  editorMessages: [
    'portal.editor.type.matching', 'portal.editor.matching.stem', 'portal.editor.matching.stemName', 'portal.editor.matching.addStem',
    'portal.editor.matching.chooseChoice', 'portal.editor.matching.choice', 'portal.editor.matching.correct', 'portal.editor.matching.choiceName',
    'portal.editor.matching.addChoice', 'portal.editor.matching.stems', 'portal.editor.matching.choices', 'portal.editor.matching.partialCredit',
  ],
  styles: { student: new URL('./student.css', import.meta.url) },

  qti: {
    interactions: ['qti-match-interaction', 'qti-graphic-gap-match-interaction'],
    // A graphic gap match is a matching of the image's labelled hotspots to the gaps (graphic-gap-qti.ts).
    read: (ctx, it) => (it.name === 'qti-graphic-gap-match-interaction' ? readGraphicGapMatch(ctx, it) : readMatching(ctx, it)),
    write: writeMatching,
    summed: summedMatching,
  },
});
