import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../../platform/context.js';
import { Nullable, StringEnum, errors } from '../../../platform/http/schemas.js';
import { MarkingParams, MarkingView } from '../schemas.js';
import { AI_MARKING_MODES } from '../../catalog/test-settings.js';
import { acceptAiSuggestions } from './accept-ai-suggestions.js';
import { getAiAgreement } from './get-ai-agreement.js';

const TestParams = Type.Object({ testId: Type.String({ maxLength: 64 }) });

export const AiAgreementSchema = Type.Object(
  {
    testId: Type.String(),
    questions: Type.Array(
      Type.Object({
        questionId: Type.String(),
        prompt: Nullable(Type.String(), { description: 'Null for a question no longer in the current version' }),
        mode: Nullable(StringEnum(AI_MARKING_MODES)),
        maxPoints: Type.Number(),
        n: Type.Integer({ description: 'Items both the model and a reviewer marked' }),
        exactAgreement: Nullable(Type.Number(), { description: "Share of items where the reviewer's points equal the model's (0–1)" }),
        meanAbsoluteDifference: Nullable(Type.Number(), { description: 'Mean |reviewer − model| in points' }),
        quadraticWeightedKappa: Nullable(Type.Number(), {
          description: 'Cohen’s kappa with quadratic weights on points rounded to 0..maxPoints; null when undefined (no pair, or no variation)',
        }),
      }),
    ),
  },
  { title: 'AiAgreement' },
);

export const AcceptSuggestionsBody = Type.Object(
  {
    questionIds: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 64 }), { maxItems: 500, description: 'Items to accept; every item with a suggestion when absent' }),
    ),
    complete: Type.Boolean({ description: 'true: finish marking as well (every item awaiting a mark must then have one)' }),
    markedBy: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'Who accepted, for the record' })),
  },
  { additionalProperties: false, title: 'AcceptAiSuggestions' },
);

/** Operator routes of AI marking: agreement figures per test, and accepting suggestions as a reviewer's marks. */
export const aiMarkingAdminRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.get(
    '/tests/:testId/ai-agreement',
    {
      schema: {
        tags: ['Marking'],
        operationId: 'getAiAgreement',
        summary: 'Agreement between AI marking and reviewers, per question: n, exact agreement, mean absolute difference, quadratic weighted kappa',
        params: TestParams,
        response: { 200: AiAgreementSchema, ...errors(401, 404) },
      },
    },
    async (request) => getAiAgreement(ctx.pool, request.params.testId, { kind: 'operator' }),
  );
  app.post(
    '/assignments/:assignmentId/ai-suggestions/accept',
    {
      schema: {
        tags: ['Marking'],
        operationId: 'acceptAiSuggestions',
        summary: "Accept the model's suggestions as the reviewer's marks; with complete: true, finish marking",
        params: MarkingParams,
        body: AcceptSuggestionsBody,
        response: { 200: MarkingView, ...errors(400, 401, 404, 409, 413, 415) },
      },
    },
    async (request) => acceptAiSuggestions(ctx, request.params.assignmentId, request.body, { kind: 'operator' }),
  );
};
