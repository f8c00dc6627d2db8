import type { AppContext } from '../../platform/context.js';
import { notFound } from '../../platform/errors.js';
import { setCandidateLocale } from '../assignments/candidate-locale.js';
import type { StudentSession } from '../assignments/student-sessions.js';

/** The candidate's choice on the Language menu (one of the catalogues' tags, checked by the route's schema), for their own assignment only. */
export async function chooseCandidateLocale(ctx: AppContext, session: StudentSession, assignmentId: string, locale: string): Promise<void> {
  const changed = await setCandidateLocale(ctx.pool, { institutionId: session.institutionId, assignmentId, userId: session.userId, locale });
  if (!changed) throw notFound('assignment');
}
