import { Type, type Static } from '@sinclair/typebox';
import { declareJob } from '../../../platform/jobs.js';

const AiMarkPayload = Type.Object(
  { institutionId: Type.String({ minLength: 1 }), assignmentId: Type.String({ minLength: 1 }), questionId: Type.String({ minLength: 1 }) },
  { additionalProperties: false },
);
export type AiMarkPayload = Static<typeof AiMarkPayload>;

/**
 * The `marking.ai_mark` job: one model call for one item. Declared apart from
 * its handler (run-ai-mark-job.ts), so the submission that enqueues it
 * imports nothing of the model client.
 */
export const aiMarkJob = declareJob({ kind: 'marking.ai_mark', payload: AiMarkPayload });
