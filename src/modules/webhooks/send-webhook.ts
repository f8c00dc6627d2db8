import { performance } from 'node:perf_hooks';
import { Agent, request } from 'undici';
import { checkLiteralHost, guardedLookup, systemResolver, type Resolver, type UrlPolicy } from './url-guard.js';
import { parseRetryAfter } from './retry-policy.js';
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
    try {
      const url = new URL(msg.url);
      checkLiteralHost(url, opts.policy);
      const res = await request(url, {
        method: 'POST',
        dispatcher: agent,
        signal: AbortSignal.timeout(opts.timeoutMs),
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
    }
  }

  return { send, close: () => agent.close() };
}

export type WebhookClient = ReturnType<typeof createWebhookClient>;

/** The first KB of the body as text; the rest is read and dropped so the connection can be reused. */
async function readExcerpt(
  body: AsyncIterable<Buffer> & { destroy(): void; text(): Promise<string> },
  contentLength: string | string[] | undefined,
): Promise<string> {
  // The common case, a short body of announced length, in one read.
  const length = Number(Array.isArray(contentLength) ? contentLength[0] : contentLength);
  if (length <= EXCERPT_BYTES) return (await body.text()).slice(0, EXCERPT_BYTES);
  const kept: Buffer[] = [];
  let keptBytes = 0;
  let total = 0;
  for await (const chunk of body) {
    total += chunk.length;
    if (keptBytes < EXCERPT_BYTES) {
      kept.push(chunk.subarray(0, EXCERPT_BYTES - keptBytes));
      keptBytes += Math.min(chunk.length, EXCERPT_BYTES - keptBytes);
    }
    if (total > DRAIN_LIMIT) {
      body.destroy();
      break;
    }
  }
  // A multi-byte character cut at the limit becomes U+FFFD; the excerpt is for humans.
  return Buffer.concat(kept).toString('utf8');
}

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
