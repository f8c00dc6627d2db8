import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../helpers/database.js';
import { findBlockers, readSchema, type SchemaSnapshot } from './citus-blockers.js';
import { BLOCKERS_BY_CHANGE, CHANGES, CITUS_PLAN, KNOWN_BLOCKERS, type TablePlan } from './citus-plan.js';

/**
 * The Citus plan (citus-plan.ts, docs/scaling.md) against the schema the
 * migrations build: every table has a decision, every distributed table its
 * column, and what would block distribution is exactly the plan's list of
 * known blockers, so a new blocker fails here and a fixed one must leave the
 * list (and the docs).
 */
let db: Awaited<ReturnType<typeof createTestDatabase>>;
let client: pg.Client;
let schema: SchemaSnapshot;

beforeAll(async () => {
  db = await createTestDatabase();
  client = new pg.Client({ connectionString: db.url });
  await client.connect();
  schema = await readSchema(client);
});
afterAll(async () => {
  await client.end();
  await db.drop();
});

describe('the Citus plan', () => {
  it('decides every table of the schema, and only those', () => {
    const tables = schema.tables.map((t) => t.name).sort();
    expect(tables.filter((t) => !(t in CITUS_PLAN)), 'tables without a decision in test/architecture/citus-plan.ts').toEqual([]);
    expect(Object.keys(CITUS_PLAN).filter((t) => !tables.includes(t)), 'planned tables the schema does not have').toEqual([]);
  });

  it('gives every distributed table its distribution column, or says how it arrives', () => {
    const lacking = Object.entries(CITUS_PLAN).filter(
      ([table, p]) => p.kind === 'distributed' && !p.addColumn && !schema.columns.some((c) => c.table === table && c.name === p.column),
    );
    expect(lacking.map(([t]) => t)).toEqual([]);
    const added = Object.entries(CITUS_PLAN).filter(([table, p]) => p.kind === 'distributed' && p.addColumn && schema.columns.some((c) => c.table === table && c.name === p.column));
    expect(added.map(([t]) => t), 'the column is there now: drop addColumn from the plan').toEqual([]);
  });

  it('lists exactly the known blockers', () => {
    const found = findBlockers(schema, CITUS_PLAN);
    const known = Object.keys(KNOWN_BLOCKERS).sort();
    const ids = found.map((b) => b.id);
    expect(
      found.filter((b) => !known.includes(b.id)).map((b) => `${b.id}  (${b.detail})`),
      'new blockers: fix them, or add them to KNOWN_BLOCKERS with the change each needs (and to docs/scaling.md)',
    ).toEqual([]);
    expect(known.filter((id) => !ids.includes(id)), 'fixed: remove from KNOWN_BLOCKERS and docs/scaling.md').toEqual([]);
  });

  it('names each blocker once, and documents every blocker and change in docs/scaling.md', () => {
    expect(Object.values(BLOCKERS_BY_CHANGE).flat()).toHaveLength(Object.keys(KNOWN_BLOCKERS).length);
    const doc = fs.readFileSync(path.join(import.meta.dirname, '../../docs/scaling.md'), 'utf8');
    expect(Object.keys(KNOWN_BLOCKERS).filter((id) => !doc.includes(`\`${id}\``))).toEqual([]);
    expect(Object.keys(CHANGES).filter((change) => !doc.includes(`**\`${change}\`**`))).toEqual([]);
  });
});

