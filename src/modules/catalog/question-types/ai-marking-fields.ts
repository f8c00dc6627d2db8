import { Type } from '@sinclair/typebox';
import type { ErrorDetail } from '../../../platform/errors.js';
import { StringEnum } from '../../../platform/http/schemas.js';
import { AI_MARKING_MODES } from '../test-settings.js';

/** AI marking of a free-text item (docs/ai-marking.md); the authoring rules check the rest. */
export const AiMarking = Type.Object(
  {
    mode: StringEnum(AI_MARKING_MODES, {
      description: 'suggest: a reviewer sees the suggestion and marks; decide: a confident, unflagged suggestion becomes the mark',
    }),
    minConfidence: Type.Number({ minimum: 0, maximum: 1, description: 'decide: the model must be at least this sure (0–1)' }),
  },
  { additionalProperties: false, title: 'AiMarking' },
);
export const Criterion = Type.Object(
  {
    criterion: Type.String({ minLength: 1, maxLength: 200, description: 'A short name, unique within the question' }),
    points: Type.Number({ minimum: 0, maximum: 10_000 }),
    description: Type.String({ maxLength: 4_000, description: 'What earns the points' }),
  },
  { additionalProperties: false, title: 'Criterion' },
);
/** Free-text items may be marked against criteria whose points sum to the question's points. */
export const aiFields = {
  aiMarking: Type.Optional(AiMarking),
  criteria: Type.Optional(Type.Array(Criterion, { minItems: 1, maxItems: 50 })),
};

/** Criteria (free-text and file questions): unique names, points summing to the question's. */
export function checkCriteria(q: { points: number; criteria?: Array<{ criterion: string; points: number }> }, at: string, details: ErrorDetail[]): void {
  if (!q.criteria) return;
  const names = new Set<string>();
  q.criteria.forEach((c, j) => {
    const key = c.criterion.trim().toLowerCase();
    if (names.has(key)) details.push({ field: `${at}.criteria.${j}.criterion`, message: `duplicates criterion "${c.criterion}"` });
    names.add(key);
  });
  const sum = q.criteria.reduce((s, c) => s + c.points, 0);
  // Points are kept to 4 decimals elsewhere; a sum of thirds may differ from the total in the last binary digits.
  if (Math.abs(sum - q.points) > 1e-6) {
    details.push({ field: `${at}.criteria`, message: `points sum to ${Math.round(sum * 10_000) / 10_000}, but the question is worth ${q.points}` });
  }
}
