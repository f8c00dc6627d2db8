import { Type } from '@sinclair/typebox';
import { PartId, QtiScoring } from '../qti-scoring-schema.js';

/**
 * The fields every question type's schema shares (id, prompt, points,
 * passageId; the optional kept QTI `scoring`) and the parts many hold
 * (options, `{ id, text }` entries, references to them). A type's folder
 * builds its schema from these, so every question reads the same at the
 * API; schemas.ts uses them too (it cannot be imported from a type's
 * folder: it is built from the registry).
 */
export const ClientId = Type.String({ pattern: '^[A-Za-z0-9_-]{1,64}$', description: 'Optional; generated (`q_…`) when absent' });
export const Prompt = Type.String({ minLength: 1, maxLength: 10_000 });
export const Points = Type.Number({ exclusiveMinimum: 0, maximum: 10_000 });
/** A reference to a part (an option, a stem, a choice): as long as a part id may be. */
export const PartRef = Type.String({ maxLength: 64 });
export const PartText = Type.String({ minLength: 1, maxLength: 2_000 });
/** An option, a matching stem or choice, an ordering item: an id unique within its list and a text. */
export const Part = Type.Object({ id: PartId, text: PartText }, { additionalProperties: false });
export const Option = Type.Object(
  {
    id: PartId,
    text: PartText,
    fixed: Type.Optional(Type.Boolean({ description: 'With shuffleOptions: this option keeps its place (e.g. "None of the above")' })),
  },
  { additionalProperties: false },
);
/** A passage of the test (its `passages`) shown beside the question; several questions may share one. */
export const PassageRef = Type.String({ pattern: '^[A-Za-z0-9_-]{1,64}$', description: "The id of one of the test's passages, shown beside the question" });
/** id, prompt, points, passageId: spread first into every question type's schema. */
export const common = { id: Type.Optional(ClientId), prompt: Prompt, points: Points, passageId: Type.Optional(PassageRef) };
/** Imported QTI processing the question keeps (catalog/qti-scoring.ts): spread into a type marked by its key. */
export const scoring = { scoring: Type.Optional(QtiScoring) };
export const shuffleOptions = Type.Optional(Type.Boolean({ default: false, description: 'Show the options in a per-candidate order; fixed options keep their place' }));
export { PartId };
