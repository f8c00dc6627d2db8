import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../platform/context.js';
import type { Queryable, Tx } from '../../platform/db.js';
import { defineJob, enqueueJob, type JobInfo } from '../../platform/jobs.js';
import { addEventFollower, type StoredEvent } from '../lifecycle/append-event.js';
import type { Score } from '../lifecycle/score.js';
import { errorClassOf } from './guarded-http.js';
import { AGS_SCORE_SCOPE, ltiHttpFor, ltiId } from './lti-context.js';
import { findPlatformById, type PlatformRow } from './lti-repo.js';
import { findScorePost, findScoreTarget, insertScorePost, listScoreAttempts, listScorePosts, recordScoreAttempt } from './links-repo.js';
import { signWithToolKey } from './tool-keys.js';

/**
 * Assignment and Grade Services: the score of an LTI assignment sent to the
 * line item of its launch. For each `exam.completed` and `grading.done` of
 * an assignment whose launch carried a line item, a score post row and its
 * job are written in the event's own transaction (the same outbox rule as
 * webhook deliveries: ltiScoreFanOut is added to the event fan-out by each
 * entry point). The job gets an OAuth2 token (client credentials with a JWT
 * assertion signed by the tool's key, cached until it expires) and POSTs the
 * score; a failure is retried with the queue's backoff, and every HTTP
 * attempt is recorded in lti_score_attempts.
 *
 * The score: `FullyGraded` with `scoreGiven`/`scoreMaximum` when the score is
 * final; `PendingManual` without a score while marking remains (the
 * auto-marked part alone is not a grade). `timestamp` is the event's time, so
 * a platform keeps the newest whatever order retries arrive in.
 */
export const SCORE_CONTENT_TYPE = 'application/vnd.ims.lis.v1.score+json';
/** 1 s doubling to 10 minutes, then every 10 minutes: about five hours of a platform in trouble. */
const SCORE_MAX_ATTEMPTS = 40;
const SCORED_EVENTS = new Set(['exam.completed', 'grading.done']);

export const ltiScoreJob = defineJob({
  kind: 'lti.send_score',
  payload: Type.Object({ scorePostId: Type.String({ minLength: 1 }) }, { additionalProperties: false }),
  maxAttempts: SCORE_MAX_ATTEMPTS,
  run: (ctx: AppContext, payload, job) => sendScore(ctx, payload.scorePostId, job),
});

/** `{lineitem path}/scores`, the line item's query string kept after it (AGS 3.4). */
export function scoresUrlOf(lineitem: string): string {
  const url = new URL(lineitem);
  url.pathname = `${url.pathname.replace(/\/+$/, '')}/scores`;
  return url.toString();
}

export function scoreBody(sub: string, score: Score | null, at: Date): Record<string, unknown> {
  const final = score !== null && score.gradingStatus === 'final';
  return {
    userId: sub,
    ...(final ? { scoreGiven: score.points, scoreMaximum: score.maxPoints } : {}),
    activityProgress: 'Completed',
    gradingProgress: final ? 'FullyGraded' : 'PendingManual',
    timestamp: at.toISOString(),
  };
}

/** The event fan-out's LTI part: runs in the event's transaction. */
export async function ltiScoreFanOut(tx: Tx, event: StoredEvent): Promise<void> {
  if (!event.assignmentId || !SCORED_EVENTS.has(event.type)) return;
  const target = await findScoreTarget(tx, event.assignmentId);
  if (!target) return;
  const score = (event.data.score ?? null) as Score | null;
  const id = ltiId('lsp');
  const inserted = await insertScorePost(tx, {
    id,
    institutionId: event.institutionId,
    assignmentId: event.assignmentId,
    platformId: target.platformId,
    eventId: event.id,
    scoresUrl: scoresUrlOf(target.lineitemUrl),
    body: scoreBody(target.sub, score, event.createdAt),
    now: event.createdAt,
  });
  if (inserted) await enqueueJob(tx, ltiScoreJob, { scorePostId: id }, { runAt: event.createdAt, uniqueKey: `lti-score:${id}` });
}

// ---- tokens

interface CachedToken {
  token: string;
  expiresAt: number;
}
const tokens = new Map<string, CachedToken>();
/** A token is used until this long before it expires. */
const TOKEN_MARGIN_MS = 30_000;

export class TokenError extends Error {
  constructor(readonly statusCode: number | null, message: string) {
    super(message);
  }
}

