import { newId } from '../../platform/ids.js';
import { withTransaction, type Pool, type Queryable } from '../../platform/db.js';
import { batchedPerPool } from '../../platform/turn-batcher.js';
import type { ProctoringRules } from './proctoring-rules.js';
import { storedProctoringRules, type CheckedContent } from './authoring.js';
import type { Passage, Question, SectionInput, TestInput } from './schemas.js';
import { sectionsWithQuestions, type StoredSection } from './sections.js';
import type { MarkingMode, ProctoringMode, ResultVisibility } from './test-settings.js';
import type { ContentFormat } from './content/content-format.js';
import type { StoredTranslations, TranslationStatus, Translations } from './translations/translation-schema.js';
import { languagesOf, plainTranslations, translationStatus } from './translations/translation-store.js';

/** One immutable version of a test, as stored. */
export interface TestVersion {
  testVersionId: string;
  testId: string;
  version: number;
  title: string;
  description: string;
  durationMinutes: number;
  proctoring: ProctoringMode;
  marking: MarkingMode;
  resultVisibility: ResultVisibility;
  passPercent: number | null;
  /** Resolved thresholds for proctored tests; null for `none`. */
  proctoringRules: ProctoringRules | null;
  /** Every question of the version, in section order. */
  questions: Question[];
  /** Null for a flat test (one unnamed section). */
  sections: StoredSection[] | null;
  /** How the texts are written (content/render-content.ts renders both). */
  contentFormat: ContentFormat;
  /** Shared passages ([] for none): each shown beside the questions whose passageId names it. */
  passages: Passage[];
  /** The language the texts are written in; null when the test declares none (read as `en`). */
  language: string | null;
  /** The translations as stored ({} for none): per locale, per text path, the text and its source's hash. */
  translations: StoredTranslations;
  createdAt: Date;
}

/** The operator's read: a flat test's `questions` as always, or a sectioned test's `sections` with their questions. */
export interface AdminTestView extends Omit<TestVersion, 'testVersionId' | 'questions' | 'sections' | 'passages' | 'language' | 'translations'> {
  questions?: Question[];
  sections?: Array<SectionInput & { id: string }>;
  /** Absent for a test without passages, so such a test reads as it always has. */
  passages?: Passage[];
  /** These three absent for a test that declares no language and has no translations, likewise. */
  language?: string;
  translations?: Translations;
  translationStatus?: TranslationStatus;
  publishedTo: string[];
  updatedAt: Date;
}

const SUMMARY_COLUMNS = `tv.id AS test_version_id, tv.test_id, tv.version, tv.title, tv.description, tv.duration_minutes,
  tv.proctoring, tv.proctoring_rules, tv.marking, tv.result_visibility, tv.pass_percent, tv.created_at`;
const VERSION_COLUMNS = `${SUMMARY_COLUMNS}, tv.questions, tv.sections, tv.content_format, tv.passages, tv.language, tv.translations`;

/** A version without its questions: what listings and assignment creation need (questions can be large). */
export type TestSummary = Omit<TestVersion, 'questions' | 'sections' | 'contentFormat' | 'passages' | 'language' | 'translations'>;

/** A row of SUMMARY_COLUMNS as pg returns it. */
type SummaryRecord = {
  test_version_id: string;
  test_id: string;
  version: number;
  title: string;
  description: string;
  duration_minutes: number;
  proctoring: ProctoringMode;
  proctoring_rules: ProctoringRules | null;
  marking: MarkingMode;
  result_visibility: ResultVisibility;
  pass_percent: number | null;
  created_at: Date;
};
/** A row of VERSION_COLUMNS. */
type VersionRecord = SummaryRecord & {
  questions: Question[];
  sections: StoredSection[] | null;
  content_format: ContentFormat;
  passages: Passage[];
  language: string | null;
  translations: StoredTranslations;
};
/** The operator's listings add the test's last change and where it is published. */
type AdminRecord = { updated_at: Date; published_to: string[] };

