import type pg from 'pg';
import { newDatabaseClient } from './primary-hosts.js';

/**
 * A LISTEN connection that calls `onNotify` for every notification on
 * `channel`, and once each time it (re)connects, for anything committed
 * while it was not listening. If the database goes away it calls `onLost`
 * and reconnects every second until stopped; callers keep a poll (or stop
 * trusting cached state) meanwhile. One for the job worker, the webhook
 * dispatcher and the API-key cache alike.
 *
 * A connection can also die silently (a stalled network path, a balancer
 * that dropped the flow): no error arrives and no notification either, so a
 * cache would trust itself for ever. Hence TCP keepalive on the socket and a
 * heartbeat: every `heartbeatMs` a `SELECT 1` that must answer within
 * `heartbeatTimeoutMs`; a missed one counts as lost (onLost, reconnect).
 * Detection takes at most heartbeatMs + heartbeatTimeoutMs (8 s by default).
 */
export function createNotificationListener(opts: {
  /** With several hosts in the URL, each (re)connect goes to the current primary (primary-hosts.ts). */
  connection: pg.ClientConfig;
  channel: string;
  /** With the notification's payload; with none once per (re)connect, for anything missed meanwhile. */
  onNotify: (payload?: string) => void;
  onLost?: () => void;
  log?: { warn(o: object, m?: string): void };
  heartbeatMs?: number;
  heartbeatTimeoutMs?: number;
}) {
  const heartbeatMs = opts.heartbeatMs ?? 5_000;
  const heartbeatTimeoutMs = opts.heartbeatTimeoutMs ?? 3_000;
  let stopped = true;
  let client: pg.Client | null = null;

  function later(): void {
    if (!stopped) setTimeout(() => void connect().catch(() => later()), 1000).unref();
  }

  async function connect(): Promise<void> {
    // Named by its channel unless the caller names it, so pg_stat_activity tells it from the pool's connections.
    const c = newDatabaseClient({ application_name: `assay-listen-${opts.channel}`.slice(0, 63), ...opts.connection, keepAlive: true, keepAliveInitialDelayMillis: heartbeatMs });
    let lost = false;
    let heartbeat: NodeJS.Timeout | null = null;
    const loseIt = () => {
      if (lost) return;
      lost = true;
      if (heartbeat) clearInterval(heartbeat);
      if (client === c) client = null;
      if (stopped) return; // stop() ended it
      opts.onLost?.();
      // A silently dead socket may never finish a graceful end: destroy it.
      (c as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
      c.end().catch(() => undefined);
      later();
    };
    c.on('error', loseIt);
    c.on('end', loseIt);
    c.on('notification', (message) => opts.onNotify(message.payload));
    await c.connect();
    await c.query(`LISTEN ${opts.channel}`);
    if (stopped) return void (await c.end());
    client = c;
    let waiting = false;
    heartbeat = setInterval(() => {
      if (waiting || lost) return;
      waiting = true;
      const missed = setTimeout(loseIt, heartbeatTimeoutMs);
      c.query('SELECT 1').then(
        () => {
          clearTimeout(missed);
          waiting = false;
        },
        () => {
          clearTimeout(missed);
          loseIt();
        },
      );
    }, heartbeatMs);
    heartbeat.unref();
    opts.onNotify();
  }

  return {
    async start(): Promise<void> {
      stopped = false;
      await connect().catch((err) => {
        opts.log?.warn({ err: (err as Error).message }, `could not LISTEN on ${opts.channel}; retrying`);
        later();
      });
    },
    /** True while notifications can arrive (connected and listening). */
    isListening(): boolean {
      return client !== null;
    },
    async stop(): Promise<void> {
      stopped = true;
      const c = client;
      client = null;
      await c?.end().catch(() => undefined);
    },
  };
}

export type NotificationListener = ReturnType<typeof createNotificationListener>;