async function accessToken(ctx: AppContext, platform: PlatformRow): Promise<string> {
  const key = `${platform.id} ${platform.authTokenUrl} ${platform.clientId}`;
  const now = ctx.clock.now().getTime();
  const cached = tokens.get(key);
  if (cached && cached.expiresAt - TOKEN_MARGIN_MS > now) return cached.token;
  const assertion = await signWithToolKey(ctx, { iss: platform.clientId, sub: platform.clientId, aud: platform.authTokenUrl }, { expiresInSeconds: 300 });
  const res = await ltiHttpFor(ctx.config).send(platform.authTokenUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
      client_assertion: assertion,
      scope: AGS_SCORE_SCOPE,
    }).toString(),
  });
  if (res.statusCode !== 200) throw new TokenError(res.statusCode, `the token endpoint answered ${res.statusCode}`);
  let body: { access_token?: unknown; expires_in?: unknown };
  try {
    body = JSON.parse(res.body);
  } catch {
    throw new TokenError(res.statusCode, 'the token endpoint did not answer JSON');
  }
  if (typeof body.access_token !== 'string' || body.access_token === '') throw new TokenError(res.statusCode, 'the token endpoint gave no access_token');
  const lifetime = typeof body.expires_in === 'number' && body.expires_in > 0 ? body.expires_in * 1000 : 3600_000;
  if (tokens.size >= 1000) tokens.delete(tokens.keys().next().value!);
  tokens.set(key, { token: body.access_token, expiresAt: now + lifetime });
  return body.access_token;
}

// ---- the job

/** Status codes worth another try: the platform's trouble, not the request's. */
const retryable = (status: number) => status === 401 || status === 408 || status === 429 || status >= 500;

async function sendScore(ctx: AppContext, scorePostId: string, job: JobInfo): Promise<void> {
  const post = await findScorePost(ctx.pool, scorePostId);
  if (!post || post.status !== 'pending') return;
  const platform = await findPlatformById(ctx.pool, post.platformId);
  if (!platform) return;
  const started = performance.now();
  const record = (db: Queryable, r: { statusCode: number | null; errorClass: string | null; excerpt: string | null; outcome: 'delivered' | 'retry' | 'failed' }) =>
    recordScoreAttempt(db, { scorePostId, at: ctx.clock.now(), durationMs: Math.round(performance.now() - started), ...r });
  const lastTry = job.attempts >= SCORE_MAX_ATTEMPTS;

  let token: string;
  try {
    token = await accessToken(ctx, platform);
  } catch (err) {
    const status = err instanceof TokenError ? err.statusCode : null;
    const permanent = status !== null && !retryable(status);
    await record(ctx.pool, { statusCode: status, errorClass: err instanceof TokenError ? 'token' : errorClassOf(err), excerpt: null, outcome: permanent || lastTry ? 'failed' : 'retry' });
    if (permanent) return;
    throw new Error(`LTI score ${scorePostId}: no token (${err instanceof TokenError ? err.message : errorClassOf(err)})`);
  }
  let res;
  try {
    res = await ltiHttpFor(ctx.config).send(post.scoresUrl, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': SCORE_CONTENT_TYPE },
      body: JSON.stringify(post.body),
    });
  } catch (err) {
    await record(ctx.pool, { statusCode: null, errorClass: errorClassOf(err), excerpt: null, outcome: lastTry ? 'failed' : 'retry' });
    throw new Error(`LTI score ${scorePostId}: ${errorClassOf(err)}`);
  }
  const excerpt = res.body.slice(0, 1024);
  if (res.statusCode >= 200 && res.statusCode < 300) {
    await record(ctx.pool, { statusCode: res.statusCode, errorClass: null, excerpt, outcome: 'delivered' });
    return;
  }
  // A refused token (expired early, revoked): the next try asks for a new one.
  if (res.statusCode === 401) tokens.delete(`${platform.id} ${platform.authTokenUrl} ${platform.clientId}`);
  const permanent = !retryable(res.statusCode);
  await record(ctx.pool, { statusCode: res.statusCode, errorClass: null, excerpt, outcome: permanent || lastTry ? 'failed' : 'retry' });
  if (!permanent) throw new Error(`LTI score ${scorePostId}: the platform answered ${res.statusCode}`);
}

/** Adds the LTI score posts to the event outbox of this process (server.ts, worker.ts call it at start). */
export function installLtiScoreFanOut(): void {
  addEventFollower(ltiScoreFanOut);
}

/** The score posts of an assignment with every attempt, for the operator (and later the portal's assignment page). */
export async function listAssignmentScorePosts(db: Queryable, assignmentId: string) {
  const posts = await listScorePosts(db, assignmentId);
  return Promise.all(
    posts.map(async (p) => ({
      scorePostId: p.id,
      status: p.status,
      scoresUrl: p.scoresUrl,
      score: p.body,
      createdAt: p.createdAt,
      deliveredAt: p.deliveredAt,
      attempts: await listScoreAttempts(db, p.id),
    })),
  );
}
