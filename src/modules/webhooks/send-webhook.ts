import { EventEmitter } from 'node:events';
import { performance } from 'node:perf_hooks';
import { Agent, type Dispatcher } from 'undici';
import { checkLiteralHost, guardedLookup, systemResolver, type Resolver, type UrlPolicy } from './url-guard.js';
import { parseRetryAfter } from '../../platform/http/retry-after.js';
import { signatureHeader } from './signing.js';

/**
 * One HTTP attempt of a webhook: a signed Standard Webhooks POST over a
 * shared keep-alive undici Agent whose `connect.lookup` checks every address
 * it connects to (see url-guard.ts). Redirects are not followed (undici's
 * `request` never follows them). The whole attempt, connection to response
 * headers and the read of the body excerpt, must finish within `timeoutMs`.
 */
export const EXCERPT_BYTES = 1024;
/** Bytes of a response body read before the connection is dropped instead of kept alive. */
const DRAIN_LIMIT = 64 * 1024;

export interface WebhookMessage {
  url: string;
  msgId: string;
  body: string;
  /** Current secret first, then the previous one during a rotation overlap. */
  secrets: string[];
  now: Date;
}

export interface SendOutcome {
  statusCode: number | null;
  /** Why no status came back: timeout, connection_refused, address_not_allowed, dns, tls, connection_reset, network. */
  errorClass: string | null;
  durationMs: number;
  excerpt: string | null;
  retryAfterMs: number | null;
}

export interface WebhookClientOptions {
  policy: UrlPolicy;
  timeoutMs: number;
  connectionsPerOrigin: number;
  userAgent: string;
  resolver?: Resolver;
}

export function createWebhookClient(opts: WebhookClientOptions) {
  const deadlines = createDeadlines(opts.timeoutMs);
  /** Endpoint URLs parsed and past the literal-address check, as the origin and path a request takes: the same few URLs are sent to over and over. */
  const checkedUrls = new Map<string, { origin: string; path: string }>();
  const agent = new Agent({
    connect: { lookup: guardedLookup(opts.policy, opts.resolver ?? systemResolver), timeout: opts.timeoutMs },
    connections: opts.connectionsPerOrigin,
    keepAliveTimeout: 30_000,
    headersTimeout: opts.timeoutMs,
    bodyTimeout: opts.timeoutMs,
  });

  async function send(msg: WebhookMessage): Promise<SendOutcome> {
    const started = performance.now();
    const done = (partial: Partial<SendOutcome>): SendOutcome => ({
      statusCode: null,
      errorClass: null,
      excerpt: null,
      retryAfterMs: null,
      ...partial,
      durationMs: Math.round(performance.now() - started),
    });
    const timestamp = Math.floor(msg.now.getTime() / 1000);
    const deadline = deadlines.add();
    try {
      let target = checkedUrls.get(msg.url);
      if (!target) {
        const url = new URL(msg.url);
        checkLiteralHost(url, opts.policy);
        target = { origin: url.origin, path: `${url.pathname}${url.search}` };
        if (checkedUrls.size >= 10_000) checkedUrls.clear();
        checkedUrls.set(msg.url, target);
      }
      // The agent's own request, not undici's request(url, options), which copies the options by a spread
      // given new keys per call: a new hidden class per delivery on Node 20's V8 (docs/performance.md).
      const res = await agent.request({
        origin: target.origin,
        path: target.path,
        method: 'POST',
        signal: deadline.signal,
        headers: {
          'content-type': 'application/json',
          'user-agent': opts.userAgent,
          'webhook-id': msg.msgId,
          'webhook-timestamp': String(timestamp),
          'webhook-signature': signatureHeader(msg.secrets, msg.msgId, timestamp, msg.body),
        },
        body: msg.body,
      });
      const excerpt = await readExcerpt(res.body, res.headers['content-length']);
      return done({ statusCode: res.statusCode, excerpt, retryAfterMs: parseRetryAfter(res.headers['retry-after'], msg.now) });
    } catch (err) {
      return done({ errorClass: classifyError(err) });
    } finally {
      deadline.done = true;
    }
  }

  return {
    send,
    close: () => {
      deadlines.stop();
      return agent.close();
    },
  };
}

