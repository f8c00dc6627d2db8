import type { AssignmentsContext } from '../../assignments/context.js';
import { findAssignment } from '../../assignments/find-assignment.js';
import { getAssignment, type PartnerView } from '../../assignments/get-assignment.js';
import { deliveredTestOf } from '../../attempts/delivered-test.js';
import { asShown } from '../../catalog/delivery.js';
import { currentAnswerFiles, summaryOf, type AnswerFileSummary } from '../../attempts/answer-files.js';
import type { EventEnvelope } from '../../lifecycle/event-envelope.js';
import { listAssignmentEvents } from '../../events/list-events.js';
import { getMarkingView, type MarkingView } from '../../marking/get-marking-view.js';
import type { Question } from '../../catalog/schemas.js';
import type { TestVersion } from '../../catalog/tests-service.js';
import { listDeliveriesOfEvents } from '../../webhooks/event-deliveries.js';
import type { DeliveryView } from '../../webhooks/event-deliveries.js';
import { notFound } from '../../../platform/errors.js';
import { scorePostLog, type ScorePostLogEntry } from '../../lti/score-log.js';

/**
 * Everything the assignment page shows, from the owning modules' services:
 * the partner's view of the assignment (which also expires it if due), its
 * test version (for option texts), answers and marks, and its events with
 * every webhook delivery attempt. Scoped: another institution's id is 404.
 */
export interface AssignmentRecord {
  assignment: PartnerView;
  test: TestVersion;
  questions: Map<string, Question>;
  marking: MarkingView;
  events: Array<EventEnvelope & { deliveries: DeliveryView[] }>;
  /** False for an assignment made with a test-mode key. */
  livemode: boolean;
  /** The files that answer file_upload questions, by question id. */
  files: Map<string, AnswerFileSummary>;
  /** The grades sent to the LMS, for an assignment an LTI launch made (empty otherwise). */
  ltiScores: ScorePostLogEntry[];
}

export async function loadAssignmentRecord(ctx: AssignmentsContext, institutionId: string, assignmentId: string): Promise<AssignmentRecord> {
  const assignment = await getAssignment(ctx, institutionId, assignmentId);
  const row = await findAssignment(ctx.pool, institutionId, assignmentId);
  if (!row) throw notFound('assignment');
  const [test, marking, events, files, ltiScores] = await Promise.all([
    deliveredTestOf(ctx.pool, row),
    getMarkingView(ctx.pool, assignmentId, { institutionId }),
    listAssignmentEvents(ctx.pool, institutionId, assignmentId, ctx.clock.now()),
    currentAnswerFiles(ctx.pool, institutionId, assignmentId),
    scorePostLog(ctx.pool, institutionId, assignmentId),
  ]);
  const deliveries = await listDeliveriesOfEvents(ctx.pool, institutionId, events.map((e) => e.id));
  return {
    assignment,
    test,
    // Options in the order the candidate saw them.
    questions: new Map(test.questions.map((q) => [q.id, asShown(q, test.delivery)])),
    marking,
    events: events.map((e) => ({ ...e, deliveries: deliveries.get(e.id) ?? [] })),
    livemode: row.livemode,
    files: new Map([...files].map(([q, f]) => [q, summaryOf(f)])),
    ltiScores,
  };
}