function toSummary(r: SummaryRecord): TestSummary {
  return {
    testVersionId: r.test_version_id,
    testId: r.test_id,
    version: r.version,
    title: r.title,
    description: r.description,
    durationMinutes: r.duration_minutes,
    proctoring: r.proctoring,
    marking: r.marking,
    resultVisibility: r.result_visibility,
    passPercent: r.pass_percent,
    proctoringRules: r.proctoring_rules ?? null,
    createdAt: r.created_at,
  };
}

/** The summary with its questions, in the same key order as always (questions before createdAt). */
function toVersion(r: VersionRecord): TestVersion {
  const { createdAt, ...head } = toSummary(r);
  return { ...head, questions: r.questions, sections: r.sections ?? null, contentFormat: r.content_format, passages: r.passages, language: r.language, translations: r.translations, createdAt };
}

const rulesJson = (rules: ProctoringRules | null) => (rules ? JSON.stringify(rules) : null);

async function insertVersion(db: Queryable, testId: string, version: number, input: TestInput, content: CheckedContent): Promise<string> {
  const testVersionId = newId('tv');
  await db.query(
    `INSERT INTO test_versions (id, test_id, version, title, description, duration_minutes, proctoring, marking,
                                result_visibility, pass_percent, questions, proctoring_rules, sections, content_format, passages, language, translations)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17)`,
    [
      testVersionId,
      testId,
      version,
      input.title,
      input.description,
      input.durationMinutes,
      input.proctoring,
      input.marking,
      input.resultVisibility,
      input.passPercent ?? null,
      JSON.stringify(content.questions),
      rulesJson(storedProctoringRules(input)),
      content.sections ? JSON.stringify(content.sections) : null,
      input.contentFormat ?? 'plain',
      JSON.stringify(content.passages),
      input.language ?? null,
      JSON.stringify(content.translations),
    ],
  );
  if (content.assetIds.length > 0) {
    await db.query('INSERT INTO test_version_assets (test_version_id, asset_id) SELECT $1, unnest($2::text[])', [testVersionId, content.assetIds]);
  }
  return testVersionId;
}

/**
 * The frozen copy of a draft revision that the editor's **Try it** takes
 * (docs/authoring.md "Try it"): version number −(revision + 1), so it is
 * never current (`current_version` is 0 or more), never listed and never
 * assignable by a partner; the same revision tried twice reuses its copy.
 */
export async function trialVersionId(tx: Queryable, testId: string, revision: number, input: TestInput, content: CheckedContent): Promise<string> {
  const { rows } = await tx.query<{ id: string }>('SELECT id FROM test_versions WHERE test_id = $1 AND version = $2', [testId, -(revision + 1)]);
  return rows[0]?.id ?? insertVersion(tx, testId, -(revision + 1), input, content);
}

export async function insertTest(pool: Pool, input: TestInput, content: CheckedContent): Promise<string> {
  const testId = newId('tst');
  await withTransaction(pool, async (tx) => {
    await tx.query('INSERT INTO tests (id, current_version) VALUES ($1, 1)', [testId]);
    await insertVersion(tx, testId, 1, input, content);
  });
  return testId;
}

/**
 * The next version of a test whose row the caller's transaction holds (FOR
 * UPDATE), made current; returns its number. Publishing a draft uses it.
 */
export async function appendVersion(tx: Queryable, testId: string, input: TestInput, content: CheckedContent): Promise<number> {
  const { rows } = await tx.query<{ current_version: number }>('SELECT current_version FROM tests WHERE id = $1', [testId]);
  const version = rows[0]!.current_version + 1;
  await insertVersion(tx, testId, version, input, content);
  await tx.query('UPDATE tests SET current_version = $2, updated_at = now() WHERE id = $1', [testId, version]);
  return version;
}

