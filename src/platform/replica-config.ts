import { ConfigError, intVar, postgresUrlVar, type Env } from './config-vars.js';

/** The read replica (platform/read-replica.ts, docs/production.md "Read replica"). */
export interface ReplicaConfig {
  /** ASSAY_DATABASE_REPLICA_URL: a hot standby of DATABASE_URL's database; null: every read goes to the primary. */
  url: string | null;
  /** ASSAY_REPLICA_MAX_LAG_MS: past this lag, reads that could go to the replica go to the primary. */
  maxLagMs: number;
  /** ASSAY_REPLICA_CHECK_MS: how often each API process measures the replica's lag. */
  checkMs: number;
}

export function replicaConfig(env: Env, databaseUrl: string | null): ReplicaConfig {
  const maxLagMs = intVar(env, 'ASSAY_REPLICA_MAX_LAG_MS', 10_000, 100, 3_600_000);
  const checkMs = intVar(env, 'ASSAY_REPLICA_CHECK_MS', 1_000, 50, 60_000);
  // The lag is known to the check's interval: a bound shorter than it would let the replica serve almost never.
  if (checkMs * 2 > maxLagMs) throw new ConfigError('ASSAY_REPLICA_CHECK_MS', `must be at most half of ASSAY_REPLICA_MAX_LAG_MS (${maxLagMs})`);
  // One host only: a host list picks the writable host (the primary), which a replica is not. Never echoed.
  const url = postgresUrlVar(env, 'ASSAY_DATABASE_REPLICA_URL');
  if (url === null) return { url, maxLagMs, checkMs };
  // The embedded database has no standby; a replica of nothing would be a second, unrelated database.
  if (!databaseUrl) throw new ConfigError('ASSAY_DATABASE_REPLICA_URL', 'needs DATABASE_URL (a replica of the primary it names)');
  return { url, maxLagMs, checkMs };
}