interface Deadline {
  at: number;
  /** undici aborts the request when this emits 'abort' (it accepts an EventEmitter as its signal), with `reason` as the error. */
  signal: EventEmitter & { reason?: Error };
  done: boolean;
}

/**
 * The whole-attempt timeout of every request, on one timer. Every attempt
 * has the same timeout, so deadlines expire in the order they were added: a
 * FIFO queue whose head arms the single timer. Cheaper than an
 * AbortSignal.timeout per request (a timer and GC-tracked signal each),
 * which was a measurable share of the sender's CPU per delivery.
 */
function createDeadlines(timeoutMs: number) {
  const queue: Deadline[] = [];
  let head = 0;
  let timer: NodeJS.Timeout | null = null;

  function arm(): void {
    while (head < queue.length && queue[head]!.done) head++;
    if (head === queue.length) {
      queue.length = 0;
      head = 0;
      return;
    }
    if (head > 1024 && head * 2 > queue.length) {
      queue.splice(0, head);
      head = 0;
    }
    if (!timer) timer = setTimeout(fire, Math.max(0, queue[head]!.at - performance.now())).unref();
  }

  function fire(): void {
    timer = null;
    const now = performance.now();
    while (head < queue.length && (queue[head]!.done || queue[head]!.at <= now)) {
      const d = queue[head++]!;
      if (!d.done) {
        d.done = true;
        d.signal.reason = Object.assign(new Error(`no complete answer within ${timeoutMs} ms`), { name: 'TimeoutError' });
        d.signal.emit('abort');
      }
    }
    arm();
  }

  return {
    add(): Deadline {
      const d: Deadline = { at: performance.now() + timeoutMs, signal: new EventEmitter(), done: false };
      queue.push(d);
      arm();
      return d;
    },
    stop(): void {
      if (timer) clearTimeout(timer);
      timer = null;
    },
  };
}

export type WebhookClient = ReturnType<typeof createWebhookClient>;

/** The first KB of the body as text; the rest is read and dropped so the connection can be reused. */
async function readExcerpt(body: ResponseBody, contentLength: string | string[] | undefined): Promise<string> {
  // The common case, a short body of announced length, in one read.
  const length = Number(Array.isArray(contentLength) ? contentLength[0] : contentLength);
  if (length <= EXCERPT_BYTES) return (await body.text()).slice(0, EXCERPT_BYTES);
  // Otherwise (chunked, or long) with 'data' events: an async iterator per response cost more than the rest of the read.
  return new Promise((resolve, reject) => {
    const kept: Buffer[] = [];
    let keptBytes = 0;
    let total = 0;
    // A multi-byte character cut at the limit becomes U+FFFD; the excerpt is for humans.
    const excerpt = () => Buffer.concat(kept).toString('utf8');
    body.on('data', (chunk: Buffer) => {
      total += chunk.length;
      if (keptBytes < EXCERPT_BYTES) {
        kept.push(chunk.subarray(0, EXCERPT_BYTES - keptBytes));
        keptBytes += Math.min(chunk.length, EXCERPT_BYTES - keptBytes);
      }
      if (total > DRAIN_LIMIT) {
        body.destroy();
        resolve(excerpt());
      }
    });
    body.on('end', () => resolve(excerpt()));
    body.on('error', reject);
  });
}

type ResponseBody = Dispatcher.ResponseData['body'];

function classifyError(err: unknown): string {
  const e = err as { name?: string; code?: string; cause?: { code?: string; name?: string } };
  const code = e.code ?? e.cause?.code ?? '';
  const name = e.name ?? '';
  if (code === 'EADDRNOTALLOWED' || e.cause?.code === 'EADDRNOTALLOWED') return 'address_not_allowed';
  if (name === 'TimeoutError' || name === 'AbortError' || /TIMEOUT/.test(code) || code === 'ETIMEDOUT') return 'timeout';
  if (code === 'ECONNREFUSED') return 'connection_refused';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'dns';
  if (/^ERR_TLS|CERT|SSL/.test(code) || code === 'DEPTH_ZERO_SELF_SIGNED_CERT' || code === 'UNABLE_TO_VERIFY_LEAF_SIGNATURE') return 'tls';
  if (code === 'ECONNRESET' || code === 'EPIPE' || code === 'UND_ERR_SOCKET' || code === 'UND_ERR_CLOSED') return 'connection_reset';
  return 'network';
}
