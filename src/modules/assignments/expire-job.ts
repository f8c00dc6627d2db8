import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../platform/context.js';
import { defineJob } from '../../platform/jobs.js';
import { runExpireJob } from './get-assignment.js';

/**
 * `assignment.expire`: due at dueAt, written with the assignment (and moved
 * or cancelled with its dueAt). Expiring twice is harmless: the state
 * machine refuses the second.
 */
export const expireAssignmentJob = defineJob({
  kind: 'assignment.expire',
  payload: Type.Object({ assignmentId: Type.String({ minLength: 1 }) }, { additionalProperties: false }),
  run: (ctx: AppContext, payload) => runExpireJob(ctx.pool, payload.assignmentId, ctx.clock.now()),
});

export const expireJobKey = (assignmentId: string) => `expire:${assignmentId}`;
