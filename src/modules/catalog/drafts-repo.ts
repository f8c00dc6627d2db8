import { newId } from '../../platform/ids.js';
import type { Queryable } from '../../platform/db.js';
import type { StoredTranslations } from './translations/translation-schema.js';

/** A test as authoring sees it: who owns it, its current version (0: none yet), deleted or not. */
export interface TestHead {
  testId: string;
  ownerInstitutionId: string | null;
  currentVersion: number;
}

export interface StoredDraft {
  content: Record<string, unknown>;
  revision: number;
  updatedBy: string | null;
  updatedByEmail: string | null;
  updatedAt: Date;
  auditActor: string | null;
  auditedAt: Date | null;
  /** The source hashes of the content's translations (translations/translation-store.ts): what tells a stale text after the source changed. */
  translations: StoredTranslations;
}

type DraftRecord = {
  content: Record<string, unknown>;
  revision: number;
  updated_by: string | null;
  updated_by_email: string | null;
  updated_at: Date;
  audit_actor: string | null;
  audited_at: Date | null;
  translations: StoredTranslations;
};

const toDraft = (r: DraftRecord): StoredDraft => ({
  content: r.content,
  revision: r.revision,
  updatedBy: r.updated_by,
  updatedByEmail: r.updated_by_email,
  updatedAt: r.updated_at,
  auditActor: r.audit_actor,
  auditedAt: r.audited_at,
  translations: r.translations,
});

/** A test not deleted; `lock` takes its row for the rest of the transaction (publishing, deleting). */
export async function findTestHead(db: Queryable, testId: string, lock = false): Promise<TestHead | null> {
  const { rows } = await db.query<{ id: string; owner_institution_id: string | null; current_version: number }>(
    `SELECT id, owner_institution_id, current_version FROM tests WHERE id = $1 AND deleted_at IS NULL${lock ? ' FOR UPDATE' : ''}`,
    [testId],
  );
  const r = rows[0];
  return r ? { testId: r.id, ownerInstitutionId: r.owner_institution_id, currentVersion: r.current_version } : null;
}

/** A test with no version yet (current_version 0) and its first draft. */
export async function insertDraftTest(
  db: Queryable,
  owner: string | null,
  content: Record<string, unknown>,
  by: { staffId: string | null; email: string | null },
  translations: StoredTranslations,
): Promise<string> {
  const testId = newId('tst');
  await db.query('INSERT INTO tests (id, current_version, owner_institution_id) VALUES ($1, 0, $2)', [testId, owner]);
  await db.query(
    `INSERT INTO test_drafts (test_id, content, revision, updated_by, updated_by_email, translations) VALUES ($1, $2, 1, $3, $4, $5)`,
    [testId, JSON.stringify(content), by.staffId, by.email, JSON.stringify(translations)],
  );
  return testId;
}

const DRAFT_COLUMNS = 'content, revision, updated_by, updated_by_email, updated_at, audit_actor, audited_at, translations';

export async function getDraft(db: Queryable, testId: string, lock = false): Promise<StoredDraft | null> {
  const { rows } = await db.query<DraftRecord>(`SELECT ${DRAFT_COLUMNS} FROM test_drafts WHERE test_id = $1${lock ? ' FOR UPDATE' : ''}`, [testId]);
  return rows[0] ? toDraft(rows[0]) : null;
}

/**
 * Writes the draft if it is still at `fromRevision` (0: there is no draft
 * row yet), as the next revision; null when another save came first. With
 * an editor `instance`, a save from an older revision still goes through
 * when every revision since `fromRevision` was written by that same
 * instance (its run of saves started at or before `fromRevision`): a
 * browser tab reloaded while its own last save was on the way is not in
 * conflict with itself.
 */
