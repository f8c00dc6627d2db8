import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPool, isConnectionError, type Pool } from '../../src/platform/db.js';
import { createNotificationListener } from '../../src/platform/listener.js';
import { choosePrimary, NoWritableHostError, parseHostList, primaryLocatorFor } from '../../src/platform/primary-hosts.js';
import { createReadinessProbe } from '../../src/platform/readiness.js';
import { componentAvailable } from '../helpers/components.js';
import { createDatabase, postgresBinDir, startPrimary, startStandby, waitForReplay, type PgNode } from '../helpers/pg-cluster.js';

/**
 * A DATABASE_URL naming a primary and its standby, libpq-style: connections
 * go to the writable host whatever the order, and after the primary dies and
 * the standby is promoted the same pool, LISTEN connection and readiness
 * probe reach the new primary without a restart. A former primary that comes
 * back as a primary beside the promoted one (split brain) is not chosen.
 */
async function oneQuery(url: string, sql: string): Promise<void> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    await c.query(sql);
  } finally {
    await c.end();
  }
}

describe('a list of hosts in the database URL', () => {
  it('is parsed into one URL per host, keeping the credentials and the rest', () => {
    const hosts = parseHostList('postgres://u:p%40ss@db1:5433,db2,[::1]:6000/assay?sslmode=require')!;
    expect(hosts.hosts).toEqual([
      { host: 'db1', port: 5433 },
      { host: 'db2', port: 5432 },
      { host: '::1', port: 6000 },
    ]);
    expect(hosts.urlFor(hosts.hosts[1]!)).toBe('postgres://u:p%40ss@db2:5432/assay?sslmode=require');
    expect(hosts.urlFor(hosts.hosts[2]!)).toBe('postgres://u:p%40ss@[::1]:6000/assay?sslmode=require');
    expect(parseHostList('postgres://u@db1:5432/assay')).toBeNull();
  });

  it('answers "no writable host" and a write refused by a standby as the database being away (503, retried), not a fault (500)', () => {
    expect(isConnectionError(new NoWritableHostError('no writable database host among a:1, b:1'))).toBe(true);
    expect(isConnectionError(Object.assign(new Error('cannot execute INSERT in a read-only transaction'), { code: '25006' }))).toBe(true);
  });

  it('prefers the writable host on the highest timeline', () => {
    const a = { host: 'a', port: 1 };
    const b = { host: 'b', port: 1 };
    expect(choosePrimary([{ host: a, writable: false, timeline: null }, { host: b, writable: true, timeline: 1 }])).toEqual(b);
    expect(choosePrimary([{ host: a, writable: true, timeline: 1 }, { host: b, writable: true, timeline: 2 }])).toEqual(b);
    expect(choosePrimary([{ host: a, writable: null, timeline: null }, { host: b, writable: false, timeline: null }])).toBeNull();
  });
});

const binaries = componentAvailable('PostgreSQL server binaries', postgresBinDir() !== null, 'apt-get install -y postgresql-15 (and util-linux for runuser when root)');

