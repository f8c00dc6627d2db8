import type pg from 'pg';
import type { TablePlan } from './citus-plan.js';

/**
 * What would stop the schema from being distributed on Citus as the plan
 * says (citus-plan.ts), read from the live schema after migrations. The rules
 * are Citus's own:
 *  - a distributed table's rows need a value in the distribution column (NULL is refused);
 *  - a primary key, unique constraint, unique index or exclusion constraint of
 *    a distributed table must include the distribution column (each shard
 *    enforces it alone);
 *  - a foreign key between distributed tables must pair the two distribution
 *    columns (both rows on one shard of co-located tables);
 *  - no foreign key from a reference table to a distributed one, nor between
 *    a distributed table and a local (coordinator-only) one, either way;
 *  - co-located tables' distribution columns have one type;
 *  - a sequence that fills a distributed table's column is bigint (workers
 *    take disjoint ranges of it);
 *  - a function whose body touches distributed tables runs on the coordinator
 *    as multi-shard statements: each must be reviewed (locking, SKIP LOCKED).
 * Partitioned tables count once (relkind 'p'); their partitions are not tables of
 * their own, but a key defined on the partitions themselves counts for the parent.
 */
export interface Blocker {
  /** Stable: `<rule>:<table>[.<constraint|index|column>]`, or `<rule>:<function>`. */
  id: string;
  detail: string;
}

export interface SchemaSnapshot {
  tables: Array<{ name: string; partitioned: boolean }>;
  columns: Array<{ table: string; name: string; nullable: boolean; type: string; sequenceFilled: boolean }>;
  /** Primary keys, unique and exclusion constraints, and unique indexes that back no constraint. */
  uniques: Array<{ table: string; name: string; kind: 'primary key' | 'unique' | 'exclusion' | 'unique index'; columns: string[] }>;
  foreignKeys: Array<{ table: string; name: string; columns: string[]; refTable: string; refColumns: string[] }>;
  functions: Array<{ name: string; body: string }>;
}

/** The public schema as Citus would see it; partitions are left out (their parent stands for them). */
export async function readSchema(client: pg.Pool | pg.Client): Promise<SchemaSnapshot> {
  const tables = await client.query<{ name: string; partitioned: boolean }>(
    `SELECT c.relname AS name, c.relkind = 'p' AS partitioned FROM pg_class c
      WHERE c.relnamespace = 'public'::regnamespace AND c.relkind IN ('r', 'p') AND NOT c.relispartition ORDER BY 1`,
  );
  const columns = await client.query<{ table: string; name: string; nullable: boolean; type: string; sequenceFilled: boolean }>(
    `SELECT table_name AS table, column_name AS name, is_nullable = 'YES' AS nullable, data_type AS type,
            (is_identity = 'YES' OR coalesce(column_default, '') LIKE 'nextval(%') AS "sequenceFilled"
       FROM information_schema.columns WHERE table_schema = 'public' ORDER BY table_name, ordinal_position`,
  );
  const attnames = (rel: string, nums: string) => `ARRAY(SELECT a.attname::text FROM unnest(${nums}) WITH ORDINALITY k(n, i)
      JOIN pg_attribute a ON a.attrelid = ${rel} AND a.attnum = k.n ORDER BY k.i)`;
  // A partition's own keys (a partitioned parent cannot hold a unique key without its partition key, so they may
  // live on each partition alone) count for the parent, named by what they are rather than by their monthly
  // names; what a partition inherits from its parent (conparentid, an attached index) counts once, on the parent.
  const root = (rel: string) => `(SELECT r.relname FROM pg_class r WHERE r.oid = coalesce(pg_partition_root(${rel}), ${rel}))`;
  const uniques = await client.query<Row<SchemaSnapshot['uniques'][number]>>(
    `SELECT DISTINCT ${root('c.oid')} AS table, con.conname AS name, c.relispartition AS "onPartition",
            CASE con.contype WHEN 'p' THEN 'primary key' WHEN 'u' THEN 'unique' ELSE 'exclusion' END AS kind,
            ${attnames('con.conrelid', 'con.conkey')} AS columns
       FROM pg_constraint con JOIN pg_class c ON c.oid = con.conrelid
      WHERE c.relnamespace = 'public'::regnamespace AND con.contype IN ('p', 'u', 'x') AND con.conparentid = 0
     UNION
     SELECT ${root('t.oid')}, i.relname, t.relispartition, 'unique index', ${attnames('x.indrelid', 'x.indkey::int2[]')}
       FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_class t ON t.oid = x.indrelid
      WHERE t.relnamespace = 'public'::regnamespace AND x.indisunique AND NOT i.relispartition
        AND NOT EXISTS (SELECT 1 FROM pg_constraint con WHERE con.conindid = x.indexrelid AND con.conrelid = x.indrelid)`,
  );
  const foreignKeys = await client.query<Row<SchemaSnapshot['foreignKeys'][number]>>(
    `SELECT ${root('c.oid')} AS table, con.conname AS name, c.relispartition AS "onPartition",
            ${attnames('con.conrelid', 'con.conkey')} AS columns,
            ${root('con.confrelid')} AS "refTable", ${attnames('con.confrelid', 'con.confkey')} AS "refColumns"
       FROM pg_constraint con JOIN pg_class c ON c.oid = con.conrelid
      WHERE c.relnamespace = 'public'::regnamespace AND con.contype = 'f' AND con.conparentid = 0`,
  );
  const functions = await client.query<{ name: string; body: string }>(
    `SELECT proname AS name, prosrc AS body FROM pg_proc WHERE pronamespace = 'public'::regnamespace ORDER BY 1`,
  );
  return {
    tables: tables.rows,
    columns: columns.rows,
    uniques: onParents(uniques.rows, (u) => `partition-${u.kind.replace(' ', '-')}(${u.columns.join(',')})`),
    foreignKeys: onParents(foreignKeys.rows, (f) => `partition-foreign-key(${f.columns.join(',')})->${f.refTable}`),
    functions: functions.rows,
  };
}

