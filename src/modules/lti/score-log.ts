import type { Queryable } from '../../platform/db.js';
import { listFailedScorePosts, listScoreAttempts, listScorePostsWithNextAttempt } from './links-repo.js';

/**
 * The grades sent to the LMS for one assignment, for the portal's
 * assignment page: each score (its gradingProgress and points), its status,
 * every HTTP attempt with the outcome in words, and the next retry. Only
 * status codes and error classes are shown: never a token, an assertion or
 * the platform's answer body.
 */
export interface ScoreAttemptView {
  attemptedAt: Date;
  statusCode: number | null;
  /** What happened, in words an institution's admin can act on. */
  outcome: string;
  durationMs: number;
}

export interface ScorePostLogEntry {
  scorePostId: string;
  issuer: string;
  status: 'pending' | 'delivered' | 'failed';
  gradingProgress: string;
  scoreGiven: number | null;
  scoreMaximum: number | null;
  createdAt: Date;
  deliveredAt: Date | null;
  nextAttemptAt: Date | null;
  attempts: ScoreAttemptView[];
}

const NETWORK_WORDS: Record<string, string> = {
  connection_refused: 'The LMS could not be reached (connection refused).',
  dns: "The LMS's host name could not be resolved.",
  timeout: 'The LMS did not answer in time.',
  connection_reset: 'The connection to the LMS was cut off.',
  address_not_allowed: "The LMS's address is in a private network, where Assay never connects.",
  network: 'The LMS could not be reached (network error).',
};

/** One attempt's outcome in words, from its status code and error class only. */
export function attemptInWords(statusCode: number | null, errorClass: string | null): string {
  if (errorClass === 'token') {
    if (statusCode === null) return 'The LMS token endpoint gave no usable access token.';
    if (statusCode === 400 || statusCode === 401) {
      return `The LMS token endpoint refused Assay's credentials (HTTP ${statusCode}): check the client id and that the LMS has Assay's public key set URL.`;
    }
    if (statusCode >= 500) return `The LMS token endpoint had an error (HTTP ${statusCode}).`;
    return `The LMS token endpoint refused to issue a token (HTTP ${statusCode}).`;
  }
  if (statusCode === null) return NETWORK_WORDS[errorClass ?? 'network'] ?? NETWORK_WORDS.network!;
  if (statusCode >= 200 && statusCode < 300) return `Accepted by the LMS (HTTP ${statusCode}).`;
  if (statusCode === 401) return 'The LMS did not accept the access token (HTTP 401); a new token is requested on the next try.';
  if (statusCode === 403) return 'The LMS refused: Assay may not post scores to this gradebook column (HTTP 403). Check that the tool has the grade (AGS score) permission.';
  if (statusCode === 404) return 'The gradebook column no longer exists in the LMS (HTTP 404); it may have been deleted.';
  if (statusCode === 429) return 'The LMS asked Assay to slow down (HTTP 429).';
  if (statusCode >= 500) return `The LMS had an error (HTTP ${statusCode}).`;
  return `The LMS refused the score (HTTP ${statusCode}).`;
}

const num = (v: unknown) => (typeof v === 'number' ? v : null);

export async function scorePostLog(db: Queryable, institutionId: string, assignmentId: string): Promise<ScorePostLogEntry[]> {
  const posts = await listScorePostsWithNextAttempt(db, institutionId, assignmentId);
  return Promise.all(
    posts.map(async (p) => ({
      scorePostId: p.id,
      issuer: p.issuer,
      status: p.status,
      gradingProgress: String(p.body.gradingProgress ?? ''),
      scoreGiven: num(p.body.scoreGiven),
      scoreMaximum: num(p.body.scoreMaximum),
      createdAt: p.createdAt,
      deliveredAt: p.deliveredAt,
      nextAttemptAt: p.nextAttemptAt,
      attempts: (await listScoreAttempts(db, p.id)).map((a) => ({
        attemptedAt: a.attemptedAt,
        statusCode: a.statusCode,
        outcome: attemptInWords(a.statusCode, a.errorClass),
        durationMs: a.durationMs,
      })),
    })),
  );
}

export interface RefusedScore {
  assignmentId: string;
  createdAt: Date;
  attemptedAt: Date | null;
  outcome: string;
}

/** The scores a platform did not accept in the last `days` days (at most 50, newest first), for the institution's admins. */
export async function refusedScores(db: Queryable, institutionId: string, platformId: string, now: Date, days = 30): Promise<RefusedScore[]> {
  const since = new Date(now.getTime() - days * 24 * 60 * 60 * 1000);
  const rows = await listFailedScorePosts(db, institutionId, platformId, since, 50);
  return rows.map((r) => ({ assignmentId: r.assignmentId, createdAt: r.createdAt, attemptedAt: r.attemptedAt, outcome: attemptInWords(r.statusCode, r.errorClass) }));
}
