import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run-cli.js';
import { freezeConfig, parseConfig } from '../../src/platform/config.js';
import { createPool, type Pool } from '../../src/platform/db.js';
import { createInstitution } from '../../src/modules/institutions/institutions.js';
import { getInstitutionSettings } from '../../src/modules/institutions/institution-settings.js';
import { createTestDatabase } from '../helpers/database.js';

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let pool: Pool;

beforeAll(async () => {
  db = await createTestDatabase();
  pool = createPool(db.url, 2);
});
afterAll(async () => {
  await pool.end();
  await db.drop();
});

async function cli(...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const config = freezeConfig({ ...parseConfig({}), databaseUrl: db.url });
  const code = await runCli(argv, { out: (t) => out.push(t), err: (t) => err.push(t) }, async () => ({ pool, config, local: null, close: async () => undefined }));
  return { code, stdout: out.join('\n'), stderr: err.join('\n') };
}

describe('assay set-proctoring-relaxations', () => {
  it('switches the institution setting on and off, as the operator API does', async () => {
    const { institutionId } = await createInstitution(pool, { name: 'Relaxed College' });
    expect(await getInstitutionSettings(pool, institutionId)).toEqual({ allowProctoringRelaxations: false, reportShowsQuestions: false });
    const on = await cli('set-proctoring-relaxations', institutionId, 'on');
    expect(on.code).toBe(0);
    expect(JSON.parse(on.stdout)).toEqual({ allowProctoringRelaxations: true, reportShowsQuestions: false });
    expect(await getInstitutionSettings(pool, institutionId)).toEqual({ allowProctoringRelaxations: true, reportShowsQuestions: false });
    expect((await cli('set-proctoring-relaxations', institutionId, 'off')).code).toBe(0);
    expect(await getInstitutionSettings(pool, institutionId)).toEqual({ allowProctoringRelaxations: false, reportShowsQuestions: false });
  });

  it('refuses a bad value (exit 2, nothing changed) and an unknown institution (exit 1)', async () => {
    const { institutionId } = await createInstitution(pool, { name: 'Strict College' });
    expect((await cli('set-proctoring-relaxations', institutionId, 'yes')).code).toBe(2);
    expect(await getInstitutionSettings(pool, institutionId)).toEqual({ allowProctoringRelaxations: false, reportShowsQuestions: false });
    const unknown = await cli('set-proctoring-relaxations', 'ins_0000000000000000000000', 'on');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('not_found');
  });
});
