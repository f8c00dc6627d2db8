import type { Queryable } from '../../platform/db.js';

/**
 * The LTI module's SQL of what launches leave behind: resource links, the
 * assignment of each (link, user), and the score posts to line items with
 * their attempts (migrations/0022_lti.sql).
 */
// ---- resource links and their assignments

export async function upsertResourceLink(
  db: Queryable,
  l: { platformId: string; resourceLinkId: string; institutionId: string; testId: string; contextId: string | null; contextTitle: string | null; title: string | null; lineitemUrl: string | null; now: Date },
): Promise<void> {
  await db.query(
    `INSERT INTO lti_resource_links (platform_id, resource_link_id, institution_id, test_id, context_id, context_title, title, lineitem_url, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9)
     ON CONFLICT (platform_id, resource_link_id) DO UPDATE
       SET test_id = EXCLUDED.test_id, context_id = EXCLUDED.context_id, context_title = EXCLUDED.context_title,
           title = EXCLUDED.title, lineitem_url = COALESCE(EXCLUDED.lineitem_url, lti_resource_links.lineitem_url), updated_at = EXCLUDED.updated_at`,
    [l.platformId, l.resourceLinkId, l.institutionId, l.testId, l.contextId, l.contextTitle, l.title, l.lineitemUrl, l.now],
  );
}

export async function findLinkAssignment(db: Queryable, platformId: string, resourceLinkId: string, sub: string): Promise<string | null> {
  const { rows } = await db.query(
    `SELECT la.assignment_id FROM lti_link_assignments la JOIN assignments a ON a.id = la.assignment_id
      WHERE la.platform_id = $1 AND la.resource_link_id = $2 AND la.sub = $3`,
    [platformId, resourceLinkId, sub],
  );
  return rows[0]?.assignment_id ?? null;
}

/** Returns the assignment of the (link, user): `assignmentId` unless another launch recorded one first. */
export async function insertLinkAssignment(
  db: Queryable,
  l: { platformId: string; resourceLinkId: string; sub: string; assignmentId: string; institutionId: string; lineitemUrl: string | null; now: Date },
): Promise<string> {
  const { rows } = await db.query(
    `WITH ins AS (
       INSERT INTO lti_link_assignments (platform_id, resource_link_id, sub, assignment_id, institution_id, lineitem_url, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (platform_id, resource_link_id, sub) DO NOTHING RETURNING assignment_id)
     SELECT assignment_id FROM ins
     UNION ALL SELECT assignment_id FROM lti_link_assignments WHERE platform_id = $1 AND resource_link_id = $2 AND sub = $3
     LIMIT 1`,
    [l.platformId, l.resourceLinkId, l.sub, l.assignmentId, l.institutionId, l.lineitemUrl, l.now],
  );
  return rows[0].assignment_id;
}

export async function updateLinkLineItem(db: Queryable, assignmentId: string, lineitemUrl: string): Promise<void> {
  await db.query('UPDATE lti_link_assignments SET lineitem_url = $2 WHERE assignment_id = $1', [assignmentId, lineitemUrl]);
}

export interface LinkLearner {
  /** The latest score sent to the gradebook: its state, what it said, and the platform's last answer. */
  score: { status: 'pending' | 'delivered' | 'failed'; gradingProgress: string | null; lastStatusCode: number | null } | null;
  assignmentId: string;
  name: string | null;
  email: string;
  status: string;
  startedAt: Date | null;
  submittedAt: Date | null;
  completedAt: Date | null;
}

/** The learners of one resource link, for the instructor's page. */
export async function listLinkLearners(db: Queryable, platformId: string, resourceLinkId: string): Promise<LinkLearner[]> {
  // With each learner, the latest score post and the status code of its latest attempt.
  const { rows } = await db.query(
    `SELECT a.id, u.name, u.email, a.status, a.started_at, a.submitted_at, a.completed_at,
            sp.status AS score_status, sp.body ->> 'gradingProgress' AS grading_progress, att.status_code AS last_status_code
       FROM lti_link_assignments la
       JOIN assignments a ON a.id = la.assignment_id
       JOIN users u ON u.id = a.user_id
       LEFT JOIN LATERAL (SELECT id, status, body FROM lti_score_posts WHERE assignment_id = a.id ORDER BY created_at DESC, id DESC LIMIT 1) sp ON true
       LEFT JOIN LATERAL (SELECT status_code FROM lti_score_attempts WHERE score_post_id = sp.id ORDER BY id DESC LIMIT 1) att ON true
      WHERE la.platform_id = $1 AND la.resource_link_id = $2
      ORDER BY la.created_at, a.id LIMIT 500`,
    [platformId, resourceLinkId],
  );
  return rows.map((r) => ({
    assignmentId: r.id, name: r.name, email: r.email, status: r.status, startedAt: r.started_at, submittedAt: r.submitted_at, completedAt: r.completed_at,
    score: r.score_status ? { status: r.score_status, gradingProgress: r.grading_progress, lastStatusCode: r.last_status_code } : null,
  }));
}

// ---- score posts

export interface ScoreTarget {
  platformId: string;
  sub: string;
  lineitemUrl: string;
}

export async function findScoreTarget(db: Queryable, assignmentId: string): Promise<ScoreTarget | null> {
  const { rows } = await db.query(
    'SELECT platform_id, sub, lineitem_url FROM lti_link_assignments WHERE assignment_id = $1 AND lineitem_url IS NOT NULL',
    [assignmentId],
  );
  const r = rows[0];
  return r ? { platformId: r.platform_id, sub: r.sub, lineitemUrl: r.lineitem_url } : null;
}

