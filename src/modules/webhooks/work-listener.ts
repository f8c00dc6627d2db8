import pg from 'pg';

/**
 * A LISTEN connection that calls `onWork` for every notification on
 * `channel`, and once each time it (re)connects, for anything committed
 * while it was not listening. If the database goes away it reconnects every
 * second until stopped; meanwhile the dispatcher's poll keeps work moving.
 */
export function createWorkListener(opts: {
  connectionString: string;
  channel: string;
  onWork: () => void;
  log?: { warn(o: object, m?: string): void };
}) {
  let stopped = true;
  let client: pg.Client | null = null;

  function later(): void {
    if (!stopped) setTimeout(() => void connect().catch(() => later()), 1000).unref();
  }

  async function connect(): Promise<void> {
    const c = new pg.Client({ connectionString: opts.connectionString });
    let lost = false;
    c.on('error', () => {
      if (lost) return;
      lost = true;
      if (client === c) client = null;
      c.end().catch(() => undefined);
      later();
    });
    c.on('notification', () => opts.onWork());
    await c.connect();
    await c.query(`LISTEN ${opts.channel}`);
    if (stopped) return void (await c.end());
    client = c;
    opts.onWork();
  }

  return {
    async start(): Promise<void> {
      stopped = false;
      await connect().catch((err) => {
        opts.log?.warn({ err: (err as Error).message }, `could not LISTEN on ${opts.channel}; polling only for now`);
        later();
      });
    },
    async stop(): Promise<void> {
      stopped = true;
      const c = client;
      client = null;
      await c?.end().catch(() => undefined);
    },
  };
}