/** Writes a new version and makes it current; existing assignments keep the version they pinned. */
export async function insertNewVersion(pool: Pool, testId: string, input: TestInput, content: CheckedContent): Promise<boolean> {
  return withTransaction(pool, async (tx) => {
    const { rows } = await tx.query<{ current_version: number }>('SELECT current_version FROM tests WHERE id = $1 AND deleted_at IS NULL FOR UPDATE', [testId]);
    if (!rows[0]) return false;
    const version = rows[0].current_version + 1;
    await insertVersion(tx, testId, version, input, content);
    await tx.query('UPDATE tests SET current_version = $2, updated_at = now() WHERE id = $1', [testId, version]);
    return true;
  });
}

export async function getAdminTest(db: Queryable, testId: string): Promise<AdminTestView | null> {
  const { rows } = await db.query<VersionRecord & AdminRecord>(
    `SELECT ${VERSION_COLUMNS}, t.updated_at,
            COALESCE((SELECT array_agg(p.institution_id ORDER BY p.institution_id) FROM publications p WHERE p.test_id = t.id), '{}') AS published_to
       FROM tests t JOIN test_versions tv ON tv.test_id = t.id AND tv.version = t.current_version
      WHERE t.id = $1 AND t.deleted_at IS NULL`,
    [testId],
  );
  const r = rows[0];
  if (!r) return null;
  const { testVersionId: _omit, questions, sections, passages, language, translations, createdAt, ...head } = toVersion(r);
  const content = sections ? { sections: sectionsWithQuestions(sections, questions) } : { questions };
  const translated = Object.keys(translations).length > 0;
  return {
    ...head,
    ...content,
    ...(passages.length > 0 ? { passages } : {}),
    ...(language !== null ? { language } : {}),
    ...(translated ? { translations: plainTranslations(translations), translationStatus: translationStatus(translations, { ...head, sections, questions, passages }) } : {}),
    createdAt,
    publishedTo: r.published_to,
    updatedAt: r.updated_at,
  };
}

/** The current version of a test as stored (every question, the sections), or null. */
export async function getCurrentTestVersion(db: Queryable, testId: string): Promise<TestVersion | null> {
  const { rows } = await db.query<VersionRecord>(
    `SELECT ${VERSION_COLUMNS} FROM tests t JOIN test_versions tv ON tv.test_id = t.id AND tv.version = t.current_version WHERE t.id = $1 AND t.deleted_at IS NULL`,
    [testId],
  );
  return rows[0] ? toVersion(rows[0]) : null;
}

export async function getTestVersionById(db: Queryable, testVersionId: string): Promise<TestVersion | null> {
  const { rows } = await db.query<VersionRecord>(`SELECT ${VERSION_COLUMNS} FROM test_versions tv WHERE tv.id = $1`, [testVersionId]);
  return rows[0] ? toVersion(rows[0]) : null;
}

/** The current version of a test, only if it is published to the institution. */
export async function findPublishedTest(db: Queryable, institutionId: string, testId: string): Promise<TestSummary | null> {
  const { rows } = await db.query<SummaryRecord>(
    `SELECT ${SUMMARY_COLUMNS}
       FROM publications p
       JOIN tests t ON t.id = p.test_id AND t.deleted_at IS NULL
       JOIN test_versions tv ON tv.test_id = t.id AND tv.version = t.current_version
      WHERE p.institution_id = $1 AND p.test_id = $2`,
    [institutionId, testId],
  );
  return rows[0] ? toSummary(rows[0]) : null;
}

/** A listed test: its summary, its declared language (null: read as `en`), and the languages a candidate can read it in (languagesOf). */
export type ListedTest = TestSummary & { language: string | null; languages: string[] };
type TestPage = { data: ListedTest[]; total: number };
/** A listing row: the summary's columns, the declared language, and the translations' locales (not their texts). */
type ListedRecord = SummaryRecord & { language: string | null; translation_locales: string[] };

/**
 * The summary object itself, completed: not `{ ...toSummary(r), language, languages }`. On Node 20's V8 an
 * object made by a spread and then given a property its source lacked outlives the next young collection;
 * that kept every listing read since the last one alive, 14 KB a read, and each collection copied them all
 * (docs/performance.md, "What survives a young collection").
 */
