import type { AppContext } from '../../../platform/context.js';
import { AppError, type ErrorDetail } from '../../../platform/errors.js';
import type { Tenant } from '../../../platform/principal.js';
import { getMarkingView, type MarkingView } from '../get-marking-view.js';
import { recordMarks } from '../record-marks.js';

/**
 * A reviewer accepts the model's suggestions: each chosen item (all items
 * with a stored suggestion when `questionIds` is absent) is marked with the
 * suggested points (per criterion, for a question with criteria), as the reviewer's mark, through the ordinary marks path
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
  const suggested = new Map(view.items.filter((i) => i.needsMarking && i.ai?.status === 'suggested').map((i) => [i.questionId, i.ai!]));
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
      // A question with criteria is marked per criterion: the model's criterion points become the reviewer's (their sum is the suggestion's total).
      marks: chosen.map((questionId) => {
        const ai = suggested.get(questionId)!;
        const criteria = view.items.find((i) => i.questionId === questionId)?.criteria;
        return criteria && ai.criteria
          ? { questionId, criteria: ai.criteria.map((c) => ({ criterion: c.criterion, points: c.points })) }
          : { questionId, points: ai.points! };
      }),
      complete: input.complete,
      ...(input.markedBy !== undefined ? { markedBy: input.markedBy } : {}),
    },
    scope,
  );
}