export async function writeDraft(
  db: Queryable,
  testId: string,
  fromRevision: number,
  content: Record<string, unknown>,
  by: { staffId: string | null; email: string | null },
  translations: StoredTranslations,
  instance: string | null = null,
): Promise<StoredDraft | null> {
  const values = [testId, fromRevision, JSON.stringify(content), by.staffId, by.email, JSON.stringify(translations), instance];
  if (fromRevision === 0) {
    const { rows } = await db.query<DraftRecord>(
      `INSERT INTO test_drafts (test_id, content, revision, updated_by, updated_by_email, translations, editor_instance, editor_run_from)
       VALUES ($1, $3, 1, $4, $5, $6, $7, $2) ON CONFLICT (test_id) DO NOTHING RETURNING ${DRAFT_COLUMNS}`,
      values,
    );
    if (rows[0] || instance === null) return rows[0] ? toDraft(rows[0]) : null;
  }
  const { rows } = await db.query<DraftRecord>(
    `UPDATE test_drafts SET content = $3, revision = revision + 1, updated_by = $4, updated_by_email = $5, updated_at = clock_timestamp(), translations = $6,
            editor_run_from = CASE WHEN $7::text IS NOT NULL AND editor_instance = $7 THEN editor_run_from ELSE $2 END, editor_instance = $7
      WHERE test_id = $1
        AND (revision = $2 OR ($7::text IS NOT NULL AND editor_instance = $7 AND editor_run_from <= $2 AND $2 < revision))
      RETURNING ${DRAFT_COLUMNS}`,
    values,
  );
  return rows[0] ? toDraft(rows[0]) : null;
}

/** Notes that an audit entry was written for a save by `actor` (coalescing: see drafts.ts). */
export async function markDraftAudited(db: Queryable, testId: string, actor: string): Promise<void> {
  await db.query('UPDATE test_drafts SET audit_actor = $2, audited_at = clock_timestamp() WHERE test_id = $1', [testId, actor]);
}

export async function softDeleteTest(db: Queryable, testId: string): Promise<void> {
  await db.query('UPDATE tests SET deleted_at = now(), updated_at = now() WHERE id = $1', [testId]);
}

/** The institution's own test is published to it (once it has a version). */
export async function publishToOwner(db: Queryable, testId: string, institutionId: string): Promise<void> {
  await db.query('INSERT INTO publications (institution_id, test_id) VALUES ($1, $2) ON CONFLICT DO NOTHING', [institutionId, testId]);
}

export interface VersionListItem {
  version: number;
  title: string;
  questionCount: number;
  createdAt: Date;
}

export async function listVersions(db: Queryable, testId: string): Promise<VersionListItem[]> {
  const { rows } = await db.query<{ version: number; title: string; n: number; created_at: Date }>(
    'SELECT version, title, jsonb_array_length(questions)::int AS n, created_at FROM test_versions WHERE test_id = $1 AND version > 0 ORDER BY version DESC',
    [testId],
  );
  return rows.map((r) => ({ version: r.version, title: r.title, questionCount: r.n, createdAt: r.created_at }));
}

/** The id of one version of a test, or null. */
export async function versionId(db: Queryable, testId: string, version: number): Promise<string | null> {
  const { rows } = await db.query<{ id: string }>('SELECT id FROM test_versions WHERE test_id = $1 AND version = $2', [testId, version]);
  return rows[0]?.id ?? null;
}

export interface AuthoredTestRow {
  testId: string;
  ownerInstitutionId: string | null;
  title: string;
  currentVersion: number;
  draftRevision: number | null;
  updatedAt: Date;
}

/** Tests not deleted, newest first: one institution's own (owner given) or every one (undefined), drafts-only ones included. */
export async function listAuthoredTests(
  db: Queryable,
  owner: string | undefined,
  page: { limit: number; offset: number },
): Promise<{ data: AuthoredTestRow[]; total: number }> {
  const where = owner === undefined ? 't.deleted_at IS NULL' : 't.deleted_at IS NULL AND t.owner_institution_id = $3';
  const params: unknown[] = [page.limit, page.offset, ...(owner === undefined ? [] : [owner])];
  const { rows } = await db.query<{
    id: string;
    owner_institution_id: string | null;
    title: string | null;
    current_version: number;
    revision: number | null;
    updated_at: Date;
    total: number;
  }>(
    `SELECT t.id, t.owner_institution_id, coalesce(d.content->>'title', tv.title) AS title, t.current_version, d.revision,
            greatest(t.updated_at, d.updated_at) AS updated_at, count(*) OVER ()::int AS total
       FROM tests t
       LEFT JOIN test_versions tv ON tv.test_id = t.id AND tv.version = t.current_version
       LEFT JOIN test_drafts d ON d.test_id = t.id
      WHERE ${where}
      ORDER BY t.created_at DESC, t.id DESC LIMIT $1 OFFSET $2`,
    params,
  );
  return {
    data: rows.map((r) => ({
      testId: r.id,
      ownerInstitutionId: r.owner_institution_id,
      title: r.title ?? '',
      currentVersion: r.current_version,
      draftRevision: r.revision,
      updatedAt: r.updated_at,
    })),
    total: rows[0]?.total ?? 0,
  };
}
