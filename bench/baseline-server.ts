import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyInstance } from 'fastify';
import pg from 'pg';

/**
 * The baseline: bare Fastify and pg, no schemas, no auth, no logging, each
 * route the least a hand-written endpoint needs to answer the same request
 * with the same primary SQL, prepared once per connection (named statements)
 * as the app's hot queries are. The app's ratio to it is the cost of
 * everything else (API-key lookup, rate limit, validation, serialisation
 * through schemas, idempotency, business checks, start-link signing).
 */
export interface BaselineSeed {
  institutionId: string;
  testId: string;
  testVersionId: string;
}

export function buildBaseline(pool: pg.Pool, seed: BaselineSeed): FastifyInstance {
  const app = Fastify({ logger: false });

  // List published tests with the total (GET /api/partner/v1/tests).
  app.get('/tests', async (request) => {
    const query = request.query as { limit?: string; offset?: string };
    const limit = Number(query.limit ?? 20);
    const offset = Number(query.offset ?? 0);
    const { rows } = await pool.query({
      name: 'baseline-list-tests',
      text: `SELECT t.id, tv.title, tv.description, tv.duration_minutes, tv.proctoring, tv.marking, tv.result_visibility,
              count(*) OVER () AS total
         FROM publications p
         JOIN tests t ON t.id = p.test_id
         JOIN test_versions tv ON tv.test_id = t.id AND tv.version = t.current_version
        WHERE p.institution_id = $1
        ORDER BY p.published_at, p.test_id
        LIMIT $2 OFFSET $3`,
      values: [seed.institutionId, limit, offset],
    });
    return {
      data: rows.map((r) => ({
        testId: r.id,
        title: r.title,
        description: r.description,
        durationMinutes: r.duration_minutes,
        proctoring: r.proctoring,
        marking: r.marking,
        resultVisibility: r.result_visibility,
      })),
      total: Number(rows[0]?.total ?? 0),
      limit,
      offset,
    };
  });

  // Read one assignment joined to its user (GET /api/partner/v1/assignments/{id}).
  app.get('/assignments/:id', async (request, reply) => {
    const { rows } = await pool.query({
      name: 'baseline-read-assignment',
      // By primary key, then the tenant, as the app does (see FIND_ASSIGNMENT_SQL): a plain
      // `WHERE a.id = $1 AND a.institution_id = $2` can keep a plan that walks the institution's index.
      text: `WITH a AS MATERIALIZED (SELECT * FROM assignments WHERE id = $1)
       SELECT a.id, a.status, u.external_user_id, a.test_id, a.metadata, a.due_at, a.score,
              a.created_at, a.started_at, a.submitted_at, a.completed_at
         FROM a JOIN users u ON u.id = a.user_id
        WHERE a.institution_id = $2`,
      values: [(request.params as { id: string }).id, seed.institutionId],
    });
    const r = rows[0];
    if (!r) return reply.status(404).send({ error: 'not_found' });
    return {
      assignmentId: r.id,
      status: r.status,
      externalUserId: r.external_user_id,
      testId: r.test_id,
      result: { available: r.status === 'completed', score: r.score },
      metadata: r.metadata,
      dueAt: r.due_at,
      createdAt: r.created_at,
      startedAt: r.started_at,
      submittedAt: r.submitted_at,
      completedAt: r.completed_at,
    };
  });

  // Upsert the user and insert the assignment in one transaction (POST /api/partner/v1/assignments).
  app.post('/assignments', async (request, reply) => {
    const body = request.body as { externalUserId: string; user: { email: string; name?: string }; callbackUrl: string; metadata?: object };
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      const user = await client.query({
        name: 'baseline-upsert-user',
        text: `INSERT INTO users (id, institution_id, external_user_id, email, name) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (institution_id, external_user_id) DO UPDATE SET email = EXCLUDED.email, name = EXCLUDED.name, updated_at = now()
         RETURNING id`,
        values: [`usr_${randomUUID()}`, seed.institutionId, body.externalUserId, body.user.email, body.user.name ?? null],
      });
      const id = `asg_${randomUUID()}`;
      const created = await client.query({
        name: 'baseline-insert-assignment',
        text: `INSERT INTO assignments (id, institution_id, user_id, test_id, test_version_id, status, callback_url, metadata)
         VALUES ($1, $2, $3, $4, $5, 'assigned', $6, $7) RETURNING created_at`,
        values: [id, seed.institutionId, user.rows[0].id, seed.testId, seed.testVersionId, body.callbackUrl, JSON.stringify(body.metadata ?? {})],
      });
      await client.query('COMMIT');
      return reply
        .status(201)
        .send({ assignmentId: id, status: 'assigned', externalUserId: body.externalUserId, testId: seed.testId, createdAt: created.rows[0].created_at });
    } catch (err) {
      await client.query('ROLLBACK');
      throw err;
    } finally {
      client.release();
    }
  });

  return app;
}
