import { Type } from '@sinclair/typebox';
import { defineQuestionType } from '../definition.js';
import { quoted } from '../choice-options.js';
import { uniqueIds } from '../unique-ids.js';
import { blankRight, fillBlanksPage, fillBlanksReview } from './page.js';
import { readOneInteraction, summedFillBlanks, writeFillBlanks } from './qti.js';
import { BLANK_MAX, BLANK_PLACEHOLDER, FillBlanks, type Blank, type FillBlanksQuestion } from './schema.js';

const isRecord = (v: unknown): v is Readonly<Record<string, unknown>> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * fill_blanks: `{ text, blanks }`, each blank placed in the text as `{{id}}`,
 * a typed answer (`acceptedAnswers`, `caseSensitive?`) or a choice from a
 * list (`options`, `correctOptionId`); the answer is `{ blankId: text or
 * optionId }` (empty blanks absent). Points split equally across blanks: a
 * text blank is right when it equals an accepted answer as short_text
 * compares them, a choice blank when the correct option is chosen.
 */
export const fillBlanksType = defineQuestionType<FillBlanksQuestion>({
  type: 'fill_blanks',
  label: 'Fill in the blanks',
  schema: FillBlanks,
  part: { title: 'FillBlanksPart' },
  autoMarkable: true,

  check(q, at, details) {
    const blanks = uniqueIds(q.blanks, `${at}.blanks`, 'blank', details);
    const placed = [...q.text.matchAll(BLANK_PLACEHOLDER)].map((m) => m[1]!);
    const seen = new Set<string>();
    for (const id of placed) {
      if (!blanks.has(id)) details.push({ field: `${at}.text`, message: `places blank "{{${id}}}", which has no definition in blanks` });
      else if (seen.has(id)) details.push({ field: `${at}.text`, message: `places blank "{{${id}}}" twice` });
      seen.add(id);
    }
    q.blanks.forEach((b, j) => {
      if (!seen.has(b.id)) details.push({ field: `${at}.blanks.${j}.id`, message: `blank "${b.id}" is not placed in text (write {{${b.id}}} where it goes)` });
      if (b.kind === 'choice') {
        const options = uniqueIds(b.options, `${at}.blanks.${j}.options`, 'option', details);
        if (!options.has(b.correctOptionId)) details.push({ field: `${at}.blanks.${j}.correctOptionId`, message: `"${b.correctOptionId}" is not one of the options` });
      }
    });
  },
  withDefaults: (q) => ({ ...q, blanks: q.blanks.map((b) => (b.kind === 'text' ? { ...b, caseSensitive: b.caseSensitive ?? false } : b)) }),
  contentFields: (q) => [
    ['text', q.text],
    ...q.blanks.flatMap((b, j) => (b.kind === 'choice' ? b.options.map((o, m): [string, string] => [`blanks.${j}.options.${m}.text`, o.text]) : [])),
  ],

  answer: {
    schema: Type.Record(Type.String(), Type.String({ maxLength: BLANK_MAX }), { maxProperties: 50, propertyNames: { maxLength: 64 } }),
    check(q, value) {
      if (!isRecord(value)) return { ok: false, message: 'must be an object of { blankId: text or optionId } or null' };
      for (const [blankId, given] of Object.entries(value)) {
        const blank = q.blanks.find((b) => b.id === blankId);
        if (!blank) return { ok: false, message: `${quoted(blankId)} is not a blank of this question` };
        if (given === null) continue;
        if (typeof given !== 'string') return { ok: false, message: `blank ${quoted(blankId)} must be text or null` };
        if (blank.kind === 'choice') {
          if (given === '') continue;
          if (!blank.options.some((o) => o.id === given)) return { ok: false, message: `${quoted(given)} is not an option of blank ${quoted(blankId)}` };
        } else if (given.length > BLANK_MAX) {
          return { ok: false, message: `blank ${quoted(blankId)} must be at most ${BLANK_MAX} characters` };
        }
      }
      // Stored in the blanks' order, empty blanks absent, so equal answers are equal values.
      const out: Record<string, string> = {};
      for (const b of q.blanks) {
        const given = value[b.id];
        if (typeof given === 'string' && given.trim() !== '') out[b.id] = given;
      }
      return { ok: true, value: Object.keys(out).length > 0 ? out : null };
    },
  },

  mark(q, value) {
    if (!isRecord(value)) return { kind: 'auto', points: 0 };
    const right = q.blanks.filter((b) => {
      const given = value[b.id];
      return typeof given === 'string' && blankRight(b, given);
    }).length;
    return { kind: 'auto', points: q.points * (right / q.blanks.length) };
  },

  simulate: { correct: (q) => Object.fromEntries(q.blanks.map((b) => [b.id, b.kind === 'choice' ? b.correctOptionId : b.acceptedAnswers[0]!])) },

  page: fillBlanksPage,
  review: fillBlanksReview,
  answerText: (q, value) => {
    const given = isRecord(value) ? value : {};
    const blanks = new Map(q.blanks.map((b) => [b.id, b]));
    const shown = (b: Blank, v: unknown) => (b.kind === 'choice' ? (b.options.find((o) => o.id === v)?.text ?? String(v)) : String(v));
    // Named as the page names them: Blank 1, Blank 2, … in reading order.
    const placed = [...q.text.matchAll(BLANK_PLACEHOLDER)].flatMap((m) => (blanks.has(m[1]!) ? [blanks.get(m[1]!)!] : []));
    return placed.flatMap((b, j) => (given[b.id] !== undefined ? [`Blank ${j + 1}: ${shown(b, given[b.id])}`] : [])).join('; ');
  },

  scripts: { student: new URL('./student.js', import.meta.url), editor: new URL('./editor.js', import.meta.url) },
  editorMessages: [
    'portal.editor.fillBlanks.kindText', 'portal.editor.fillBlanks.kindChoice', 'portal.editor.fillBlanks.blank', 'portal.editor.fillBlanks.kind',
    'portal.editor.fillBlanks.accepted', 'portal.editor.fillBlanks.acceptedHint', 'portal.editor.fillBlanks.caseSensitive',
    'portal.editor.fillBlanks.option', 'portal.editor.fillBlanks.optionName', 'portal.editor.option.add', 'portal.editor.fillBlanks.addOptionSr',
    'portal.editor.fillBlanks.optionCorrect', 'portal.editor.remove', 'portal.editor.fillBlanks.blankName', 'portal.editor.fillBlanks.add',
    'portal.editor.fillBlanks.text', 'portal.editor.fillBlanks.textHint', 'portal.editor.type.fillBlanks', 'portal.editor.fillBlanks.added',
    'portal.editor.fillBlanks.addedWithAnswer',
  ],
  styles: { student: new URL('./student.css', import.meta.url), portal: new URL('./portal.css', import.meta.url) },

  qti: {
    // qti-items.ts reads an item's text entries and inline choices together, or a gap match, as blanks (qti.ts says why); no interaction is claimed here.
    interactions: [],
    read: readOneInteraction,
    write: writeFillBlanks,
    summed: summedFillBlanks,
  },
});
