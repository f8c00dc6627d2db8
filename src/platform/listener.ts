import pg from 'pg';

/**
 * A LISTEN connection that calls `onNotify` for every notification on
 * `channel`, and once each time it (re)connects, for anything committed
 * while it was not listening. If the database goes away it calls `onLost`
 * and reconnects every second until stopped; callers keep a poll (or stop
 * trusting cached state) meanwhile. One for the job worker, the webhook
 * dispatcher and the API-key cache alike.
 */
export function createNotificationListener(opts: {
  connection: pg.ClientConfig;
  channel: string;
  onNotify: () => void;
  onLost?: () => void;
  log?: { warn(o: object, m?: string): void };
}) {
  let stopped = true;
  let client: pg.Client | null = null;

  function later(): void {
    if (!stopped) setTimeout(() => void connect().catch(() => later()), 1000).unref();
  }

  async function connect(): Promise<void> {
    const c = new pg.Client(opts.connection);
    let lost = false;
    c.on('error', () => {
      if (lost) return;
      lost = true;
      if (client === c) client = null;
      opts.onLost?.();
      c.end().catch(() => undefined);
      later();
    });
    c.on('notification', () => opts.onNotify());
    await c.connect();
    await c.query(`LISTEN ${opts.channel}`);
    if (stopped) return void (await c.end());
    client = c;
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