function toListed(r: ListedRecord): ListedTest {
  const listed = toSummary(r) as ListedTest;
  listed.language = r.language;
  listed.languages = languagesOf(r.language, r.translation_locales);
  return listed;
}
type PageKey = { institutionId: string; limit: number; offset: number };

/** The locales of a version's translations as text[], without sending their texts (a test with none has '{}'). */
const TRANSLATION_LOCALES = `ARRAY(SELECT jsonb_object_keys(tv.translations))`;

/** The SQL of one institution's page of published tests with the total, for the single and the batch listing. */
function publishedPage(institutionId: string, limit: string, offset: string): string {
  return `SELECT ${SUMMARY_COLUMNS}, tv.language, ${TRANSLATION_LOCALES} AS translation_locales, count(*) OVER () AS total, p.published_at
       FROM publications p
       JOIN tests t ON t.id = p.test_id AND t.deleted_at IS NULL
       JOIN test_versions tv ON tv.test_id = t.id AND tv.version = t.current_version
      WHERE p.institution_id = ${institutionId}
      ORDER BY p.published_at, p.test_id
      LIMIT ${limit} OFFSET ${offset}`;
}

/** One institution's page of published tests, with the total, in one statement. */
async function listPage(db: Queryable, { institutionId, limit, offset }: PageKey): Promise<TestPage> {
  const { rows } = await db.query<ListedRecord & { total: number }>({
    name: 'list-published-tests',
    text: publishedPage('$1', '$2', '$3'),
    values: [institutionId, limit, offset],
  });
  return { data: rows.map(toListed), total: rows[0] ? rows[0].total : await countPublished(db, institutionId) };
}

