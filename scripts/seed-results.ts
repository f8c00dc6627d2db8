import { randomBytes } from 'node:crypto';
import type { Pool } from '../src/platform/db.js';
import { rollUpAttempts } from '../src/modules/results/statistics-repo.js';

/**
 * Scored attempts written straight into the tables, for the statistics and
 * export tests and the results benchmarks: for each attempt a user, a
 * completed assignment with a final score (the marks' sum, rounded as the
 * score object rounds it), its attempt with the delivery, its answers and
 * its marks. Each call writes its rows with one INSERT … SELECT per table
 * from a JSON array, so 100,000 attempts take seconds, not an hour of
 * submissions. Live attempts join the statistics' rollup in the same
 * transaction, as the `results.roll_up` job would add them.
 */
export interface SeedAttempt {
  externalUserId: string;
  name?: string;
  delivery: unknown;
  answers: Record<string, unknown>;
  marks: Record<string, number>;
  /** Defaults to the seed's createdAt plus a few minutes. */
  completedAt?: Date;
}

export interface SeedResults {
  institutionId: string;
  testId: string;
  testVersionId: string;
  livemode: boolean;
  maxPoints: number;
  passPercent: number | null;
  /** The score's sections, per attempt (optional). */
  sections?: (a: SeedAttempt) => Array<{ sectionId: string; title: string; points: number; maxPoints: number; percent: number }> | undefined;
  createdAt?: Date;
  /** false: leave the rollup alone (a test changes the rows first). Default true. */
  rollUp?: boolean;
}

const round2 = (n: number) => Math.round(n * 100) / 100;
const id = (prefix: string) => `${prefix}_${randomBytes(12).toString('base64url').replace(/[-_]/g, 'x')}`;

export async function seedScoredAttempts(pool: Pool, seed: SeedResults, attempts: SeedAttempt[]): Promise<string[]> {
  const created = seed.createdAt ?? new Date('2026-03-02T09:00:00Z');
  const rows = attempts.map((a, i) => {
    const points = Object.values(a.marks).reduce((s, x) => s + x, 0);
    const percent = seed.maxPoints > 0 ? round2((points / seed.maxPoints) * 100) : 0;
    const completedAt = a.completedAt ?? new Date(created.getTime() + (i + 30) * 60_000);
    const sections = seed.sections?.(a);
    return {
      assignment: id('asg'),
      user: id('usr'),
      externalUserId: a.externalUserId,
      name: a.name ?? null,
      delivery: a.delivery,
      started: new Date(completedAt.getTime() - 20 * 60_000).toISOString(),
      completed: completedAt.toISOString(),
      score: {
        points: round2(points),
        maxPoints: round2(seed.maxPoints),
        percent,
        passed: seed.passPercent === null ? null : percent >= seed.passPercent,
        gradingStatus: 'final',
        markedAt: completedAt.toISOString(),
        ...(sections ? { sections } : {}),
      },
      answers: Object.entries(a.answers).map(([q, v]) => ({ q, v })),
      marks: Object.entries(a.marks).map(([q, p]) => ({ q, p })),
    };
  });
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await client.query(
      `INSERT INTO users (id, institution_id, external_user_id, email, name)
       SELECT r->>'user', $1, r->>'externalUserId', (r->>'externalUserId') || '@seed.example', r->>'name' FROM jsonb_array_elements($2::jsonb) r
       ON CONFLICT (institution_id, external_user_id) DO NOTHING`,
      [seed.institutionId, JSON.stringify(rows)],
    );
    await client.query(
      `INSERT INTO assignments (id, institution_id, user_id, test_id, test_version_id, status, callback_url, score, created_at, started_at, submitted_at, completed_at, livemode)
       SELECT r->>'assignment', $1, u.id, $2, $3, 'completed', 'https://seed.example/return', r->'score', $5::timestamptz + k * interval '1 millisecond',
              (r->>'started')::timestamptz, (r->>'completed')::timestamptz, (r->>'completed')::timestamptz, $4
         FROM jsonb_array_elements($6::jsonb) WITH ORDINALITY AS x(r, k) JOIN users u ON u.institution_id = $1 AND u.external_user_id = r->>'externalUserId'`,
      [seed.institutionId, seed.testId, seed.testVersionId, seed.livemode, created, JSON.stringify(rows)],
    );
    await client.query(
      `INSERT INTO attempts (assignment_id, institution_id, user_id, test_version_id, started_at, deadline_at, submitted_at, submitted_by, delivery)
       SELECT a.id, a.institution_id, a.user_id, a.test_version_id, a.started_at, a.started_at + interval '30 minutes', a.submitted_at, 'student', r->'delivery'
         FROM jsonb_array_elements($1::jsonb) r JOIN assignments a ON a.id = r->>'assignment'`,
      [JSON.stringify(rows)],
    );
    await client.query(
      `INSERT INTO answers (assignment_id, institution_id, question_id, value, version, saved_at)
       SELECT r->>'assignment', $1, x->>'q', x->'v', 1, (r->>'completed')::timestamptz
         FROM jsonb_array_elements($2::jsonb) r CROSS JOIN LATERAL jsonb_array_elements(r->'answers') x`,
      [seed.institutionId, JSON.stringify(rows)],
    );
    await client.query(
      `INSERT INTO marks (assignment_id, institution_id, question_id, points, source, marked_at)
       SELECT r->>'assignment', $1, x->>'q', (x->>'p')::numeric, 'auto', (r->>'completed')::timestamptz
         FROM jsonb_array_elements($2::jsonb) r CROSS JOIN LATERAL jsonb_array_elements(r->'marks') x`,
      [seed.institutionId, JSON.stringify(rows)],
    );
    // What the results.roll_up job does for a real completion (test-mode attempts are skipped by it).
    if (seed.rollUp !== false) await rollUpAttempts(client, rows.map((r) => r.assignment));
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK');
    throw err;
  } finally {
    client.release();
  }
  return rows.map((r) => r.assignment);
}
