import { Agent, request } from 'undici';
import { checkLiteralHost, guardedLookup, systemResolver, type Resolver, type UrlPolicy } from '../webhooks/url-guard.js';

/**
 * Outbound HTTP to a learning platform (its key set, its token URL, its
 * score service): over an undici Agent whose every connection goes through
 * the webhook address guard (url-guard.ts), no redirects followed, a whole
 * request bounded by `timeoutMs`, and at most `maxBytes` of the answer read.
 */
export interface GuardedResponse {
  statusCode: number;
  body: string;
}

export interface GuardedHttp {
  send(url: string, init: { method: 'GET' | 'POST'; headers?: Record<string, string>; body?: string }): Promise<GuardedResponse>;
  close(): Promise<void>;
}

const MAX_BYTES = 256 * 1024;

export function createGuardedHttp(opts: { policy: UrlPolicy; timeoutMs?: number; resolver?: Resolver; userAgent?: string }): GuardedHttp {
  const timeoutMs = opts.timeoutMs ?? 10_000;
  const agent = new Agent({
    connect: { lookup: guardedLookup(opts.policy, opts.resolver ?? systemResolver), timeout: timeoutMs },
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
  });
  return {
    async send(raw, init) {
      const url = new URL(raw);
      if (url.protocol !== 'https:' && !(opts.policy.allowInsecure && url.protocol === 'http:')) throw new Error(`${url.protocol} URLs are not allowed`);
      checkLiteralHost(url, opts.policy);
      const res = await request(url, {
        method: init.method,
        dispatcher: agent,
        signal: AbortSignal.timeout(timeoutMs),
        headers: { 'user-agent': opts.userAgent ?? 'Assay-LTI/1.0', ...init.headers },
        ...(init.body !== undefined ? { body: init.body } : {}),
      });
      const chunks: Buffer[] = [];
      let total = 0;
      for await (const chunk of res.body) {
        total += (chunk as Buffer).length;
        if (total > MAX_BYTES) {
          res.body.destroy();
          throw new Error(`the answer is over ${MAX_BYTES} bytes`);
        }
        chunks.push(chunk as Buffer);
      }
      return { statusCode: res.statusCode, body: Buffer.concat(chunks).toString('utf8') };
    },
    close: () => agent.close(),
  };
}

/** A short class of a failed request, for the log and the attempt record (never the URL's query or a token). */
export function errorClassOf(err: unknown): string {
  const e = err as { code?: string; name?: string; cause?: { code?: string } };
  const code = e?.code ?? e?.cause?.code;
  if (code === 'EADDRNOTALLOWED') return 'address_not_allowed';
  if (code === 'ECONNREFUSED') return 'connection_refused';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'dns';
  if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET') return 'connection_reset';
  if (e?.name === 'TimeoutError' || code === 'UND_ERR_CONNECT_TIMEOUT' || code === 'UND_ERR_HEADERS_TIMEOUT') return 'timeout';
  return 'network';
}
