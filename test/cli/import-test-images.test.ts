import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run-cli.js';
import { freezeConfig, parseConfig } from '../../src/platform/config.js';
import { createPool, type Pool } from '../../src/platform/db.js';
import { createTestDatabase } from '../helpers/database.js';
import { fixture, itemsPackage } from '../helpers/qti.js';

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let pool: Pool;
let tmp: string;

beforeAll(async () => {
  db = await createTestDatabase();
  pool = createPool(db.url, 4);
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'assay-cli-import-img-'));
});
afterAll(async () => {
  await pool.end();
  await db.drop();
  fs.rmSync(tmp, { recursive: true, force: true });
});

async function cli(...argv: string[]) {
  const out: string[] = [];
  const config = freezeConfig({ ...parseConfig({}), databaseUrl: db.url });
  const code = await runCli(argv, { out: (t) => out.push(t), err: () => undefined }, async () => ({ pool, config, local: null, close: async () => undefined }));
  return { code, json: () => JSON.parse(out.join('\n')) };
}

describe('assay import-test with images', () => {
  it("stores the package's images as the platform's assets (the SVG sanitised) and shows them in the prompts", async () => {
    const file = path.join(tmp, 'images.zip');
    fs.writeFileSync(file, itemsPackage(['skip-svg-script.xml'], '3.0', { 'items/images/shape.svg': fixture('shape-with-script.svg') }));
    const res = await cli('import-test', file);
    expect(res.code).toBe(0);
    const out = res.json();
    expect(out.report).toMatchObject({ imported: 1, skipped: [] });
    // The version names the asset its prompt shows (written with the version from its texts).
    const named = (await pool.query('SELECT tva.asset_id FROM test_version_assets tva JOIN test_versions v ON v.id = tva.test_version_id WHERE v.test_id = $1', [out.testId])).rows;
    expect(named).toHaveLength(1);
    const assetId = named[0].asset_id as string;
    expect((await pool.query('SELECT owner_institution_id, content_type FROM assets WHERE id = $1', [assetId])).rows).toEqual([{ owner_institution_id: null, content_type: 'image/svg+xml' }]);
  });
});
