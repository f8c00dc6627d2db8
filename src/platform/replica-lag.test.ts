import { describe, expect, it } from 'vitest';
import { formatLsn, isLsn, parseLsn, PrimaryPositions, replicaServes, type ReplicaState } from './replica-lag.js';
import { ConfigError, parseConfig } from './config.js';

describe('WAL positions', () => {
  it('compare as PostgreSQL orders them, the high word first', () => {
    expect(parseLsn('0/16B3748') < parseLsn('0/16B3750')).toBe(true);
    expect(parseLsn('1/0') > parseLsn('0/FFFFFFFF')).toBe(true);
    expect(parseLsn('16/B374D848')).toBe((0x16n << 32n) | 0xb374d848n);
    expect(formatLsn(parseLsn('16/B374D848'))).toBe('16/B374D848');
    expect(formatLsn(parseLsn('0/16B3748'))).toBe('0/16B3748');
  });

  it('refuse anything else (a cookie is a visitor\'s to write)', () => {
    for (const bad of ['', '0', '0/', '/1', '0/1/2', 'G/1', '123456789/0', '0/1; DROP']) expect(isLsn(bad), bad).toBe(false);
    expect(() => parseLsn('x')).toThrow();
  });
});

describe('the replica\'s lag from the primary\'s positions', () => {
  it('is the age of the newest primary position the replica has replayed', () => {
    const p = new PrimaryPositions(10_000);
    p.add({ at: 1_000, lsn: 100n });
    p.add({ at: 2_000, lsn: 200n });
    p.add({ at: 3_000, lsn: 300n });
    expect(p.lagOf(300n, 3_010)).toEqual({ lagMs: 10, reachedNone: false });
    expect(p.lagOf(250n, 3_010)).toEqual({ lagMs: 1_010, reachedNone: false });
    expect(p.lagOf(100n, 3_010)).toEqual({ lagMs: 2_010, reachedNone: false });
  });

  it('stays near zero while an idle primary keeps one position, however old the last transaction', () => {
    const p = new PrimaryPositions(10_000);
    for (let t = 0; t <= 600_000; t += 1_000) p.add({ at: t, lsn: 500n });
    expect(p.lagOf(500n, 600_005).lagMs).toBe(5);
  });

  it('grows with time for a replica that has replayed none of the kept positions', () => {
    const p = new PrimaryPositions(2_000);
    for (let t = 0; t <= 10_000; t += 1_000) p.add({ at: t, lsn: BigInt(1_000 + t) });
    // Positions older than the window are dropped but the newest of those: a replica that reached none counts as
    // the window's length behind at least (the window is longer than the bound), however far behind it really is.
    const { lagMs, reachedNone } = p.lagOf(0n, 10_000);
    expect(reachedNone).toBe(true);
    expect(lagMs).toBe(2_000);
  });
});

describe('whether a read may go to the replica', () => {
  const state = (over: Partial<ReplicaState> = {}): ReplicaState => ({ up: true, lagMs: 100, replayed: 1_000n, checkedAt: 5_000, ...over });

  it('only while the lag, grown by the time since the check, is within the bound', () => {
    expect(replicaServes(state(), 1_000, 5_000, null)).toBe(true);
    expect(replicaServes(state(), 1_000, 5_900, null)).toBe(true);
    expect(replicaServes(state(), 1_000, 5_901, null)).toBe(false);
    expect(replicaServes(state({ lagMs: 1_001 }), 1_000, 5_000, null)).toBe(false);
  });

  it('never when the replica is down or was never checked', () => {
    expect(replicaServes(state({ up: false }), 1_000, 5_000, null)).toBe(false);
    expect(replicaServes(state({ checkedAt: null }), 1_000, 5_000, null)).toBe(false);
  });

  it('for a session that wrote, only once the replica has replayed its write', () => {
    expect(replicaServes(state(), 1_000, 5_000, 1_000n)).toBe(true);
    expect(replicaServes(state(), 1_000, 5_000, 1_001n)).toBe(false);
  });
});

describe('ASSAY_DATABASE_REPLICA_URL and its bound', () => {
  const base = { DATABASE_URL: 'postgres://db.internal/assay' };
  it('is off by default, with a 10 s bound checked every second', () => {
    expect(parseConfig({}, { requireSecrets: false }).replica).toEqual({ url: null, maxLagMs: 10_000, checkMs: 1_000 });
  });

  it('takes a postgres URL next to DATABASE_URL, and never echoes a bad one', () => {
    const url = 'postgres://reader:pw@replica.internal/assay';
    expect(parseConfig({ ...base, ASSAY_DATABASE_REPLICA_URL: url }, { requireSecrets: false }).replica.url).toBe(url);
    const bad = () => parseConfig({ ...base, ASSAY_DATABASE_REPLICA_URL: 'mysql://u:secret-pw@h/x' }, { requireSecrets: false });
    expect(bad).toThrow(ConfigError);
    expect(bad).not.toThrow(/secret-pw/);
    expect(() => parseConfig({ ASSAY_DATABASE_REPLICA_URL: 'postgres://replica/assay' }, { requireSecrets: false })).toThrow(/needs DATABASE_URL/);
  });

  it('refuses a check interval longer than half the bound', () => {
    expect(() => parseConfig({ ASSAY_REPLICA_MAX_LAG_MS: '1000', ASSAY_REPLICA_CHECK_MS: '600' }, { requireSecrets: false })).toThrow(/ASSAY_REPLICA_CHECK_MS/);
    expect(parseConfig({ ASSAY_REPLICA_MAX_LAG_MS: '2000', ASSAY_REPLICA_CHECK_MS: '100' }, { requireSecrets: false }).replica).toMatchObject({ maxLagMs: 2_000, checkMs: 100 });
  });
});
