import { Type } from '@sinclair/typebox';
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
