import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run-cli.js';
import { watchAndPromote } from '../../src/platform/failover-watch.js';
import { freePort } from '../../src/platform/embedded-db.js';
import { componentAvailable } from '../helpers/components.js';
import { postgresBinDir, startPrimary, startStandby, type PgNode } from '../helpers/pg-cluster.js';

/**
 * The watcher's refusals, on real servers: it promotes nothing while the
 * standby still streams from the primary (only the watcher's own path to the
 * primary is broken: promoting would make two primaries), and it stops with
 * an error when the host it was told is the primary is a standby.
 */
const binaries = componentAvailable('PostgreSQL server binaries', postgresBinDir() !== null, 'apt-get install -y postgresql-15 (and util-linux for runuser when root)');

async function inRecovery(url: string): Promise<boolean> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query('SELECT pg_is_in_recovery() AS r')).rows[0].r as boolean;
  } finally {
    await c.end();
  }
}

describe('npx assay failover-watch', () => {
  it('refuses arguments that are not one postgres URL each, without echoing them and without reaching any database', async () => {
    const err: string[] = [];
    let connects = 0;
    const io = { out: () => undefined, err: (t: string) => err.push(t) };
    const connect = async () => {
      connects++;
      throw new Error('not used');
    };
    expect(await runCli(['failover-watch', '--primary', 'postgres://u:secret-pw@db1:5432/a'], io, connect)).toBe(2);
    expect(await runCli(['failover-watch', '--primary', 'postgres://u:secret-pw@db1,db2/a', '--standby', 'postgres://u@db2/a'], io, connect)).toBe(2);
    expect(await runCli(['failover-watch', '--primary', 'mysql://u:secret-pw@db1/a', '--standby', 'postgres://u@db2/a', '--checks', '0'], io, connect)).toBe(2);
    expect(err.join('\n')).not.toContain('secret-pw');
    expect(err.join('\n')).toContain('--standby is required');
    expect(connects).toBe(0);
  });
});

describe.skipIf(!binaries)('failover-watch', () => {
  let primary: PgNode;
  let standby: PgNode;

  beforeAll(async () => {
    primary = await startPrimary('watch-primary');
    standby = await startStandby(primary, 'watch_standby');
  }, 120_000);

  afterAll(async () => {
    await standby?.destroy();
    await primary?.destroy();
  });

  it('does not promote while the standby still streams from the primary (the watcher alone cannot reach it)', async () => {
    // A port nothing listens on: to the watcher the primary is dead, to the standby it is not.
    const unreachable = `postgres://postgres@127.0.0.1:${await freePort()}/postgres`;
    const lines: string[] = [];
    const controller = new AbortController();
    const watching = watchAndPromote({ primaryUrl: unreachable, standbyUrl: standby.url(), failures: 2, intervalMs: 100, log: (l) => lines.push(l), signal: controller.signal });
    for (let i = 0; i < 100 && !lines.some((l) => l.includes('still streams')); i++) await new Promise((r) => setTimeout(r, 50));
    controller.abort();
    expect(await watching).toEqual({ outcome: 'stopped' });
    expect(lines.some((l) => l.includes('the standby still streams from the primary'))).toBe(true);
    expect(await inRecovery(standby.url())).toBe(true);
  }, 30_000);

  it('refuses to watch a "primary" that is a standby', async () => {
    await expect(watchAndPromote({ primaryUrl: standby.url(), standbyUrl: primary.url(), intervalMs: 100 })).rejects.toThrow(/in recovery/);
  });

  it('promotes once the primary is gone for the standby too', async () => {
    const watching = watchAndPromote({ primaryUrl: primary.url(), standbyUrl: standby.url(), failures: 2, intervalMs: 200 });
    await new Promise((r) => setTimeout(r, 300));
    await primary.kill();
    const outcome = await watching;
    expect(outcome.outcome).toBe('promoted');
    expect(await inRecovery(standby.url())).toBe(false);
  }, 30_000);
});
