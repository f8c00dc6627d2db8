import type { TSchema } from '@sinclair/typebox';
import type { Queryable } from '../../platform/db.js';
import type { QuestionTypeDefinition } from '../catalog/question-types/definition.js';
import { QUESTION_TYPES } from '../catalog/question-types/registry.js';

/**
 * The sums the item statistics are computed from, so that no answer or mark
 * row travels to Node: per attempt set, per item and per option of a choice
 * question, only counts, sums, sums of squares and cross-products with the
 * attempt's total. All sums are `numeric` (exact), and the centred sums
 * (n·Σx² − (Σx)², …) are formed in SQL before they become doubles, so no
 * precision is lost to cancellation.
 *
 * Live attempts: a rollup (migrations/0023_results.sql) that each attempt
 * joins once, when its assignment completes with a final score (the
 * `results.roll_up` job, rollUpAttempts below); a read is a few dozen rows
 * whatever the number of attempts. Test-mode attempts (few, and deleted by
 * the test-data wipe) are aggregated when asked for, by the same SQL.
 *
 * The attempt set: completed assignments of one institution, one test
 * version and one mode whose score is final. An attempt's total is the sum
 * of its marks (unrounded; the score's points are rounded to 2 places); an
 * attempt with a final score and no marks (a simulated score in test mode)
 * counts with its score's points and has no item figures.
 */
export interface AttemptSet {
  institutionId: string;
  testVersionId: string;
  livemode: boolean;
}

export interface TotalSums {
  n: number;
  /** Σ percent, and n·Σp² − (Σp)², of the attempts' percents (total ÷ max points × 100). */
  sumPercent: number;
  centredPercent: number;
}

export interface ItemSums {
  questionId: string;
  n: number;
  sumX: number;
  /** n·Σx² − (Σx)² */
  cxx: number;
  /** n·Σy² − (Σy)² with y = total − x (the rest of the test) */
  cyy: number;
  /** n·Σxy − Σx·Σy */
  cxy: number;
  /** n·Σt² − (Σt)² and Σt over the attempts given this item (t = total) */
  ctt: number;
  sumT: number;
}

export interface OptionSums {
  questionId: string;
  optionId: string;
  /** Attempts given the question that chose the option. */
  chosen: number;
  /** Σ total over them. */
  sumT: number;
}

export interface AlphaSums {
  n: number;
  /** n·Σf² − (Σf)² of f = the sum of the marks of the items every attempt was given. */
  cff: number;
  /** Per item every attempt was given: n·Σx² − (Σx)². */
  items: Array<{ questionId: string; cxx: number }>;
}

export interface StatisticsSums {
  totals: TotalSums;
  items: ItemSums[];
  options: OptionSums[];
  alpha: AlphaSums;
}

/**
 * The question types whose answers' chosen options are counted (the
 * distractor table): each registered type with `statistics` (single and
 * multiple choice, associate) whose answer is an id, an array of ids or an array of
 * id pairs (its schema says so), so counting stays one pass in SQL. A pair
 * `[a, b]` counts as the option `a+b`, as stored (associate stores each
 * pair's ids in item order and names its options so). The names are the code's own
 * constants, checked to be plain words before they reach the statement.
 */
export const COUNTED_TYPES: readonly string[] = (QUESTION_TYPES as ReadonlyArray<QuestionTypeDefinition<any>>)
  .filter((d) => d.statistics !== undefined && idsAnswer(d.answer.schema))
  .map((d) => d.type)
  .filter((t) => /^[a-z_]+$/.test(t));

function idsAnswer(schema: TSchema): boolean {
  const parts = (schema.anyOf as TSchema[] | undefined) ?? [schema];
  const plain = parts.filter((p) => p.type !== 'null');
  return plain.length > 0 && plain.every((p) => p.type === 'string' || (p.type === 'array' && (isIds(p.items) || (p.items?.type === 'array' && isIds(p.items.items)))));
}
function isIds(items: TSchema | undefined): boolean {
  return items?.type === 'string';
}

/**
 * The raw sums (the rollup's rows) of the attempts in `att(id,
 * institution_id, test_version_id, score_points, max_points)`, which the
 * caller defines before. Choice questions and the questions outside pools
 * come from the versions' own JSON.
 */
