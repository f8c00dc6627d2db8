import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { Webhook } from 'standardwebhooks';

/**
 * A partner's webhook endpoint on loopback for tests. Every request is
 * recorded and verified with the public `standardwebhooks` package (not the
 * service's own signing code) against the secrets the test registered for
 * its path. The answer is chosen per request by `respond`; it can be a
 * status, a delay, or no answer at all (to make the sender time out). The
 * server can be closed and reopened on the same port to play "down".
 */
export interface Received {
  path: string;
  webhookId: string;
  headers: Record<string, string>;
  body: string;
  json: { id: string; type: string; timestamp: string; livemode?: boolean; data: Record<string, any> };
  /** For each registered secret of the path (in order): did the signature verify with it? */
  verifiedWith: boolean[];
  /** What the receiver answered: a status, or null when it did not answer. */
  answered: number | null;
  at: number;
}

export type Answer = { status?: number; headers?: Record<string, string>; body?: string; delayMs?: number; hang?: boolean };
/** `count` is how many times this path has now received this webhook-id. */
export type Responder = (req: { path: string; webhookId: string; count: number }) => Answer | Promise<Answer>;

export interface Receiver {
  port: number;
  url(path?: string): string;
  received: Received[];
  setSecrets(path: string, secrets: string[]): void;
  respond: Responder;
  /** Ids answered with a 2xx, each once. */
  deliveredIds(path?: string): Set<string>;
  waitFor(predicate: () => boolean, timeoutMs?: number, what?: string): Promise<void>;
  down(): Promise<void>;
  up(): Promise<void>;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const secrets = new Map<string, string[]>();
  const counts = new Map<string, number>();
  const sockets = new Set<Socket>();
  let server: http.Server;
  let port = 0;

  const receiver: Receiver = {
    port: 0,
    url: (path = '/hook') => `http://127.0.0.1:${port}${path}`,
    received: [],
    setSecrets: (path, s) => void secrets.set(path, s),
    respond: () => ({ status: 200, body: 'ok' }),
    deliveredIds(path) {
      return new Set(
        receiver.received
          .filter((r) => (path === undefined || r.path === path) && r.answered !== null && r.answered >= 200 && r.answered < 300)
          .map((r) => r.webhookId),
      );
    },
    async waitFor(predicate, timeoutMs = 10_000, what = 'condition') {
      const until = Date.now() + timeoutMs;
      while (!predicate()) {
        if (Date.now() > until) throw new Error(`receiver: timed out waiting for ${what}`);
        await new Promise((r) => setTimeout(r, 10));
      }
    },
    async down() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
    async up() {
      await listen(port);
    },
    async close() {
      await receiver.down().catch(() => undefined);
    },
  };

  function handle(req: http.IncomingMessage, res: http.ServerResponse) {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : (v ?? '')]));
      const path = (req.url ?? '/').split('?')[0]!;
      const webhookId = headers['webhook-id'] ?? '';
      const verifiedWith = (secrets.get(path) ?? []).map((secret) => {
        try {
          new Webhook(secret).verify(body, headers);
          return true;
        } catch {
          return false;
        }
      });
      let json: Received['json'];
      try {
        json = JSON.parse(body);
      } catch {
        json = { id: '', type: '', timestamp: '', data: {} };
      }
      const key = `${path} ${webhookId}`;
      const count = (counts.get(key) ?? 0) + 1;
      counts.set(key, count);
      const entry: Received = { path, webhookId, headers, body, json, verifiedWith, answered: null, at: Date.now() };
      receiver.received.push(entry);
      const answer = await receiver.respond({ path, webhookId, count });
      if (answer.hang) return; // never answer: the sender's timeout fires
      if (answer.delayMs) await new Promise((r) => setTimeout(r, answer.delayMs));
      if (res.destroyed) return;
      entry.answered = answer.status ?? 200;
      res.writeHead(entry.answered, answer.headers ?? {});
      res.end(answer.body ?? '');
    });
  }

  function listen(p: number): Promise<void> {
    server = http.createServer(handle);
    server.keepAliveTimeout = 60_000;
    server.on('connection', (s) => {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
    });
    return new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(p, '127.0.0.1', () => {
        port = (server.address() as AddressInfo).port;
        receiver.port = port;
        resolve();
      });
    });
  }

  await listen(0);
  return receiver;
}