/** Past the last page the window function has no row to report on. */
async function countPublished(db: Queryable, institutionId: string): Promise<number> {
  const c = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM publications p JOIN tests t ON t.id = p.test_id AND t.deleted_at IS NULL
      JOIN test_versions tv ON tv.test_id = t.id AND tv.version = t.current_version WHERE p.institution_id = $1`,
    [institutionId],);
  return c.rows[0]!.n;
}

/**
 * listPage for several requests at once: $1 is a JSON array of `{"n",
 * "institution_id", "lim", "off"}`, each page computed on its own (LATERAL)
 * and `n` saying which request a row answers. JSON rather than arrays so
 * PostgreSQL keeps one generic plan (see READ_ASSIGNMENTS_SQL). The page's
 * `published_at` orders the rows but is not sent back: pg would parse it into
 * a Date per row (the costliest part of reading a listing row) for nothing.
 */
export const LIST_PUBLISHED_TESTS_BATCH_SQL = `SELECT k.n, x.test_version_id, x.test_id, x.version, x.title, x.description, x.duration_minutes,
        x.proctoring, x.proctoring_rules, x.marking, x.result_visibility, x.pass_percent, x.created_at, x.language, x.translation_locales, x.total
   FROM jsonb_to_recordset($1::jsonb) AS k (n int, institution_id text, lim int, off int)
   CROSS JOIN LATERAL (${publishedPage('k.institution_id', 'k.lim', 'k.off')}) x
  ORDER BY k.n, x.published_at, x.test_id`;

/** The listings requested in one event-loop turn, as one statement (turn-batcher.ts); a listing alone, or in a transaction, runs listPage. */
const listBatched = batchedPerPool<PageKey, TestPage>({
  one: listPage,
  async many(pool, keys) {
    const { rows } = await pool.query<ListedRecord & { total: number; n: number }>({
      name: 'list-published-tests-batch',
      text: LIST_PUBLISHED_TESTS_BATCH_SQL,
      values: [JSON.stringify(keys.map((k, n) => ({ n, institution_id: k.institutionId, lim: k.limit, off: k.offset })))],
    });
    const pages: Array<TestPage | null> = keys.map(() => null);
    for (const r of rows) (pages[r.n] ??= { data: [] as ListedTest[], total: r.total }).data.push(toListed(r));
    return Promise.all(pages.map(async (page, i) => page ?? { data: [], total: await countPublished(pool, keys[i]!.institutionId) }));
  },
});

/**
 * The institution's published tests, a page at a time, with the total. On a
 * pool, the listings requested in one turn of the event loop share one
 * statement; in a transaction the listing runs alone.
 */
export function listPublishedTests(db: Queryable, institutionId: string, page: { limit: number; offset: number }): Promise<TestPage> {
  return listBatched(db, { institutionId, limit: page.limit, offset: page.offset });
}

/**
 * 'not_found' when the test (not deleted) or the institution does not exist;
 * 'owned_elsewhere' when the test is another institution's own (published to
 * its owner only). Publishing twice is a no-op.
 */
export async function publish(db: Queryable, testId: string, institutionId: string): Promise<'ok' | 'not_found' | 'owned_elsewhere'> {
  const { rows } = await db.query<{ owner: string | null; institution: boolean }>(
    `SELECT t.owner_institution_id AS owner, EXISTS (SELECT 1 FROM institutions WHERE id = $1) AS institution
       FROM tests t WHERE t.id = $2 AND t.deleted_at IS NULL`,
    [institutionId, testId],
  );
  const r = rows[0];
  if (!r || !r.institution) return 'not_found';
  if (r.owner !== null && r.owner !== institutionId) return 'owned_elsewhere';
  await db.query('INSERT INTO publications (institution_id, test_id) VALUES ($1, $2) ON CONFLICT DO NOTHING', [institutionId, testId]);
  return 'ok';
}

/** Unpublishing stops new assignments; existing ones continue on their pinned version. */
export async function unpublish(db: Queryable, testId: string, institutionId: string): Promise<boolean> {
  await db.query('DELETE FROM publications WHERE institution_id = $1 AND test_id = $2', [institutionId, testId]);
  const { rows } = await db.query(
    'SELECT EXISTS (SELECT 1 FROM institutions WHERE id = $1) AND EXISTS (SELECT 1 FROM tests WHERE id = $2) AS ok',
    [institutionId, testId],
  );
  return rows[0].ok;
}

/** The current title of each test id given (for listings that show a test by name). */
export async function listTestTitles(db: Queryable, testIds: string[]): Promise<Map<string, string>> {
  if (testIds.length === 0) return new Map();
  const { rows } = await db.query<{ id: string; title: string }>(
    `SELECT t.id, tv.title FROM tests t JOIN test_versions tv ON tv.test_id = t.id AND tv.version = t.current_version
      WHERE t.id = ANY ($1::text[])`,
    [testIds],
  );
  return new Map(rows.map((r) => [r.id, r.title]));
}

/** Every test, newest first, with its current version's summary and the institutions it is published to (operators). */
export async function listAllTests(
  db: Queryable,
  page: { limit: number; offset: number },
): Promise<{ data: Array<TestSummary & { publishedTo: string[]; updatedAt: Date }>; total: number }> {
  const [list, count] = await Promise.all([
    db.query<SummaryRecord & AdminRecord>(
      `SELECT ${SUMMARY_COLUMNS}, t.updated_at,
              COALESCE((SELECT array_agg(p.institution_id ORDER BY p.institution_id) FROM publications p WHERE p.test_id = t.id), '{}') AS published_to
         FROM tests t JOIN test_versions tv ON tv.test_id = t.id AND tv.version = t.current_version
        WHERE t.deleted_at IS NULL
        ORDER BY t.created_at DESC, t.id DESC LIMIT $1 OFFSET $2`,
      [page.limit, page.offset],
    ),
    db.query<{ n: number }>('SELECT count(*)::int AS n FROM tests t WHERE t.deleted_at IS NULL AND t.current_version > 0'),
  ]);
  return { data: list.rows.map((r) => ({ ...toSummary(r), publishedTo: r.published_to, updatedAt: r.updated_at })), total: count.rows[0]!.n };
}
