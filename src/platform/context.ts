import type { Clock } from './clock.js';
import type { Config } from './config.js';
import type { Pool } from './db.js';

/** What every module's routes and services are built from. No container: plain values passed down. */
export interface AppContext {
  config: Readonly<Config>;
  pool: Pool;
  clock: Clock;
}