export async function insertScorePost(
  db: Queryable,
  p: { id: string; institutionId: string; assignmentId: string; platformId: string; eventId: string; scoresUrl: string; body: object; now: Date },
): Promise<boolean> {
  const { rowCount } = await db.query(
    `INSERT INTO lti_score_posts (id, institution_id, assignment_id, platform_id, event_id, scores_url, body, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (event_id) DO NOTHING`,
    [p.id, p.institutionId, p.assignmentId, p.platformId, p.eventId, p.scoresUrl, JSON.stringify(p.body), p.now],
  );
  return rowCount === 1;
}

export interface ScorePostRow {
  id: string;
  institutionId: string;
  assignmentId: string;
  platformId: string;
  scoresUrl: string;
  body: Record<string, unknown>;
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  createdAt: Date;
  deliveredAt: Date | null;
}

function toScorePost(r: Record<string, any>): ScorePostRow {
  return {
    id: r.id, institutionId: r.institution_id, assignmentId: r.assignment_id, platformId: r.platform_id, scoresUrl: r.scores_url,
    body: r.body, status: r.status, attempts: r.attempts, createdAt: r.created_at, deliveredAt: r.delivered_at,
  };
}

export async function findScorePost(db: Queryable, id: string): Promise<ScorePostRow | null> {
  const { rows } = await db.query('SELECT * FROM lti_score_posts WHERE id = $1', [id]);
  return rows[0] ? toScorePost(rows[0]) : null;
}

export async function listScorePosts(db: Queryable, assignmentId: string): Promise<ScorePostRow[]> {
  const { rows } = await db.query('SELECT * FROM lti_score_posts WHERE assignment_id = $1 ORDER BY created_at, id', [assignmentId]);
  return rows.map(toScorePost);
}

export async function recordScoreAttempt(
  db: Queryable,
  a: { scorePostId: string; at: Date; statusCode: number | null; errorClass: string | null; excerpt: string | null; durationMs: number; outcome: 'delivered' | 'retry' | 'failed' },
): Promise<void> {
  await db.query(
    `WITH att AS (INSERT INTO lti_score_attempts (score_post_id, attempted_at, status_code, error_class, excerpt, duration_ms)
                  VALUES ($1, $2, $3, $4, $5, $6))
     UPDATE lti_score_posts SET attempts = attempts + 1,
            status = CASE $7 WHEN 'delivered' THEN 'delivered' WHEN 'failed' THEN 'failed' ELSE status END,
            delivered_at = CASE WHEN $7 = 'delivered' THEN $2::timestamptz ELSE delivered_at END
      WHERE id = $1`,
    [a.scorePostId, a.at, a.statusCode, a.errorClass, a.excerpt, a.durationMs, a.outcome],
  );
}

export interface ScoreAttemptRow {
  attemptedAt: Date;
  statusCode: number | null;
  errorClass: string | null;
  durationMs: number;
}

export async function listScoreAttempts(db: Queryable, scorePostId: string): Promise<ScoreAttemptRow[]> {
  const { rows } = await db.query(
    'SELECT attempted_at, status_code, error_class, duration_ms FROM lti_score_attempts WHERE score_post_id = $1 ORDER BY id',
    [scorePostId],
  );
  return rows.map((r) => ({ attemptedAt: r.attempted_at, statusCode: r.status_code, errorClass: r.error_class, durationMs: r.duration_ms }));
}

/**
 * An assignment's score posts, each with the platform's issuer and, while it
 * is pending, when the job queue tries it next (the job's run_at).
 */
export async function listScorePostsWithNextAttempt(
  db: Queryable,
  institutionId: string,
  assignmentId: string,
): Promise<Array<ScorePostRow & { issuer: string; nextAttemptAt: Date | null }>> {
  const { rows } = await db.query(
    `SELECT sp.*, pl.issuer, CASE WHEN sp.status = 'pending' THEN j.run_at END AS next_attempt_at
       FROM lti_score_posts sp
       JOIN lti_platforms pl ON pl.id = sp.platform_id
       LEFT JOIN jobs j ON j.unique_key = 'lti-score:' || sp.id AND j.failed_at IS NULL
      WHERE sp.institution_id = $1 AND sp.assignment_id = $2
      ORDER BY sp.created_at, sp.id`,
    [institutionId, assignmentId],
  );
  return rows.map((r) => ({ ...toScorePost(r), issuer: r.issuer, nextAttemptAt: r.next_attempt_at ?? null }));
}

/** A platform's score posts that were not accepted since `since`, newest first, with their last attempt. */
export async function listFailedScorePosts(
  db: Queryable,
  institutionId: string,
  platformId: string,
  since: Date,
  limit: number,
): Promise<Array<{ id: string; assignmentId: string; createdAt: Date; statusCode: number | null; errorClass: string | null; attemptedAt: Date | null }>> {
  const { rows } = await db.query(
    `SELECT sp.id, sp.assignment_id, sp.created_at, la.status_code, la.error_class, la.attempted_at
       FROM lti_score_posts sp
       LEFT JOIN LATERAL (SELECT status_code, error_class, attempted_at FROM lti_score_attempts WHERE score_post_id = sp.id ORDER BY id DESC LIMIT 1) la ON true
      WHERE sp.institution_id = $1 AND sp.platform_id = $2 AND sp.status = 'failed' AND sp.created_at >= $3
      ORDER BY sp.created_at DESC, sp.id DESC
      LIMIT $4`,
    [institutionId, platformId, since, limit],
  );
  return rows.map((r) => ({ id: r.id, assignmentId: r.assignment_id, createdAt: r.created_at, statusCode: r.status_code, errorClass: r.error_class, attemptedAt: r.attempted_at }));
}