const RAW_SUMS = `
  mk AS MATERIALIZED (
    SELECT att.institution_id, att.test_version_id, m.assignment_id, m.question_id, m.points AS x
      FROM marks m JOIN att ON att.id = m.assignment_id),
  tot AS MATERIALIZED (
    SELECT att.id, att.institution_id, att.test_version_id, att.max_points, COALESCE(s.t, att.score_points) AS t
      FROM att LEFT JOIN (SELECT assignment_id, sum(x) AS t FROM mk GROUP BY assignment_id) s ON s.assignment_id = att.id),
  versions AS (SELECT DISTINCT test_version_id FROM att),
  choice AS (
    SELECT tv.id AS test_version_id, q->>'id' AS question_id
      FROM test_versions tv JOIN versions v ON v.test_version_id = tv.id CROSS JOIN LATERAL jsonb_array_elements(tv.questions) q
     WHERE q->>'type' IN (${COUNTED_TYPES.map((t) => `'${t}'`).join(', ')})),
  fixedq AS (
    SELECT tv.id AS test_version_id, f.question_id
      FROM test_versions tv JOIN versions v ON v.test_version_id = tv.id
     CROSS JOIN LATERAL (
       SELECT q->>'id' AS question_id FROM jsonb_array_elements(tv.questions) q WHERE tv.sections IS NULL
       UNION ALL
       SELECT jsonb_array_elements_text(s->'questionIds') FROM jsonb_array_elements(COALESCE(tv.sections, '[]'::jsonb)) s
        WHERE jsonb_typeof(s->'draw') IS DISTINCT FROM 'number' OR (s->>'draw')::int >= jsonb_array_length(s->'questionIds')) f),
  raw AS (
    SELECT institution_id, test_version_id, 'total'::text AS kind, ''::text AS question_id, ''::text AS option_id,
           count(*) AS n, sum(p) AS s1, sum(p * p) AS s2, 0::numeric AS s3, 0::numeric AS s4, 0::numeric AS s5
      FROM (SELECT institution_id, test_version_id, (t * 100)::numeric(1000, 30) / max_points AS p FROM tot WHERE max_points IS NOT NULL) x
     GROUP BY 1, 2
    UNION ALL
    SELECT mk.institution_id, mk.test_version_id, 'item', mk.question_id, '', count(*), sum(x), sum(x * x), sum(x * t), sum(t), sum(t * t)
      FROM mk JOIN tot ON tot.id = mk.assignment_id GROUP BY 1, 2, 4
    UNION ALL
    SELECT tot.institution_id, tot.test_version_id, 'option', ans.question_id, o.id, count(*), sum(tot.t), 0, 0, 0, 0
      FROM tot JOIN answers ans ON ans.assignment_id = tot.id
      JOIN choice c ON c.test_version_id = tot.test_version_id AND c.question_id = ans.question_id
     CROSS JOIN LATERAL jsonb_array_elements(
       CASE jsonb_typeof(ans.value) WHEN 'array' THEN ans.value WHEN 'string' THEN jsonb_build_array(ans.value) ELSE '[]'::jsonb END) AS e(v)
     CROSS JOIN LATERAL (SELECT CASE jsonb_typeof(e.v) WHEN 'array' THEN (e.v ->> 0) || '+' || (e.v ->> 1) ELSE e.v #>> '{}' END) AS o(id)
     GROUP BY 1, 2, 4, 5
    UNION ALL
    SELECT institution_id, test_version_id, 'fixed', '', '', count(*), sum(f), sum(f * f), 0, 0, 0
      FROM (SELECT mk.institution_id, mk.test_version_id, mk.assignment_id, sum(x) AS f
              FROM mk JOIN fixedq ON fixedq.test_version_id = mk.test_version_id AND fixedq.question_id = mk.question_id
             GROUP BY 1, 2, 3) x
     GROUP BY 1, 2)`;

const ATT_COLUMNS = `a.id, a.institution_id, a.test_version_id, (a.score->>'points')::numeric AS score_points, NULLIF((a.score->>'maxPoints')::numeric, 0) AS max_points`;
const FINAL = `a.status = 'completed' AND a.score->>'gradingStatus' = 'final'`;

/**
 * Adds live attempts to the rollup, each once (result_rollup_attempts):
 * attempts already added, not completed, not final or of test mode are
 * skipped. One statement, so a batch of any size is one round trip; the
 * rows are upserted in key order, so concurrent batches cannot deadlock.
 */
