import type { Queryable } from '../../../platform/db.js';

/** An uploaded image as stored; its bytes are in object storage under storageKey. */
export interface AssetRow {
  assetId: string;
  /** Null for the operators' assets (the catalogue's); an institution's id for its authors' own. */
  ownerInstitutionId: string | null;
  storageKey: string;
  contentType: string;
  bytes: number;
  sha256: string;
  createdAt: Date;
}

const COLUMNS = `id AS "assetId", owner_institution_id AS "ownerInstitutionId", storage_key AS "storageKey",
  content_type AS "contentType", bytes::float8 AS bytes, sha256, created_at AS "createdAt"`;

export async function insertAsset(db: Queryable, a: Omit<AssetRow, 'createdAt'>): Promise<AssetRow> {
  const { rows } = await db.query<AssetRow>(
    `INSERT INTO assets (id, owner_institution_id, storage_key, content_type, bytes, sha256)
     VALUES ($1, $2, $3, $4, $5, $6) RETURNING ${COLUMNS}`,
    [a.assetId, a.ownerInstitutionId, a.storageKey, a.contentType, a.bytes, a.sha256],
  );
  return rows[0]!;
}

export async function findAsset(db: Queryable, assetId: string): Promise<AssetRow | null> {
  const { rows } = await db.query<AssetRow>(`SELECT ${COLUMNS} FROM assets WHERE id = $1`, [assetId]);
  return rows[0] ?? null;
}

/** Which of `assetIds` exist with this owner (null: the operators'). */
export async function existingAssetIds(db: Queryable, assetIds: string[], ownerInstitutionId: string | null): Promise<Set<string>> {
  if (assetIds.length === 0) return new Set();
  const { rows } = await db.query<{ id: string }>(
    'SELECT id FROM assets WHERE id = ANY ($1::text[]) AND owner_institution_id IS NOT DISTINCT FROM $2',
    [assetIds, ownerInstitutionId],
  );
  return new Set(rows.map((r) => r.id));
}

/** Whether a test version's texts name the asset (test_version_assets is written with the version). */
export async function versionsNamingAsset(db: Queryable, assetId: string, testVersionIds: string[]): Promise<boolean> {
  if (testVersionIds.length === 0) return false;
  const { rows } = await db.query(
    'SELECT 1 FROM test_version_assets WHERE asset_id = $1 AND test_version_id = ANY ($2::text[]) LIMIT 1',
    [assetId, testVersionIds],
  );
  return rows.length > 0;
}