/** The rules themselves, on a schema made up for them: each kind of blocker is found, partitions are not counted twice. */
describe('finding blockers', () => {
  const plan: Record<string, TablePlan> = {
    a: { kind: 'distributed', column: 'institution_id' },
    b: { kind: 'distributed', column: 'institution_id' },
    r: { kind: 'reference', why: '' },
    l: { kind: 'local', why: '' },
  };
  const col = (table: string, name: string, nullable = false, type = 'text', sequenceFilled = false) => ({ table, name, nullable, type, sequenceFilled });

  it('finds each rule on a made-up schema, and nothing on a clean one', () => {
    const clean: SchemaSnapshot = {
      tables: [{ name: 'a', partitioned: true }, { name: 'b', partitioned: false }, { name: 'r', partitioned: false }, { name: 'l', partitioned: false }],
      columns: [col('a', 'institution_id'), col('a', 'id', false, 'bigint', true), col('b', 'institution_id'), col('b', 'a_id')],
      uniques: [{ table: 'a', name: 'a_pkey', kind: 'primary key', columns: ['institution_id', 'id'] }],
      foreignKeys: [
        { table: 'b', name: 'b_a', columns: ['institution_id', 'a_id'], refTable: 'a', refColumns: ['institution_id', 'id'] },
        { table: 'b', name: 'b_r', columns: ['r_id'], refTable: 'r', refColumns: ['id'] },
        { table: 'l', name: 'l_r', columns: ['r_id'], refTable: 'r', refColumns: ['id'] },
      ],
      functions: [{ name: 'f', body: 'SELECT 1 FROM r' }],
    };
    expect(findBlockers(clean, plan)).toEqual([]);
    const broken: SchemaSnapshot = {
      ...clean,
      columns: [col('a', 'institution_id', true), col('a', 'n', false, 'integer', true), col('b', 'institution_id', false, 'uuid'), col('r', 'institution_id', false, 'uuid')],
      uniques: [{ table: 'a', name: 'a_pkey', kind: 'primary key', columns: ['id'] }, { table: 'b', name: 'b_code', kind: 'unique index', columns: ['code'] }],
      foreignKeys: [
        { table: 'b', name: 'b_a', columns: ['a_id'], refTable: 'a', refColumns: ['id'] },
        { table: 'r', name: 'r_a', columns: ['a_id'], refTable: 'a', refColumns: ['id'] },
        { table: 'a', name: 'a_l', columns: ['l_id'], refTable: 'l', refColumns: ['id'] },
        { table: 'l', name: 'l_b', columns: ['b_id'], refTable: 'b', refColumns: ['id'] },
      ],
      functions: [{ name: 'claim', body: 'UPDATE a SET x = 1' }],
    };
    expect(findBlockers({ ...broken, columns: [...broken.columns, col('c', 'institution_id')] }, { ...plan, c: plan.a!, d: plan.b! }).map((b) => b.id)).toEqual([
      'distribution-column-type-differs:b',
      'foreign-key-distributed-to-local:a.a_l',
      'foreign-key-local-to-distributed:l.l_b',
      'foreign-key-reference-to-distributed:r.r_a',
      'foreign-key-without-distribution-column:b.b_a',
      'function-over-distributed-tables:claim',
      'missing-distribution-column:d',
      'nullable-distribution-column:a',
      'sequence-not-bigint:a.n',
      'unique-without-distribution-column:a.a_pkey',
      'unique-without-distribution-column:b.b_code',
    ]);
  });

  it('reads a partitioned table once: its partitions are skipped, their own keys count for it under one name', async () => {
    await client.query(`
      CREATE TABLE public.zz_probe (institution_id text NOT NULL, id bigint, at timestamptz NOT NULL, UNIQUE (id, at)) PARTITION BY RANGE (at);
      CREATE TABLE public.zz_probe_2026 PARTITION OF public.zz_probe (PRIMARY KEY (id)) FOR VALUES FROM ('2026-01-01') TO ('2027-01-01');
      CREATE TABLE public.zz_probe_2027 PARTITION OF public.zz_probe (PRIMARY KEY (id)) FOR VALUES FROM ('2027-01-01') TO ('2028-01-01');
      CREATE TABLE public.zz_probe_ref (institution_id text NOT NULL, probe_id bigint, at timestamptz, FOREIGN KEY (probe_id, at) REFERENCES public.zz_probe (id, at));`);
    try {
      const s = await readSchema(client);
      expect(s.tables.filter((t) => t.name.startsWith('zz_probe'))).toEqual([
        { name: 'zz_probe', partitioned: true },
        { name: 'zz_probe_ref', partitioned: false },
      ]);
      const probePlan = { zz_probe: plan.a!, zz_probe_ref: plan.b! };
      expect(findBlockers({ ...s, functions: [] }, probePlan).filter((b) => b.id.includes('zz_probe')).map((b) => b.id)).toEqual([
        'foreign-key-without-distribution-column:zz_probe_ref.zz_probe_ref_probe_id_at_fkey',
        'unique-without-distribution-column:zz_probe.partition-primary-key(id)',
        'unique-without-distribution-column:zz_probe.zz_probe_id_at_key',
      ]);
    } finally {
      await client.query('DROP TABLE public.zz_probe_ref, public.zz_probe');
    }
  });
});
