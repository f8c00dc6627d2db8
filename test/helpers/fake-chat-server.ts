import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/**
 * A Chat Completions server on loopback for AI marking tests: it speaks the
 * OpenAI-compatible API (`POST /v1/chat/completions`) and answers what the
 * test chooses, so the production provider code runs unchanged against it.
 * Every request is recorded (headers and parsed body), and the number of
 * requests in flight is tracked, for the concurrency cap.
 */
export interface ChatCall {
  path: string;
  headers: http.IncomingHttpHeaders;
  raw: string;
  body: any;
  /** The user message's content (question, rubric, criteria, quoted answer). */
  userContent: string;
}

export type ChatAnswer = {
  status?: number;
  headers?: Record<string, string>;
  /** A string is sent as is; an object as JSON. */
  body?: string | object;
  delayMs?: number;
  /** Never answer (the client must time out). */
  hang?: boolean;
};

export interface FakeChatServer {
  baseUrl: string;
  calls: ChatCall[];
  respond: (call: ChatCall, index: number) => ChatAnswer | Promise<ChatAnswer>;
  inFlight: number;
  maxInFlight: number;
  resetStats(): void;
  close(): Promise<void>;
}

/** A Chat Completions response whose message content is `content` (JSON-encoded unless a string). */
export function chatCompletion(content: unknown, extra: { id?: string; promptTokens?: number; completionTokens?: number } = {}) {
  return {
    id: extra.id ?? `chatcmpl-${Math.random().toString(36).slice(2, 10)}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: 'fake-model',
    choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: typeof content === 'string' ? content : JSON.stringify(content) } }],
    usage: { prompt_tokens: extra.promptTokens ?? 321, completion_tokens: extra.completionTokens ?? 54, total_tokens: (extra.promptTokens ?? 321) + (extra.completionTokens ?? 54) },
  };
}

export async function startFakeChatServer(): Promise<FakeChatServer> {
  const sockets = new Set<Socket>();
  const hanging = new Set<http.ServerResponse>();
  const fake: FakeChatServer = {
    baseUrl: '',
    calls: [],
    respond: () => ({ status: 500, body: { error: { message: 'no reply chosen' } } }),
    inFlight: 0,
    maxInFlight: 0,
    resetStats() {
      fake.maxInFlight = fake.inFlight;
    },
    async close() {
      for (const res of hanging) res.destroy();
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };

  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    let body: any = null;
    try {
      body = JSON.parse(raw);
    } catch {
      /* recorded as is */
    }
    const call: ChatCall = {
      path: req.url ?? '',
      headers: req.headers,
      raw,
      body,
      userContent: body?.messages?.find((m: any) => m.role === 'user')?.content ?? '',
    };
    const index = fake.calls.push(call) - 1;
    fake.inFlight++;
    fake.maxInFlight = Math.max(fake.maxInFlight, fake.inFlight);
    const done = () => {
      fake.inFlight--;
    };
    try {
      const answer = await fake.respond(call, index);
      if (answer.delayMs) await new Promise((r) => setTimeout(r, answer.delayMs));
      if (answer.hang) {
        hanging.add(res);
        res.on('close', () => {
          hanging.delete(res);
          done();
        });
        return;
      }
      const payload = typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body ?? {});
      res.writeHead(answer.status ?? 200, { 'content-type': 'application/json', ...answer.headers });
      res.end(payload);
    } catch (err) {
      res.writeHead(500);
      res.end(String(err));
    }
    done();
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  fake.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  return fake;
}