type Row<T> = T & { onPartition: boolean };

/** Rows named for their table, a partition's own under a stable name (one per kind and columns for all partitions). */
function onParents<T extends { table: string; name: string }>(rows: Array<Row<T>>, partitionName: (row: T) => string): T[] {
  const byId = new Map<string, T>();
  for (const { onPartition, ...row } of rows) {
    const named = { ...row, name: onPartition ? partitionName(row as unknown as T) : row.name } as unknown as T;
    byId.set(`${named.table}.${named.name}`, named);
  }
  return [...byId.values()].sort((a, b) => (`${a.table}.${a.name}` < `${b.table}.${b.name}` ? -1 : 1));
}

/** Every blocker of distributing `schema` as `plan` says. Tables missing from the plan are the caller's check. */
export function findBlockers(schema: SchemaSnapshot, plan: Readonly<Record<string, TablePlan>>): Blocker[] {
  const out: Blocker[] = [];
  const kindOf = (table: string) => plan[table]?.kind;
  const distColumn = (table: string) => {
    const p = plan[table];
    return p?.kind === 'distributed' ? p.column : null;
  };
  for (const [table, p] of Object.entries(plan)) {
    if (p.kind !== 'distributed') continue;
    const column = schema.columns.find((c) => c.table === table && c.name === p.column);
    if (!column) {
      out.push({ id: `missing-distribution-column:${table}`, detail: `${table} has no ${p.column} yet: ${p.addColumn ?? ''}` });
    } else if (column.nullable) {
      out.push({ id: `nullable-distribution-column:${table}`, detail: `${table}.${p.column} admits NULL, which a distributed table refuses` });
    }
    for (const c of schema.columns.filter((c) => c.table === table && c.sequenceFilled && c.type !== 'bigint')) {
      out.push({ id: `sequence-not-bigint:${table}.${c.name}`, detail: `${table}.${c.name} is a ${c.type} filled by a sequence` });
    }
  }
  // Co-location needs one type: the most common one is taken as the intended one.
  const types = Object.entries(plan).flatMap(([table, p]) =>
    p.kind === 'distributed' ? schema.columns.filter((c) => c.table === table && c.name === p.column) : [],
  );
  const counts = new Map<string, number>();
  for (const c of types) counts.set(c.type, (counts.get(c.type) ?? 0) + 1);
  const usual = [...counts].sort((x, y) => y[1] - x[1])[0]?.[0];
  for (const c of types.filter((c) => c.type !== usual)) {
    out.push({ id: `distribution-column-type-differs:${c.table}`, detail: `${c.table}.${c.name} is ${c.type}, the others ${usual}: they cannot be co-located` });
  }
  for (const u of schema.uniques) {
    const column = distColumn(u.table);
    if (column && !u.columns.includes(column)) {
      out.push({
        id: `unique-without-distribution-column:${u.table}.${u.name}`,
        detail: `${u.kind} (${u.columns.join(', ')}) of ${u.table} leaves out ${column}`,
      });
    }
  }
  for (const fk of schema.foreignKeys) {
    const from = kindOf(fk.table);
    const to = kindOf(fk.refTable);
    const where = `${fk.table}.${fk.name}`;
    const what = `${fk.table} (${fk.columns.join(', ')}) → ${fk.refTable} (${fk.refColumns.join(', ')})`;
    if (from === 'distributed' && to === 'distributed') {
      const a = distColumn(fk.table);
      const b = distColumn(fk.refTable);
      const paired = fk.columns.some((c, i) => c === a && fk.refColumns[i] === b);
      if (!paired) out.push({ id: `foreign-key-without-distribution-column:${where}`, detail: `${what} does not pair ${a} with ${b}` });
    } else if (from === 'reference' && to === 'distributed') {
      out.push({ id: `foreign-key-reference-to-distributed:${where}`, detail: `${what}: a reference table cannot point into shards` });
    } else if ((from === 'distributed' && to === 'local') || (from === 'local' && to === 'distributed')) {
      out.push({ id: `foreign-key-${from}-to-${to}:${where}`, detail: `${what}: no foreign key between the coordinator's local tables and shards` });
    }
  }
  const distributed = Object.entries(plan).flatMap(([t, p]) => (p.kind === 'distributed' ? [t] : []));
  for (const f of schema.functions) {
    const touched = distributed.filter((t) => new RegExp(`\\b${t}\\b`).test(f.body));
    if (touched.length > 0) {
      out.push({ id: `function-over-distributed-tables:${f.name}`, detail: `${f.name}() reads or writes ${touched.join(', ')} across shards` });
    }
  }
  return out.sort((x, y) => (x.id < y.id ? -1 : x.id > y.id ? 1 : 0));
}
