import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run-cli.js';
import { freezeConfig, parseConfig } from '../../src/platform/config.js';
import { createPool, type Pool } from '../../src/platform/db.js';
import { createTestDatabase } from '../helpers/database.js';
import { itemsPackage } from '../helpers/qti.js';

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let pool: Pool;
let tmp: string;

beforeAll(async () => {
  db = await createTestDatabase();
  pool = createPool(db.url, 4);
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'assay-cli-import-'));
});
afterAll(async () => {
  await pool.end();
  await db.drop();
  fs.rmSync(tmp, { recursive: true, force: true });
});

async function cli(...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const config = freezeConfig({ ...parseConfig({}), databaseUrl: db.url });
  const code = await runCli(argv, { out: (t) => out.push(t), err: (t) => err.push(t) }, async () => ({ pool, config, local: null, close: async () => undefined }));
  return { code, stdout: out.join('\n'), stderr: err.join('\n'), json: () => JSON.parse(out.join('\n')) };
}
const write = (name: string, data: string | Uint8Array) => {
  const file = path.join(tmp, name);
  fs.writeFileSync(file, data);
  return file;
};
const countTests = async () => Number((await pool.query('SELECT count(*) FROM tests')).rows[0].count);

describe('assay import-test', () => {
  it('imports a QTI package and prints the test id and the report', async () => {
    const file = write('bank.zip', itemsPackage(['choice-single.xml', 'order.xml', 'skip-hotspot.xml'], '2.2'));
    const res = await cli('import-test', file, '--title', 'Bank');
    expect(res.code).toBe(0);
    const out = res.json();
    expect(out).toMatchObject({ dryRun: false, testId: expect.stringMatching(/^tst_/), version: 1, report: { imported: 2, skipped: [{ identifier: 'skip-hotspot' }] } });
    expect((await pool.query('SELECT title FROM test_versions WHERE test_id = $1', [out.testId])).rows).toEqual([{ title: 'Bank' }]);
  });

  it('--dry-run prints the report and creates nothing; a CSV is read as CSV', async () => {
    const before = await countTests();
    const csv = write('q.csv', 'type,prompt,correct\nnumeric,Two plus two,4\n');
    const res = await cli('import-test', csv, '--dry-run');
    expect(res.code).toBe(0);
    expect(res.json()).toMatchObject({ dryRun: true, testId: null, report: { imported: 1 }, test: { title: 'Imported questions', questions: [{ type: 'numeric', answer: 4 }] } });
    expect(await countTests()).toBe(before);
  });

  it('a file that cannot be read is a usage error; a bad CSV names row and column, exit 1', async () => {
    expect((await cli('import-test', path.join(tmp, 'missing.zip'))).code).toBe(2);
    const bad = await cli('import-test', write('bad.csv', 'type,prompt\nquiz,Hello\n'));
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/row 2, type/);
  });
});
