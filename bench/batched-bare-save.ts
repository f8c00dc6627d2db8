import Fastify, { type FastifyInstance } from 'fastify';
import type pg from 'pg';
import { createTurnBatcher } from '../src/platform/turn-batcher.js';

/**
 * The raised baseline of the autosave: bare Fastify and pg, as the bare route
 * of student-server.ts, but the saves that arrive in one event-loop turn
 * share one statement, as the app's do (save-batcher.ts). Two saves of the
 * same answer go in different statements (an upsert cannot touch a row twice),
 * and the version check keeps the newer: no stale overwrite here either.
 * Writes `batched-<questionId>` rows, beside the app's and the bare route's.
 */
type Save = { assignmentId: string; answers: Array<{ questionId: string; value: unknown; version: number }> };
type Stored = Map<string, number>;

export function buildBatchedBareSave(pool: pg.Pool, institutionId: string): FastifyInstance {
  const run = createTurnBatcher<Save, Stored>(
    async (saves) => {
      const rows = saves.flatMap((s, n) =>
        s.answers.map((a) => ({ n, assignment_id: s.assignmentId, question_id: `batched-${a.questionId}`, value: JSON.stringify(a.value), version: a.version })),
      );
      const result = await pool.query<{ assignment_id: string; question_id: string; version: string }>({
        name: 'batched-bare-save-answers',
        text: `INSERT INTO answers AS s (assignment_id, institution_id, question_id, value, version, saved_at)
               SELECT x.assignment_id, $2, x.question_id, x.value::jsonb, x.version, now()
                 FROM jsonb_to_recordset($1::jsonb) AS x (n int, assignment_id text, question_id text, value text, version bigint)
               ON CONFLICT (assignment_id, question_id) DO UPDATE
                  SET value = EXCLUDED.value, version = EXCLUDED.version, saved_at = EXCLUDED.saved_at
                WHERE s.version < EXCLUDED.version
               RETURNING assignment_id, question_id, version`,
        values: [JSON.stringify(rows), institutionId],
      });
      const stored = new Map<string, Stored>();
      for (const r of result.rows) {
        let m = stored.get(r.assignment_id);
        if (!m) stored.set(r.assignment_id, (m = new Map()));
        m.set(r.question_id, Number(r.version));
      }
      return saves.map((s) => stored.get(s.assignmentId) ?? new Map());
    },
    // Greedy: each save into the first statement that does not already touch one of its answers.
    (saves) => {
      const groups: { idx: number[]; keys: Set<string> }[] = [];
      saves.forEach((s, i) => {
        const keys = s.answers.map((a) => `${s.assignmentId} ${a.questionId}`);
        let g = groups.find((x) => x.idx.length < 256 && keys.every((k) => !x.keys.has(k)));
        if (!g) groups.push((g = { idx: [], keys: new Set() }));
        g.idx.push(i);
        for (const k of keys) g.keys.add(k);
      });
      return groups.map((g) => g.idx);
    },
  );

  const app = Fastify({ logger: false });
  app.post('/a/:assignmentId/answers', async (request) => {
    const { answers } = request.body as Save;
    const stored = await run({ assignmentId: (request.params as { assignmentId: string }).assignmentId, answers });
    return {
      results: answers.map((a) => {
        const v = stored.get(`batched-${a.questionId}`);
        return { questionId: a.questionId, version: v ?? a.version, saved: v !== undefined };
      }),
    };
  });
  return app;
}
