import { Type, type Static } from '@sinclair/typebox';
import { common, PartId, scoring } from '../common-fields.js';

/**
 * A hot text question (QTI hottextInteraction): a text in which some
 * phrases are buttons the candidate presses to choose them. `text` places
 * each hotspot as `{{id}}`, as fill_blanks places its blanks.
 */
export const HotTextSchema = Type.Object(
  {
    type: Type.Literal('hot_text'),
    ...common,
    text: Type.String({ minLength: 1, maxLength: 20_000, description: 'The text the phrases sit in; each hotspot is written {{id}} where its phrase goes, once' }),
    hotspots: Type.Array(
      Type.Object(
        { id: PartId, phrase: Type.String({ minLength: 1, maxLength: 500, description: 'The words shown in the text (and naming the button)' }) },
        { additionalProperties: false },
      ),
      { minItems: 1, maxItems: 100, description: 'The choosable phrases' },
    ),
    correct: Type.Array(Type.String({ maxLength: 64 }), { minItems: 1, maxItems: 100, description: 'The ids of the hotspots a right answer chooses' }),
    maxChoices: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 100, description: 'At most this many phrases may be chosen (at least as many as are correct); absent: any number' }),
    ),
    ...scoring,
  },
  { additionalProperties: false, title: 'HotTextQuestion' },
);
/** As stored: every question has its id by then. */
export type HotTextQuestion = Static<typeof HotTextSchema> & { id: string };

/** Hotspots are placed in the text as {{id}}, as fill_blanks places blanks. */
export const HOTSPOT_PLACEHOLDER = /\{\{\s*([A-Za-z0-9_-]{1,64})\s*\}\}/g;

/** The rule both the marking and the QTI mapping follow: points × (right picks − wrong picks) ÷ correct hotspots, never below 0. */
export function hotTextFraction(q: Pick<HotTextQuestion, 'correct'>, chosen: readonly string[]): number {
  const correct = new Set(q.correct);
  const picked = new Set(chosen);
  const right = [...picked].filter((id) => correct.has(id)).length;
  const wrong = picked.size - right;
  return Math.max(0, (right - wrong) / correct.size);
}
