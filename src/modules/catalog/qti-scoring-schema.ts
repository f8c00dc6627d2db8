import { Type, type Static } from '@sinclair/typebox';

/** A part's id (composite questions), also the id pattern every question part uses. */
export const PartId = Type.String({ pattern: '^[A-Za-z0-9_-]{1,64}$' });

/** The longest declarations or response processing a question may keep, in characters (real items' are a few kB). */
export const QTI_SCORING_MAX_CHARS = 200_000;
/**
 * Imported QTI processing (docs/test-format.md): an answerable question
 * marked by running the item's own response processing rather than by its
 * key. The XML texts are kept as written; `responses` says which of the
 * item's response declarations the answer fills (one per declaration;
 * `partId` names a composite question's part).
 */
export const QtiScoring = Type.Object(
  {
    format: Type.Literal('qti'),
    declarations: Type.String({ minLength: 1, maxLength: QTI_SCORING_MAX_CHARS, description: "The item's response and outcome declarations, as XML" }),
    responseProcessing: Type.String({ minLength: 1, maxLength: QTI_SCORING_MAX_CHARS, description: "The item's response processing element, as XML" }),
    responses: Type.Array(
      Type.Object(
        {
          identifier: Type.String({ minLength: 1, maxLength: 200, description: 'A response declaration of the item' }),
          partId: Type.Optional(PartId),
        },
        { additionalProperties: false },
      ),
      { minItems: 1, maxItems: 50 },
    ),
  },
  { additionalProperties: false, title: 'QtiScoring' },
);
export type QtiScoring = Static<typeof QtiScoring>;
