import type { Queryable } from '../../platform/db.js';

/**
 * The sums the item statistics are computed from, aggregated in PostgreSQL
 * so that no answer or mark row travels to Node: per attempt set, per item
 * and per option of a choice question, only counts, sums, sums of squares
 * and cross-products with the attempt's total. The sums are `numeric`
 * (exact), and the centred sums (n·Σx² − (Σx)², …) are formed in SQL
 * before they become doubles, so no precision is lost to cancellation.
 *
 * The attempt set: completed assignments of one institution, one test
 * version and one mode whose score is final. An attempt's total is the sum
 * of its marks (unrounded; the score's points are rounded to 2 places); an
 * attempt with a final score but no marks (a simulated score in test mode)
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

const ATTEMPTS = `
  att AS MATERIALIZED (
    SELECT a.id, (a.score->>'points')::numeric AS score_points, NULLIF((a.score->>'maxPoints')::numeric, 0) AS max_points
      FROM assignments a
     WHERE a.institution_id = $1 AND a.test_version_id = $2 AND a.livemode = $3
       AND a.status = 'completed' AND a.score->>'gradingStatus' = 'final'),
  mk AS MATERIALIZED (
    SELECT m.assignment_id, m.question_id, m.points AS x FROM marks m JOIN att ON att.id = m.assignment_id),
  tot AS MATERIALIZED (
    SELECT att.id, att.max_points, COALESCE(s.t, att.score_points) AS t
      FROM att LEFT JOIN (SELECT assignment_id, sum(x) AS t FROM mk GROUP BY assignment_id) s ON s.assignment_id = att.id)`;

/**
 * One statement, four kinds of row (`kind`): the totals, one per item, one
 * per chosen option, and the sums of the items every attempt was given
 * (for Cronbach's alpha). `choiceIds` are the choice questions (options are
 * read from their answers), `fixedIds` the questions outside any pool.
 */
export async function statisticsSums(db: Queryable, set: AttemptSet, choiceIds: string[], fixedIds: string[]): Promise<StatisticsSums> {
  const { rows } = await db.query<{ kind: string; q: string | null; o: string | null; n: string; a: string | null; b: string | null; c: string | null; d: string | null; e: string | null; f: string | null }>(
    `WITH ${ATTEMPTS},
     totals AS (
       SELECT count(*) AS n, sum(p) AS sp, count(*) * sum(p * p) - sum(p) * sum(p) AS cpp
         FROM (SELECT t / max_points * 100 AS p FROM tot WHERE max_points IS NOT NULL) x),
     items AS (
       SELECT mk.question_id AS q, count(*) AS n, sum(x) AS sx, sum(x * x) AS sxx, sum(x * t) AS sxt, sum(t) AS st, sum(t * t) AS stt
         FROM mk JOIN tot ON tot.id = mk.assignment_id GROUP BY mk.question_id),
     opts AS (
       SELECT ans.question_id AS q, o.id AS o, count(*) AS n, sum(tot.t) AS st
         FROM tot JOIN answers ans ON ans.assignment_id = tot.id AND ans.question_id = ANY($4::text[])
         CROSS JOIN LATERAL jsonb_array_elements_text(
           CASE jsonb_typeof(ans.value) WHEN 'array' THEN ans.value WHEN 'string' THEN jsonb_build_array(ans.value) ELSE '[]'::jsonb END) AS o(id)
        GROUP BY 1, 2),
     fixed AS (
       SELECT count(*) AS n, count(*) * sum(f * f) - sum(f) * sum(f) AS cff
         FROM (SELECT sum(x) AS f FROM mk WHERE question_id = ANY($5::text[]) GROUP BY assignment_id) x)
     SELECT 'totals' AS kind, NULL AS q, NULL AS o, n::text, sp::text AS a, cpp::text AS b, NULL AS c, NULL AS d, NULL AS e, NULL AS f FROM totals
     UNION ALL
     SELECT 'item', q, NULL, n::text, sx::text, (n * sxx - sx * sx)::text,
            -- y = t − x: Σy = st − sx, Σy² = stt − 2·sxt + sxx, Σxy = sxt − sxx
            (n * (stt - 2 * sxt + sxx) - (st - sx) * (st - sx))::text,
            (n * (sxt - sxx) - sx * (st - sx))::text,
            (n * stt - st * st)::text, st::text
       FROM items
     UNION ALL
     SELECT 'option', q, o, n::text, st::text, NULL, NULL, NULL, NULL, NULL FROM opts
     UNION ALL
     SELECT 'fixed', NULL, NULL, n::text, cff::text, NULL, NULL, NULL, NULL, NULL FROM fixed`,
    [set.institutionId, set.testVersionId, set.livemode, choiceIds, fixedIds],
  );
  const num = (s: string | null) => (s === null ? 0 : Number(s));
  const t = rows.find((r) => r.kind === 'totals')!;
  const f = rows.find((r) => r.kind === 'fixed');
  const items: ItemSums[] = rows
    .filter((r) => r.kind === 'item')
    .map((r) => ({ questionId: r.q!, n: num(r.n), sumX: num(r.a), cxx: num(r.b), cyy: num(r.c), cxy: num(r.d), ctt: num(r.e), sumT: num(r.f) }));
  const fixed = new Set(fixedIds);
  return {
    totals: { n: num(t.n), sumPercent: num(t.a), centredPercent: num(t.b) },
    items,
    options: rows.filter((r) => r.kind === 'option').map((r) => ({ questionId: r.q!, optionId: r.o!, chosen: num(r.n), sumT: num(r.a) })),
    alpha: { n: num(f?.n ?? '0'), cff: num(f?.a ?? null), items: items.filter((i) => fixed.has(i.questionId)).map((i) => ({ questionId: i.questionId, cxx: i.cxx })) },
  };
}

/** The id of a test's version by number, or its newest version when none is given. */
export async function findTestVersionId(db: Queryable, testId: string, version: number | undefined): Promise<string | null> {
  const { rows } = await db.query<{ id: string }>(
    version === undefined
      ? 'SELECT id FROM test_versions WHERE test_id = $1 ORDER BY version DESC LIMIT 1'
      : 'SELECT id FROM test_versions WHERE test_id = $1 AND version = $2',
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
