import type { AppContext } from '../../../platform/context.js';
import { AppError, type ErrorDetail } from '../../../platform/errors.js';
import type { Tenant } from '../../../platform/principal.js';
import { getMarkingView, type MarkingView } from '../get-marking-view.js';
import { recordMarks } from '../record-marks.js';

/**
 * A reviewer accepts the model's suggestions: each chosen item (all items
 * with a stored suggestion when `questionIds` is absent) is marked with the
 * suggested points, as the reviewer's mark, through the ordinary marks path
 * (record-marks.ts), so the item counts as agreeing in the agreement figures.
 * With `complete`, marking finishes as when a reviewer enters the points
 * (refused while another item still awaits a mark). To change a suggestion,
 * a reviewer records their own points instead (POST …/marks).
 */
export interface AcceptInput {
  questionIds?: string[];
  complete: boolean;
  markedBy?: string;
}

export async function acceptAiSuggestions(
  ctx: AppContext,
  assignmentId: string,
  input: AcceptInput,
  scope: Tenant,
): Promise<MarkingView> {
  const view = await getMarkingView(ctx.pool, assignmentId, scope);
  const suggested = new Map(view.items.filter((i) => i.needsMarking && i.ai?.status === 'suggested').map((i) => [i.questionId, i.ai!.points!]));
  const chosen = input.questionIds ?? [...suggested.keys()];
  const details: ErrorDetail[] = [];
  chosen.forEach((id, i) => {
    if (!suggested.has(id)) details.push({ field: `questionIds.${i}`, message: 'has no AI suggestion to accept' });
    else if (chosen.indexOf(id) !== i) details.push({ field: `questionIds.${i}`, message: 'appears twice' });
  });
  if (details.length > 0) throw new AppError('invalid_request', `${details[0]!.field}: ${details[0]!.message}`, details);
  return recordMarks(
    ctx,
    assignmentId,
    {
      marks: chosen.map((questionId) => ({ questionId, points: suggested.get(questionId)! })),
      complete: input.complete,
      ...(input.markedBy !== undefined ? { markedBy: input.markedBy } : {}),
    },
    scope,
  );
}
