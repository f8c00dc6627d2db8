import { AssayConnectionError, AssayError, AssayTimeoutError, errorFromResponse } from './errors.js';

/**
 * One HTTP call to the service with the SDK's retry policy: a failure that
 * may be gone on the next try (no connection, a cut connection, no answer in
 * time, 429, 5xx) is retried up to `maxRetries` times with exponential
 * backoff and jitter, or after the `Retry-After` the service sent; any other
 * 4xx is thrown at once, because sending the same request again cannot
 * change the answer. Retries resend the exact request, headers included, so
 * a create's `Idempotency-Key` makes its retries return the one assignment.
 */
export interface TransportOptions {
  apiKey: string;
  baseUrl: string;
  timeoutMs: number;
  maxRetries: number;
  fetch: typeof fetch;
  userAgent: string;
}

/** Per-call overrides. */
export interface RequestOptions {
  /** Milliseconds to wait for each attempt's answer (default: the client's `timeoutMs`). */
  timeoutMs?: number;
  /** Retries after the first attempt (default: the client's `maxRetries`). */
  maxRetries?: number;
  /** Aborts the call, its retries and the waits between them. */
  signal?: AbortSignal;
}

export interface Call {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  path: string;
  query?: Record<string, string | number | boolean | undefined> | undefined;
  body?: unknown;
  headers?: Record<string, string>;
  options?: RequestOptions | undefined;
}

const BASE_DELAY_MS = 500;
const MAX_DELAY_MS = 8_000;
/** A `Retry-After` longer than this is not waited for: the error is thrown for the caller to schedule. */
const MAX_RETRY_AFTER_MS = 60_000;

export type Send = <T>(call: Call) => Promise<T>;

export function createTransport(opts: TransportOptions): Send {
  const base = opts.baseUrl.replace(/\/+$/, '');
  return async function send<T>(call: Call): Promise<T> {
    const url = `${base}${call.path}${queryString(call.query)}`;
    const headers: Record<string, string> = {
      authorization: `Bearer ${opts.apiKey}`,
      accept: 'application/json',
      'user-agent': opts.userAgent,
      ...call.headers,
    };
    const hasBody = call.body !== undefined;
    if (hasBody) headers['content-type'] = 'application/json';
    const body = hasBody ? JSON.stringify(call.body) : undefined;
    const timeoutMs = call.options?.timeoutMs ?? opts.timeoutMs;
    const maxRetries = call.options?.maxRetries ?? opts.maxRetries;
    const callerSignal = call.options?.signal;

    for (let attempt = 0; ; attempt++) {
      const outcome = await attemptOnce(opts.fetch, url, { method: call.method, headers, body }, timeoutMs, callerSignal);
      if (outcome.ok) return outcome.value as T;
      const { error } = outcome;
      if (!isRetryable(error) || attempt >= maxRetries) throw error;
      const wait = error.retryAfterMs ?? backoffMs(attempt);
      if (wait > MAX_RETRY_AFTER_MS) throw error;
      await sleep(wait, callerSignal);
    }
  };
}

type Outcome = { ok: true; value: unknown } | { ok: false; error: AssayError };

async function attemptOnce(
  fetchImpl: typeof fetch,
  url: string,
  init: { method: string; headers: Record<string, string>; body: string | undefined },
  timeoutMs: number,
  callerSignal: AbortSignal | undefined,
): Promise<Outcome> {
  const timeout = AbortSignal.timeout(timeoutMs);
  const signal = callerSignal ? AbortSignal.any([timeout, callerSignal]) : timeout;
  try {
    const res = await fetchImpl(url, { ...init, signal });
    // The body is read inside the same try: a connection cut mid-body is a connection failure, retried like one.
    const text = await res.text();
    if (res.ok) return { ok: true, value: text === '' ? undefined : parseJson(text, res) };
    return { ok: false, error: errorFromResponse(res.status, safeJson(text), res.headers) };
  } catch (err) {
    if (err instanceof AssayError) return { ok: false, error: err };
    // The caller's own abort is not a failure of the service: rethrown as it came.
    if (callerSignal?.aborted) throw callerSignal.reason;
    if (timeout.aborted) {
      return { ok: false, error: new AssayTimeoutError({ status: null, code: 'timeout', message: `No answer within ${timeoutMs} ms`, cause: err }) };
    }
    return { ok: false, error: new AssayConnectionError({ status: null, code: 'connection_error', message: `Could not reach the service: ${describe(err)}`, cause: err }) };
  }
}

/** Worth trying again: no answer at all, rate limited, or a server-side failure. */
function isRetryable(error: AssayError): boolean {
  return error.status === null || error.status === 429 || error.status >= 500;
}

/** 0.5 s, 1 s, 2 s, … up to 8 s, each scaled by a random factor in [0.5, 1) so clients that failed together spread out. */
export function backoffMs(attempt: number, random = Math.random): number {
  const ceiling = Math.min(MAX_DELAY_MS, BASE_DELAY_MS * 2 ** attempt);
  return Math.round(ceiling * (0.5 + random() * 0.5));
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

function queryString(query: Call['query']): string {
  if (!query) return '';
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) if (value !== undefined) params.set(key, String(value));
  const s = params.toString();
  return s === '' ? '' : `?${s}`;
}

function parseJson(text: string, res: Response): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new AssayError({ status: res.status, code: 'invalid_response', message: 'The service answered with a body that is not JSON', requestId: res.headers.get('x-request-id'), cause: err });
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

function describe(err: unknown): string {
  const cause = (err as { cause?: { code?: string; message?: string } })?.cause;
  return cause?.code ?? cause?.message ?? (err instanceof Error ? err.message : String(err));
}