export async function rollUpAttempts(db: Queryable, assignmentIds: string[]): Promise<number> {
  if (assignmentIds.length === 0) return 0;
  const { rows } = await db.query<{ added: string }>(
    `WITH fresh AS (
       INSERT INTO result_rollup_attempts (assignment_id)
       SELECT a.id FROM assignments a WHERE a.id = ANY($1::text[]) AND a.livemode AND ${FINAL}
       ON CONFLICT DO NOTHING RETURNING assignment_id),
     att AS MATERIALIZED (SELECT ${ATT_COLUMNS} FROM assignments a JOIN fresh ON fresh.assignment_id = a.id),
     ${RAW_SUMS},
     upserted AS (
       INSERT INTO result_rollup AS r (institution_id, test_version_id, kind, question_id, option_id, n, s1, s2, s3, s4, s5)
       SELECT * FROM raw ORDER BY 1, 2, 3, 4, 5
       ON CONFLICT (institution_id, test_version_id, kind, question_id, option_id) DO UPDATE
         SET n = r.n + EXCLUDED.n, s1 = r.s1 + EXCLUDED.s1, s2 = r.s2 + EXCLUDED.s2, s3 = r.s3 + EXCLUDED.s3, s4 = r.s4 + EXCLUDED.s4, s5 = r.s5 + EXCLUDED.s5
       RETURNING 1)
     SELECT (SELECT count(*) FROM fresh)::text AS added, (SELECT count(*) FROM upserted) AS rows`,
    [assignmentIds],
  );
  return Number(rows[0]!.added);
}

/** The centred sums, exact, from raw sums (`raw`: the rollup's columns). */
const CENTRED = `
  SELECT kind, question_id AS q, option_id AS o, n::text,
         s1::text AS a,
         (n * s2 - s1 * s1)::text AS b,
         -- y = t − x: Σy = s4 − s1, Σy² = s5 − 2·s3 + s2, Σxy = s3 − s2
         (n * (s5 - 2 * s3 + s2) - (s4 - s1) * (s4 - s1))::text AS c,
         (n * (s3 - s2) - s1 * (s4 - s1))::text AS d,
         (n * s5 - s4 * s4)::text AS e,
         s4::text AS f
    FROM raw`;

export async function statisticsSums(db: Queryable, set: AttemptSet, fixedIds: string[]): Promise<StatisticsSums> {
  const sql = set.livemode
    ? `WITH raw AS (SELECT * FROM result_rollup WHERE institution_id = $1 AND test_version_id = $2) ${CENTRED}`
    : `WITH att AS MATERIALIZED (SELECT ${ATT_COLUMNS} FROM assignments a WHERE a.institution_id = $1 AND a.test_version_id = $2 AND NOT a.livemode AND NOT a.trial AND ${FINAL}),
       ${RAW_SUMS} ${CENTRED}`;
  const { rows } = await db.query<{ kind: string; q: string; o: string; n: string; a: string; b: string; c: string; d: string; e: string; f: string }>(sql, [
    set.institutionId,
    set.testVersionId,
  ]);
  const num = (s: string | undefined) => (s === undefined ? 0 : Number(s));
  const t = rows.find((r) => r.kind === 'total');
  const f = rows.find((r) => r.kind === 'fixed');
  const items: ItemSums[] = rows
    .filter((r) => r.kind === 'item')
    .map((r) => ({ questionId: r.q, n: num(r.n), sumX: num(r.a), cxx: num(r.b), cyy: num(r.c), cxy: num(r.d), ctt: num(r.e), sumT: num(r.f) }));
  const fixed = new Set(fixedIds);
  return {
    totals: { n: num(t?.n), sumPercent: num(t?.a), centredPercent: num(t?.b) },
    items,
    options: rows.filter((r) => r.kind === 'option').map((r) => ({ questionId: r.q, optionId: r.o, chosen: num(r.n), sumT: num(r.a) })),
    alpha: { n: num(f?.n), cff: num(f?.b), items: items.filter((i) => fixed.has(i.questionId)).map((i) => ({ questionId: i.questionId, cxx: i.cxx })) },
  };
}

/** The id of a test's version by number, or its newest version when none is given. */
export async function findTestVersionId(db: Queryable, testId: string, version: number | undefined): Promise<string | null> {
  const { rows } = await db.query<{ id: string }>(
    version === undefined
      ? 'SELECT id FROM test_versions WHERE test_id = $1 AND version > 0 ORDER BY version DESC LIMIT 1'
      : 'SELECT id FROM test_versions WHERE test_id = $1 AND version = $2 AND version > 0',
    version === undefined ? [testId] : [testId, version],
  );
  return rows[0]?.id ?? null;
}

/**
 * Whether the institution may see a test's results: it exists and the test
 * is published to it or it has assignments of the test (a publication
 * withdrawn later leaves its results). Anything else reads as not found.
 */
export async function institutionSeesTest(db: Queryable, institutionId: string, testId: string): Promise<boolean> {
  const { rows } = await db.query(
    `SELECT 1 FROM institutions i
      WHERE i.id = $1 AND (EXISTS (SELECT 1 FROM publications p WHERE p.institution_id = i.id AND p.test_id = $2)
                        OR EXISTS (SELECT 1 FROM assignments a WHERE a.institution_id = i.id AND a.test_id = $2))`,
    [institutionId, testId],
  );
  return rows.length > 0;
}
