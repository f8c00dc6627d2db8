import { performance } from 'node:perf_hooks';
import { Agent, request } from 'undici';
import type { AiConfig } from '../../../platform/config.js';
import { parseRetryAfter } from '../../../platform/http/retry-after.js';
import { createLimiter } from './limiter.js';
import { REPLY_SCHEMA_NAME, type ChatMessage } from './prompt.js';

/**
 * The model, over the OpenAI-compatible Chat Completions API
 * (`POST {ASSAY_AI_BASE_URL}/chat/completions`), which hosted models and
 * local servers (Ollama, vLLM, llama.cpp's server) all speak. Structured
 * output: `response_format: { type: "json_schema", json_schema: { strict } }`.
 *
 * One call is one HTTP request, bounded by ASSAY_AI_TIMEOUT_MS from the
 * connection to the last byte of the body, and at most ASSAY_AI_CONCURRENCY
 * calls run at once in this process (the limiter; callers wait their turn).
 * The outcome is a value, never a throw: the caller decides on retries.
 * The API key goes in the Authorization header only: it is never part of an
 * outcome, a reason or a log line.
 */
const MAX_BODY_BYTES = 1024 * 1024;

export interface ChatRequest {
  messages: ChatMessage[];
  schema: Record<string, unknown>;
}

export interface ChatSuccess {
  ok: true;
  /** The message content, parsed as JSON. */
  content: unknown;
  requestId: string | null;
  latencyMs: number;
  promptTokens: number | null;
  completionTokens: number | null;
}

export interface ChatFailure {
  ok: false;
  /** Timeouts, 408, 429, 5xx, network errors and unusable replies are worth another try; other 4xx are not. */
  retryable: boolean;
  reason: string;
  /** From a Retry-After header (seconds or HTTP date), when given. */
  retryAfterMs: number | null;
  requestId: string | null;
  latencyMs: number;
}

export type ChatOutcome = ChatSuccess | ChatFailure;

export interface ChatProvider {
  model: string;
  complete(req: ChatRequest, now: Date): Promise<ChatOutcome>;
  /** Calls in flight now (for tests and metrics). */
  inFlight(): number;
  close(): Promise<void>;
}

export function createChatProvider(config: AiConfig, opts: { userAgent?: string } = {}): ChatProvider {
  const agent = new Agent({
    connections: config.concurrency,
    keepAliveTimeout: 30_000,
    headersTimeout: config.timeoutMs,
    bodyTimeout: config.timeoutMs,
    connect: { timeout: Math.min(config.timeoutMs, 30_000) },
  });
  const limiter = createLimiter(config.concurrency);
  const url = `${config.baseUrl}/chat/completions`;

  async function call(req: ChatRequest, now: Date): Promise<ChatOutcome> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    const fail = (retryable: boolean, reason: string, extra: Partial<ChatFailure> = {}): ChatFailure => ({
      ok: false,
      retryable,
      reason,
      retryAfterMs: null,
      requestId: null,
      latencyMs: elapsed(),
      ...extra,
    });
    const body = JSON.stringify({
      model: config.model,
      messages: req.messages,
      temperature: 0,
      response_format: { type: 'json_schema', json_schema: { name: REPLY_SCHEMA_NAME, strict: true, schema: req.schema } },
    });
    let status: number;
    let headers: Record<string, string | string[] | undefined>;
    let text: string;
    try {
      const res = await request(url, {
        method: 'POST',
        dispatcher: agent,
        signal: AbortSignal.timeout(config.timeoutMs),
        headers: {
          'content-type': 'application/json',
          accept: 'application/json',
          'user-agent': opts.userAgent ?? 'Assay-Marking/1',
          ...(config.apiKey ? { authorization: `Bearer ${config.apiKey}` } : {}),
        },
        body,
      });
      status = res.statusCode;
      headers = res.headers;
      text = await readLimited(res.body);
    } catch (err) {
      return fail(true, describeError(err, config.timeoutMs));
    }
    const headerId = firstHeader(headers['x-request-id']) ?? firstHeader(headers['request-id']) ?? null;
    if (status < 200 || status >= 300) {
      const retryAfterMs = parseRetryAfter(headers['retry-after'], now);
      const retryable = status === 408 || status === 429 || status >= 500;
      const what = status === 429 ? 'rate limited' : status >= 500 ? 'server error' : 'refused the request';
      return fail(retryable, `the model server answered HTTP ${status} (${what})`, { retryAfterMs, requestId: headerId });
    }
    let envelope: any;
    try {
      envelope = JSON.parse(text);
    } catch {
      return fail(true, 'the model server sent a response that is not JSON', { requestId: headerId });
    }
    const requestId = (typeof envelope?.id === 'string' && envelope.id.slice(0, 200)) || headerId;
    const choice = Array.isArray(envelope?.choices) ? envelope.choices[0] : undefined;
    const message = choice?.message;
    if (typeof message?.refusal === 'string' && message.refusal) return fail(true, 'the model refused to mark the answer', { requestId });
    if (typeof message?.content !== 'string') return fail(true, 'the response has no message content', { requestId });
    let content: unknown;
    try {
      content = JSON.parse(message.content);
    } catch {
      const cut = choice?.finish_reason === 'length' ? ' (cut off at the length limit)' : '';
      return fail(true, `the reply is not valid JSON${cut}`, { requestId });
    }
    const usage = envelope.usage ?? {};
    return {
      ok: true,
      content,
      requestId,
      latencyMs: elapsed(),
      promptTokens: Number.isInteger(usage.prompt_tokens) ? usage.prompt_tokens : null,
      completionTokens: Number.isInteger(usage.completion_tokens) ? usage.completion_tokens : null,
    };
  }

  return {
    model: config.model,
    complete: (req, now) => limiter.run(() => call(req, now)),
    inFlight: () => limiter.active(),
    close: () => agent.close(),
  };
}

function firstHeader(v: string | string[] | undefined): string | undefined {
  const s = Array.isArray(v) ? v[0] : v;
  return s ? s.slice(0, 200) : undefined;
}

async function readLimited(body: AsyncIterable<Buffer> & { destroy(): void }): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) {
      body.destroy();
      throw Object.assign(new Error('response too large'), { code: 'ASSAY_TOO_LARGE' });
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function describeError(err: unknown, timeoutMs: number): string {
  const e = err as { name?: string; code?: string; cause?: { code?: string } };
  const code = e.code ?? e.cause?.code ?? '';
  if (e.name === 'TimeoutError' || e.name === 'AbortError' || /TIMEOUT/.test(code)) return `no answer from the model server within ${timeoutMs} ms`;
  if (code === 'ASSAY_TOO_LARGE') return `the model server's response was larger than ${MAX_BODY_BYTES} bytes`;
  if (code === 'ECONNREFUSED') return 'the model server refused the connection';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return "the model server's host name did not resolve";
  if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET' || code === 'UND_ERR_CLOSED') return 'the connection to the model server was reset';
  return `the model server could not be reached (${code || e.name || 'network error'})`;
}
