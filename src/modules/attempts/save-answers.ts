import type { AppContext } from '../../platform/context.js';
import { AppError, notFound, type ErrorDetail } from '../../platform/errors.js';
import { capDetails } from '../../platform/http/validation.js';
import { recordStudentSaves } from '../../platform/telemetry/metrics.js';
import type { AnswerValue } from './answer-values.js';
import type { Question } from '../catalog/schemas.js';
import { checkAnswerValue } from './answer-values.js';
import { answerVersions } from './attempts-repo.js';
import { findAttempt, type Attempt } from './find-attempt.js';
import { saveAnswersBatched } from './save-batcher.js';
import { forgetRecentSession, sessionIsLive, type StudentSession } from '../assignments/student-sessions.js';
import { cachedTestVersion, loadTestVersion } from '../catalog/test-versions.js';
import { acceptsSaves, SUBMIT_GRACE_MS } from './timing.js';

export interface AnswerInput {
  questionId: string;
  value: unknown;
  /** Increases with every edit in the browser; the server keeps the highest. */
  version: number;
}

export interface SaveResult {
  questionId: string;
  /** The version stored after this save: equal to the one sent when it was stored, higher when a newer edit already was. */
  version: number;
  saved: boolean;
}

/**
 * An attempt's owner and test version never change once it has begun, so
 * the hot autosave path keeps them in memory: with the session from the
 * process's recent ones (sessions.ts), a save is then one prepared
 * statement, shared with the other saves of the same moment
 * (save-batcher.ts), which itself checks the session and the open attempt. The deadline is cached too, but the institution
 * can move it (extra time), so it only serves to refuse early: a cached
 * deadline that says "closed" is read again, and the save statement itself
 * checks the stored deadline and the submission under a row lock.
 */
const MAX_CACHED = 20_000;
type AttemptFacts = Pick<Attempt, 'institutionId' | 'userId' | 'testVersionId' | 'deadlineAt' | 'delivery'>;
const attempts = new Map<string, AttemptFacts>();

/** The cached facts without a promise: the attempt, null when it is another institution's, undefined when not cached. */
function cachedFacts(institutionId: string, assignmentId: string): AttemptFacts | null | undefined {
  const hit = attempts.get(assignmentId);
  return hit === undefined ? undefined : hit.institutionId === institutionId ? hit : null;
}

function remember(assignmentId: string, facts: AttemptFacts): void {
  attempts.delete(assignmentId);
  if (attempts.size >= MAX_CACHED) attempts.delete(attempts.keys().next().value!);
  attempts.set(assignmentId, facts);
}

async function attemptFacts(ctx: AppContext, institutionId: string, assignmentId: string, fresh = false) {
  if (fresh) attempts.delete(assignmentId);
  const cached = cachedFacts(institutionId, assignmentId);
  if (cached !== undefined) return cached;
  const found = await findAttempt(ctx.pool, institutionId, assignmentId);
  if (found) remember(assignmentId, found);
  return found;
}

/**
 * Begin knows every fact a save needs (it just wrote them), so it leaves them
 * here: the student's first save then makes no lookup of its own. Another
 * process, or this one after a restart, looks them up on its first save.
 */
export function rememberBegunAttempt(facts: AttemptFacts & Pick<Attempt, 'assignmentId'>): void {
  const { assignmentId, ...kept } = facts;
  remember(assignmentId, kept);
}

/** The question ids drawn for the attempt, kept with the cached facts; null when every question was given (no stored delivery). */
const drawn = new WeakMap<object, Set<string>>();
function drawnIds(attempt: Pick<Attempt, 'delivery'>): Set<string> | null {
  if (!attempt.delivery) return null;
  let ids = drawn.get(attempt.delivery);
  if (!ids) drawn.set(attempt.delivery, (ids = new Set(attempt.delivery.sections.flatMap((s) => s.questionIds))));
  return ids;
}

/**
 * A version's questions by id, kept with the cached version (test-versions.ts): built once per
 * version, not on every save, where a test of 80 questions would allocate 80 entries per save.
 */
const questionIndexes = new WeakMap<object, Map<string, Question>>();
function questionsById(test: { questions: readonly Question[] }): Map<string, Question> {
  let byId = questionIndexes.get(test);
  if (!byId) questionIndexes.set(test, (byId = new Map(test.questions.map((q) => [q.id, q]))));
  return byId;
}

