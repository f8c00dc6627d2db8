import type { Queryable, Tx } from '../../../platform/db.js';
import { tenantInstitution, type Tenant } from '../../../platform/principal.js';
import type { CriterionMark } from './reply.js';
import type { AiMarkingMode } from '../../catalog/test-settings.js';

/** SQL for AI suggestions and the daily call budget. Every query names the institution. */
export const SUGGESTION_STATUSES = ['pending', 'suggested', 'failed', 'handed_over'] as const;
export type SuggestionStatus = (typeof SUGGESTION_STATUSES)[number];

export interface Provenance {
  model: string | null;
  promptVersion: string | null;
  requestId: string | null;
  latencyMs: number | null;
  promptTokens: number | null;
  completionTokens: number | null;
}

export interface AiSuggestion {
  assignmentId: string;
  institutionId: string;
  questionId: string;
  testId: string;
  mode: AiMarkingMode;
  minConfidence: number;
  maxPoints: number;
  status: SuggestionStatus;
  criteria: CriterionMark[] | null;
  points: number | null;
  confidence: number | null;
  flags: string[];
  failureReason: string | null;
  attempts: number;
  provenance: Provenance;
  reviewerPoints: number | null;
  reviewerMatches: boolean | null;
  reviewedAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface NewSuggestion {
  assignmentId: string;
  institutionId: string;
  questionId: string;
  testId: string;
  mode: AiMarkingMode;
  minConfidence: number;
  maxPoints: number;
  status: 'pending' | 'handed_over';
  failureReason: string | null;
}

const COLUMNS = `assignment_id, institution_id, question_id, test_id, mode, min_confidence, max_points, status, criteria, points,
  confidence, flags, failure_reason, attempts, model, prompt_version, request_id, latency_ms, prompt_tokens, completion_tokens,
  reviewer_points, reviewer_matches, reviewed_at, created_at, updated_at`;

/** A row of COLUMNS as pg returns it. */
type SuggestionRecord = {
  assignment_id: string;
  institution_id: string;
  question_id: string;
  test_id: string;
  mode: AiMarkingMode;
  min_confidence: number;
  max_points: number;
  status: SuggestionStatus;
  criteria: CriterionMark[] | null;
  points: number | null;
  confidence: number | null;
  flags: string[];
  failure_reason: string | null;
  attempts: number;
  model: string | null;
  prompt_version: string | null;
  request_id: string | null;
  latency_ms: number | null;
  prompt_tokens: number | null;
  completion_tokens: number | null;
  reviewer_points: number | null;
  reviewer_matches: boolean | null;
  reviewed_at: Date | null;
  created_at: Date;
  updated_at: Date;
};

function toSuggestion(r: SuggestionRecord): AiSuggestion {
  return {
    assignmentId: r.assignment_id,
    institutionId: r.institution_id,
    questionId: r.question_id,
    testId: r.test_id,
    mode: r.mode,
    minConfidence: r.min_confidence,
    maxPoints: r.max_points,
    status: r.status,
    criteria: r.criteria,
    points: r.points,
    confidence: r.confidence,
    flags: r.flags,
    failureReason: r.failure_reason,
    attempts: r.attempts,
    provenance: {
      model: r.model,
      promptVersion: r.prompt_version,
      requestId: r.request_id,
      latencyMs: r.latency_ms,
      promptTokens: r.prompt_tokens,
      completionTokens: r.completion_tokens,
    },
    reviewerPoints: r.reviewer_points,
    reviewerMatches: r.reviewer_matches,
    reviewedAt: r.reviewed_at,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

export async function insertSuggestions(tx: Tx, rows: NewSuggestion[], now: Date): Promise<void> {
  if (rows.length === 0) return;
  await tx.query(
    `INSERT INTO ai_suggestions (assignment_id, institution_id, question_id, test_id, mode, min_confidence, max_points, status,
                                 failure_reason, created_at, updated_at)
     SELECT r.assignment_id, r.institution_id, r.question_id, r.test_id, r.mode, r.min_confidence, r.max_points, r.status,
            r.failure_reason, $2, $2
       FROM jsonb_to_recordset($1::jsonb) AS r (assignment_id text, institution_id text, question_id text, test_id text, mode text,
                                                min_confidence numeric, max_points numeric, status text, failure_reason text)
     ON CONFLICT (assignment_id, question_id) DO NOTHING`,
    [
      JSON.stringify(
        rows.map((r) => ({
          assignment_id: r.assignmentId,
          institution_id: r.institutionId,
          question_id: r.questionId,
          test_id: r.testId,
          mode: r.mode,
          min_confidence: r.minConfidence,
          max_points: r.maxPoints,
          status: r.status,
          failure_reason: r.failureReason,
        })),
      ),
      now,
    ],
  );
}

export async function findSuggestion(
  db: Queryable,
  key: { institutionId: string; assignmentId: string; questionId: string },
  lock = false,
): Promise<AiSuggestion | null> {
  const { rows } = await db.query<SuggestionRecord>(
    `SELECT ${COLUMNS} FROM ai_suggestions WHERE institution_id = $1 AND assignment_id = $2 AND question_id = $3${lock ? ' FOR UPDATE' : ''}`,
    [key.institutionId, key.assignmentId, key.questionId],
  );
  return rows[0] ? toSuggestion(rows[0]) : null;
}

export async function listSuggestions(db: Queryable, institutionId: string, assignmentId: string): Promise<AiSuggestion[]> {
  const { rows } = await db.query<SuggestionRecord>(`SELECT ${COLUMNS} FROM ai_suggestions WHERE institution_id = $1 AND assignment_id = $2`, [
    institutionId,
    assignmentId,
  ]);
  return rows.map(toSuggestion);
}

/** A valid reply: the suggestion, its flags and provenance. */
export async function storeSuggestion(
  tx: Tx,
  key: { institutionId: string; assignmentId: string; questionId: string },
  s: { criteria: CriterionMark[]; points: number; confidence: number; flags: string[]; attempts: number; provenance: Provenance; now: Date },
): Promise<void> {
  const p = s.provenance;
  await tx.query(
    `UPDATE ai_suggestions SET status = 'suggested', criteria = $4, points = $5, confidence = $6, flags = $7, attempts = $8,
            failure_reason = NULL, model = $9, prompt_version = $10, request_id = $11, latency_ms = $12, prompt_tokens = $13,
            completion_tokens = $14, updated_at = $15,
            -- A reviewer may have marked the item while the call was under way.
            reviewer_matches = CASE WHEN reviewer_points IS NOT NULL THEN round(reviewer_points, 4) = round($5::numeric, 4) END
      WHERE institution_id = $1 AND assignment_id = $2 AND question_id = $3`,
    [
      key.institutionId,
      key.assignmentId,
      key.questionId,
      JSON.stringify(s.criteria),
      s.points,
      s.confidence,
      s.flags,
      s.attempts,
      p.model,
      p.promptVersion,
      p.requestId,
      p.latencyMs,
      p.promptTokens,
      p.completionTokens,
      s.now,
    ],
  );
}

/** A failed call (status stays `pending` while a retry is due) or a hand-over to a reviewer (`failed`, `handed_over`). */
export async function recordNoSuggestion(
  tx: Tx,
  key: { institutionId: string; assignmentId: string; questionId: string },
  s: { status: 'pending' | 'failed' | 'handed_over'; reason: string; attempts: number; flags?: string[]; now: Date },
): Promise<void> {
  await tx.query(
    `UPDATE ai_suggestions SET status = $4, failure_reason = $5, attempts = $6, flags = COALESCE($7, flags), updated_at = $8
      WHERE institution_id = $1 AND assignment_id = $2 AND question_id = $3`,
    [key.institutionId, key.assignmentId, key.questionId, s.status, s.reason.slice(0, 1000), s.attempts, s.flags ?? null, s.now],
  );
}

/** Keeps the reviewer's mark beside the model's, and whether they are equal (to 4 decimals). */
export async function recordReviewerMark(
  tx: Tx,
  m: { institutionId: string; assignmentId: string; questionId: string; points: number; now: Date },
): Promise<void> {
  await tx.query(
    `UPDATE ai_suggestions SET reviewer_points = $4, reviewed_at = $5,
            reviewer_matches = CASE WHEN status = 'suggested' THEN round(points, 4) = round($4::numeric, 4) END
      WHERE institution_id = $1 AND assignment_id = $2 AND question_id = $3`,
    [m.institutionId, m.assignmentId, m.questionId, m.points, m.now],
  );
}

/**
 * Counts one model call against the institution's budget for the UTC day of
 * `now`, atomically: true when it was within the budget (and is counted),
 * false when the budget is spent (nothing counted).
 */
export async function takeFromBudget(db: Queryable, institutionId: string, now: Date, dailyBudget: number): Promise<boolean> {
  if (dailyBudget <= 0) return false;
  const day = now.toISOString().slice(0, 10);
  const { rows } = await db.query(
    `INSERT INTO ai_usage (institution_id, day, calls) VALUES ($1, $2, 1)
     ON CONFLICT (institution_id, day) DO UPDATE SET calls = ai_usage.calls + 1 WHERE ai_usage.calls < $3
     RETURNING calls`,
    [institutionId, day, dailyBudget],
  );
  return rows.length > 0;
}

export async function callsToday(db: Queryable, institutionId: string, now: Date): Promise<number> {
  const { rows } = await db.query('SELECT calls FROM ai_usage WHERE institution_id = $1 AND day = $2', [institutionId, now.toISOString().slice(0, 10)]);
  return rows[0]?.calls ?? 0;
}

/** Items both the model (a stored suggestion) and a reviewer marked, for one test, within the tenant. */
export async function listMarkPairs(
  db: Queryable,
  testId: string,
  tenant: Tenant,
): Promise<Array<{ questionId: string; maxPoints: number; model: number; reviewer: number }>> {
  const { rows } = await db.query(
    `SELECT question_id, max_points, points, reviewer_points FROM ai_suggestions
      WHERE test_id = $1 AND ($2::text IS NULL OR institution_id = $2) AND status = 'suggested' AND reviewer_points IS NOT NULL`,
    [testId, tenantInstitution(tenant)],
  );
  return rows.map((r) => ({ questionId: r.question_id, maxPoints: r.max_points, model: r.points, reviewer: r.reviewer_points }));
}
