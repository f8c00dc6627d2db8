import type { Clock } from './clock.js';
import type { Config } from './config.js';
import type { Pool } from './db.js';
import type { Mailer } from './mail.js';
import type { ReadPools } from './read-replica.js';

/** What every module's routes and services are built from. No container: plain values passed down. */
export interface AppContext {
  config: Readonly<Config>;
  pool: Pool;
  clock: Clock;
  /**
   * Pools for reads that may be a little behind (the read replica, within its lag bound; the primary otherwise):
   * take one with readPool(ctx) from read-replica.ts. Absent when no replica is configured: reads use `pool`.
   */
  reads?: ReadPools | null;
}

/** What a background job runs with: the app's context and the outgoing mail (SMTP or the log). */
export interface JobContext extends AppContext {
  mailer: Mailer;
}