describe.skipIf(!binaries)('failing over to a promoted standby', () => {
  let primary: PgNode;
  let standby: PgNode;
  let pool: Pool;
  let url: string;
  let primary2: PgNode;
  let standby2: PgNode;

  beforeAll(async () => {
    primary = await startPrimary('hosts-primary');
    standby = await startStandby(primary, 'hosts-standby');
    await createDatabase(primary, 'hosts');
    await waitForReplay(primary, [standby]);
    // The standby first: the order of the list does not decide where writes go.
    url = `postgres://postgres@127.0.0.1:${standby.port},127.0.0.1:${primary.port}/hosts`;
    pool = createPool(url, 4, { connectWaitMs: 5_000 });
    await pool.query('CREATE TABLE t (n int)');
    primary2 = await startPrimary('hosts-primary2');
    standby2 = await startStandby(primary2, 'hosts-standby2');
    await createDatabase(primary2, 'hosts2');
    await waitForReplay(primary2, [standby2]);
  }, 120_000);

  afterAll(async () => {
    await pool?.end().catch(() => undefined);
    await standby?.destroy();
    await primary?.destroy();
    await standby2?.destroy();
    await primary2?.destroy();
  });

  it('writes to the primary, then to the promoted standby through the same pool, listener and probe', async () => {
    await pool.query('INSERT INTO t VALUES (1)');
    const before = await pool.query<{ port: number }>('SELECT inet_server_port() AS port');
    expect(before.rows[0]!.port).toBe(primary.port);

    const heard: Array<string | undefined> = [];
    const listener = createNotificationListener({ connection: { connectionString: url }, channel: 'hosts_test', onNotify: (p) => heard.push(p), heartbeatMs: 500, heartbeatTimeoutMs: 500 });
    await listener.start();
    expect(listener.isListening()).toBe(true);
    const readiness = createReadinessProbe(url);
    expect((await readiness.check()).status).toBe('ready');

    await primary.kill();
    // While no host is writable: a connection error (the request answers 503), not a write to the standby.
    const refused = await pool.query('INSERT INTO t VALUES (2)').catch((err: Error & { code?: string }) => err);
    expect(refused).toBeInstanceOf(Error);
    expect((await readiness.check()).status).toBe('unavailable');

    await standby.promote();
    let written = false;
    for (let i = 0; i < 50 && !written; i++) {
      written = await pool.query('INSERT INTO t VALUES (3)').then(
        () => true,
        () => false,
      );
      if (!written) await new Promise((r) => setTimeout(r, 100));
    }
    expect(written).toBe(true);
    const after = await pool.query<{ port: number; n: number }>('SELECT inet_server_port() AS port, (SELECT count(*) FROM t)::int AS n');
    expect(after.rows[0]!.port).toBe(standby.port);
    expect(after.rows[0]!.n).toBe(2);
    expect((await readiness.check()).status).toBe('ready');

    // The listener reconnects (every second) to the new primary and hears notifications there.
    for (let i = 0; i < 50 && !listener.isListening(); i++) await new Promise((r) => setTimeout(r, 100));
    expect(listener.isListening()).toBe(true);
    await pool.query(`NOTIFY hosts_test, 'after'`);
    for (let i = 0; i < 50 && !heard.includes('after'); i++) await new Promise((r) => setTimeout(r, 50));
    expect(heard).toContain('after');
    await listener.stop();
    await readiness.close();
  }, 60_000);

  it('leaves a primary fenced read-only for a planned switchover: its pooled connections are dropped at the first refused write', async () => {
    const url2 = `postgres://postgres@127.0.0.1:${primary2.port},127.0.0.1:${standby2.port}/hosts2`;
    const pool2 = createPool(url2, 2);
    try {
      await pool2.query('CREATE TABLE s (n int)');
      const warm = await Promise.all([pool2.connect(), pool2.connect()]);
      for (const c of warm) c.release();
      // The switchover: fence the old primary (its sessions too), let the standby catch up, promote it.
      await oneQuery(primary2.url('hosts2'), 'ALTER SYSTEM SET default_transaction_read_only = on');
      await oneQuery(primary2.url('hosts2'), 'SELECT pg_reload_conf()');
      await waitForReplay(primary2, [standby2]);
      await standby2.promote();
      await new Promise((r) => setTimeout(r, 200)); // the reload reaches the old primary's backends
      // The pooled connections still point at the old primary: the first write is refused as read-only (a 503, retried)…
      const refused = await pool2.query('INSERT INTO s VALUES (1)').catch((err: Error) => err);
      expect(refused).toBeInstanceOf(Error);
      expect((refused as Error & { code?: string }).code).toBe('25006');
      expect(isConnectionError(refused)).toBe(true);
      // …and the retries reach the promoted standby once the refused connections are gone.
      let port = 0;
      for (let i = 0; i < 10 && port !== standby2.port; i++) {
        port = await pool2.query<{ port: number }>('INSERT INTO s VALUES (2) RETURNING inet_server_port() AS port').then(
          (r) => r.rows[0]!.port,
          () => 0,
        );
      }
      expect(port).toBe(standby2.port);
    } finally {
      await pool2.end();
    }
  }, 60_000);

  it('does not go back to a former primary that came back as a primary (older timeline)', async () => {
    // The killed primary restarts as it was: a primary on timeline 1, writable, beside the promoted standby on timeline 2.
    await primary.start();
    // Listed first, so "the first writable host" would be the wrong one.
    const oldFirst = `postgres://postgres@127.0.0.1:${primary.port},127.0.0.1:${standby.port}/hosts`;
    const states = await primaryLocatorFor(oldFirst)!.probe();
    expect(states.map((s) => s.writable)).toEqual([true, true]);
    expect(states[1]!.timeline).toBeGreaterThan(states[0]!.timeline!);
    expect(choosePrimary(states)!.port).toBe(standby.port);
    const fresh = createPool(oldFirst, 3);
    try {
      const clients = await Promise.all([fresh.connect(), fresh.connect(), fresh.connect()]);
      for (const c of clients) expect((await c.query<{ port: number }>('SELECT inet_server_port() AS port')).rows[0]!.port).toBe(standby.port);
      for (const c of clients) c.release();
    } finally {
      await fresh.end();
    }
  }, 60_000);
});