/**
 * Autosave: stores each answer unless a newer version of it is stored
 * already, so a stale save (a late retry, an older tab) never overwrites a
 * newer answer and a replayed save is harmless. All answers of a request are
 * checked first; one bad answer refuses the request and stores nothing.
 * Refused once the attempt is submitted or past its deadline plus grace.
 */
export async function saveAnswers(
  ctx: AppContext,
  session: StudentSession,
  assignmentId: string,
  answers: AnswerInput[],
): Promise<{ results: SaveResult[]; serverTime: Date }> {
  try {
    const saved = await save(ctx, session, assignmentId, answers);
    const stored = saved.results.filter((r) => r.saved).length;
    recordStudentSaves('saved', stored);
    recordStudentSaves('stale', saved.results.length - stored);
    return saved;
  } catch (err) {
    recordStudentSaves('refused');
    throw err;
  }
}

async function save(ctx: AppContext, session: StudentSession, assignmentId: string, answers: AnswerInput[]): Promise<{ results: SaveResult[]; serverTime: Date }> {
  const now = ctx.clock.now();
  // The cached facts and version are read without a promise: a save that finds both makes no await before its statement.
  const cached = cachedFacts(session.institutionId, assignmentId);
  let attempt = cached !== undefined ? cached : await attemptFacts(ctx, session.institutionId, assignmentId);
  if (!attempt || attempt.userId !== session.userId) throw notFound('attempt');
  if (!acceptsSaves(attempt.deadlineAt, now)) attempt = (await attemptFacts(ctx, session.institutionId, assignmentId, true))!;

  const test = cachedTestVersion(attempt.testVersionId) ?? (await loadTestVersion(ctx.pool, attempt.testVersionId));
  const byId = questionsById(test);
  const given = drawnIds(attempt);
  const details: ErrorDetail[] = [];
  const seen = new Set<string>();
  const checked: Array<{ questionId: string; value: AnswerValue; version: number }> = [];
  answers.forEach((a, i) => {
    const q = byId.get(a.questionId);
    if (!q) return details.push({ field: `answers.${i}.questionId`, message: 'is not a question of this test' });
    if (given && !given.has(a.questionId)) return details.push({ field: `answers.${i}.questionId`, message: 'was not drawn for this assignment' });
    if (seen.has(a.questionId)) return details.push({ field: `answers.${i}.questionId`, message: 'appears twice' });
    seen.add(a.questionId);
    const value = checkAnswerValue(q, a.value);
    if (!value.ok) return details.push({ field: `answers.${i}.value`, message: value.message });
    checked.push({ questionId: a.questionId, value: value.value, version: a.version });
  });
  if (details.length > 0) throw new AppError('invalid_request', `${details[0]!.field}: ${details[0]!.message}`, capDetails(details, 'body'));
  if (!acceptsSaves(attempt.deadlineAt, now)) throw new AppError('invalid_state', 'Time is up; answers can no longer change.');

  const written = await saveAnswersBatched(ctx.pool, {
    sessionIdHash: session.idHash,
    assignmentId,
    institutionId: attempt.institutionId,
    answers: checked,
    now,
    deadlineNotBefore: new Date(now.getTime() - SUBMIT_GRACE_MS),
  });
  let current = written;
  if (written.size < checked.length) {
    // Something was not written: the session ended, the attempt is closed (submitted, cancelled, or its deadline moved), or those saves were stale.
    if (!(await sessionIsLive(ctx.pool, session.idHash, now))) {
      forgetRecentSession(session.idHash);
      throw new AppError('unauthenticated', 'Your session has ended. Open the test link again.');
    }
    const stored = await findAttempt(ctx.pool, attempt.institutionId, assignmentId);
    if (stored?.submittedBy === 'cancelled') throw new AppError('invalid_state', 'This test has been withdrawn; answers can no longer change.');
    if (stored?.submittedAt) throw new AppError('invalid_state', 'This test has been submitted; answers can no longer change.');
    if (stored && !acceptsSaves(stored.deadlineAt, now)) {
      await attemptFacts(ctx, session.institutionId, assignmentId, true);
      throw new AppError('invalid_state', 'Time is up; answers can no longer change.');
    }
    const missing = checked.filter((a) => !written.has(a.questionId)).map((a) => a.questionId);
    current = new Map([...written, ...(await answerVersions(ctx.pool, attempt.institutionId, assignmentId, missing))]);
  }
  const results = checked.map((a) => {
    const version = current.get(a.questionId) ?? a.version;
    return { questionId: a.questionId, version, saved: version === a.version };
  });
  return { results, serverTime: now };
}
