import Fastify, { type FastifyInstance } from 'fastify';
import pg from 'pg';
import { createTurnBatcher } from '../src/platform/turn-batcher.js';
import type { BaselineSeed } from './baseline-server.js';

/**
 * The raised baselines: bare Fastify and pg as in baseline-server.ts, but
 * sharing one statement among the lookups that arrive in one event-loop turn,
 * as the app does (platform/turn-batcher.ts), so the app's ratio to them is
 * the cost of everything but the SQL round trip. And the HTTP ceiling: bare
 * Fastify answering the app's own answer bytes from memory, no database.
 */
export function buildBatchedBaseline(pool: pg.Pool, seed: BaselineSeed, ceiling: { read: string; tests: string }): FastifyInstance {
  const app = Fastify({ logger: false });

  // A turn's reads as one statement: each id by primary key in a LATERAL of its own, then the tenant.
  const readMany = createTurnBatcher<string, Record<string, unknown> | undefined>(async (ids) => {
    const { rows } = await pool.query({
      name: 'batched-read-assignment',
      text: `SELECT k.n, a.id, a.status, u.external_user_id, a.test_id, a.metadata, a.due_at, a.score,
              a.created_at, a.started_at, a.submitted_at, a.completed_at
         FROM jsonb_to_recordset($1::jsonb) AS k(n int, id text)
         CROSS JOIN LATERAL (SELECT * FROM assignments WHERE id = k.id LIMIT 1) a
         JOIN users u ON u.id = a.user_id
        WHERE a.institution_id = $2`,
      values: [JSON.stringify(ids.map((id, n) => ({ n, id }))), seed.institutionId],
    });
    const out: (Record<string, unknown> | undefined)[] = new Array(ids.length);
    for (const r of rows) out[r.n as number] = r;
    return out;
  });

  app.get('/assignments/:id', async (request, reply) => {
    const r = await readMany((request.params as { id: string }).id);
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

  // A turn's listings (limit, offset) as one statement: each page in a LATERAL of its own.
  type Page = { limit: number; offset: number };
  const listMany = createTurnBatcher<Page, Record<string, unknown>[]>(async (pages) => {
    const { rows } = await pool.query({
      name: 'batched-list-tests',
      text: `SELECT k.n, l.*
         FROM jsonb_to_recordset($1::jsonb) AS k(n int, lim int, off int)
         CROSS JOIN LATERAL (
           SELECT t.id, tv.title, tv.description, tv.duration_minutes, tv.proctoring, tv.marking, tv.result_visibility,
                  count(*) OVER () AS total
             FROM publications p
             JOIN tests t ON t.id = p.test_id
             JOIN test_versions tv ON tv.test_id = t.id AND tv.version = t.current_version
            WHERE p.institution_id = $2
            ORDER BY p.published_at, p.test_id
            LIMIT k.lim OFFSET k.off) l`,
      values: [JSON.stringify(pages.map((p, n) => ({ n, lim: p.limit, off: p.offset }))), seed.institutionId],
    });
    const out: Record<string, unknown>[][] = pages.map(() => []);
    for (const r of rows) out[r.n as number]!.push(r);
    return out;
  });

  app.get('/tests', async (request) => {
    const query = request.query as { limit?: string; offset?: string };
    const limit = Number(query.limit ?? 20);
    const offset = Number(query.offset ?? 0);
    const rows = await listMany({ limit, offset });
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

  // The HTTP ceiling: the app's own answer bytes, from memory.
  app.get('/ceiling/assignments/:id', (_request, reply) => {
    void reply.type('application/json; charset=utf-8').send(ceiling.read);
  });
  app.get('/ceiling/tests', (_request, reply) => {
    void reply.type('application/json; charset=utf-8').send(ceiling.tests);
  });

  return app;
}
