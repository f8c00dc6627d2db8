import { Type, type TSchema } from '@sinclair/typebox';
import type { BuiltInQuestion, Question } from '../catalog/schemas.js';
import { partQuestion } from '../catalog/composite.js';
import type { AnswerJson, BaseQuestion, QuestionTypeDefinition } from '../catalog/question-types/definition.js';
import { QUESTION_TYPES, questionType } from '../catalog/question-types/registry.js';

/**
 * What the test page may store as an answer, per question type (the shapes
 * auto-marking reads). Text is kept exactly as typed (a numeric field keeps
 * "3,5" or a half-typed "-"), so a reload shows what the student wrote.
 * An empty answer is stored as null: it still carries a version, so clearing
 * a field also beats an older save.
 */
/**
 * A stored answer, null when cleared:
 * - single_choice: an option id; multiple_choice: option ids;
 * - short_text, numeric, essay: the text as typed;
 * - matching: { stemId: choiceId } (stems not yet matched are absent);
 * - ordering: the item ids in the order the student put them;
 * - fill_blanks: { blankId: text or optionId } (empty blanks absent);
 * - file_upload: { fileId } (stored by the upload, not by the autosave);
 * - composite: { partId: the part's answer in its own type's shape } (unanswered parts absent).
 */
export type AnswerValue = PartValue | Readonly<Record<string, PartValue | null>> | null | AnswerJson;
/** An answer of one of the answerable types (a composite question's part answers are of these shapes). */
export type PartValue = string | string[] | Readonly<Record<string, string>>;

/** The longest text each kind of answer may hold, in characters (a choice blank holds an option id). */
export const TEXT_MAX = { short_text: 1_000, numeric: 100, essay: 60_000, blank: 1_000 } as const;

const registered = QUESTION_TYPES as ReadonlyArray<QuestionTypeDefinition<any>>;
/** The types moved into folders whose answers the unions below already hold (text, ids, records): the API's answer schema stays as it was. */
const SHAPED_ABOVE = new Set(['single_choice', 'multiple_choice', 'short_text', 'numeric', 'essay', 'matching', 'ordering', 'fill_blanks', 'file_upload']);
/** The registered types' answer shapes (question-types/registry.ts), beside the built-in ones. */
export const registeredAnswers = (parts: boolean): TSchema[] =>
  registered.filter((d) => (!parts || d.part !== undefined) && !SHAPED_ABOVE.has(d.type)).map((d) => d.answer.schema);

/** A composite question's part answer: one of the answerable types' shapes. */
const PartAnswerSchema = Type.Union([
  ...registeredAnswers(true),
  Type.String({ maxLength: TEXT_MAX.short_text }),
  Type.Array(Type.String({ maxLength: 64 }), { maxItems: 50 }),
  Type.Record(Type.String(), Type.String({ maxLength: TEXT_MAX.blank }), { maxProperties: 50, propertyNames: { maxLength: 64 } }),
  Type.Null(),
]);

/** An answer in an API body or response: the shapes above, within the bounds of the questions (at most 50 options, items, stems or blanks). */
export const StoredAnswerSchema = Type.Unsafe<AnswerValue>(Type.Union(
  [
    Type.String({ maxLength: TEXT_MAX.essay }),
    Type.Array(Type.String({ maxLength: 64 }), { maxItems: 50 }),
    Type.Record(Type.String(), Type.String({ maxLength: TEXT_MAX.blank }), { maxProperties: 50, propertyNames: { maxLength: 64 } }),
    Type.Record(Type.String(), PartAnswerSchema, { maxProperties: 20, propertyNames: { maxLength: 64 } }),
    ...registeredAnswers(false),
    Type.Null(),
  ],
  {
    description:
      'The saved answer: an option id, option ids or text; matching { stemId: choiceId }; ordering [itemId, …]; fill_blanks { blankId: text | optionId }; file_upload { fileId }; composite { partId: that part\'s answer }; the registered types\' own shapes; null when unanswered',
  },
));

/** A value quoted in a message, cut short: a refusal never echoes a long text back. */
function quoted(value: unknown): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value) ?? String(value);
  return JSON.stringify(text.length > 64 ? `${text.slice(0, 64)}…` : text);
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export type CheckedValue = { ok: true; value: AnswerValue } | { ok: false; message: string };

export function checkAnswerValue(question: Question, value: unknown): CheckedValue {
  if (value === null) return { ok: true, value: null };
  const def = questionType(question.type);
  if (def) return def.answer.check(question as BaseQuestion, value as AnswerJson);
  const q = question as BuiltInQuestion;
  switch (q.type) {
    case 'composite':
      return checkCompositeValue(q, value);
  }
}

/**
 * `{ partId: value }`, each value checked as its part type's own answer
 * (null or an empty value leaves the part unanswered and absent). Stored in
 * part order, so equal answers are equal values.
 */
function checkCompositeValue(q: Extract<Question, { type: 'composite' }>, value: unknown): CheckedValue {
  if (!isRecord(value)) return { ok: false, message: 'must be an object of { partId: answer } or null' };
  const out: Record<string, PartValue> = {};
  for (const partId of Object.keys(value)) {
    if (!q.parts.some((p) => p.id === partId)) return { ok: false, message: `${quoted(partId)} is not a part of this question` };
  }
  for (const part of q.parts) {
    if (!(part.id in value)) continue;
    const checked = checkAnswerValue(partQuestion(q, part), value[part.id]);
    if (!checked.ok) return { ok: false, message: `part ${quoted(part.id)} ${checked.message}` };
    if (checked.value !== null) out[part.id] = checked.value as PartValue;
  }
  return { ok: true, value: Object.keys(out).length > 0 ? out : null };
}

// Counts words as the page does: the essay type's (catalog/question-types/essay), named here as before.
export { countWords } from '../catalog/question-types/essay/schema.js';
