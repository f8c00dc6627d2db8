import pino from 'pino';
import { redactUrl } from './redact-url.js';
import { createPrettyStream, type PrettyStream } from './log-pretty.js';

/**
 * The one logger of every process (API, worker, npm start), pino as Fastify
 * uses it: JSON lines with time, level and pid, request lines carrying the
 * request id, and serialisers that keep secrets out (no headers; URLs through
 * redactUrl). On a terminal, `npm start` gets a readable, quieter form
 * instead (log-pretty.ts): one line per request, held back until the banner
 * is out; anything else (a file, a pipe, a log collector) gets JSON.
 */
export type Logger = pino.Logger;

export interface LoggerOptions {
  level: string;
  /** Where lines go; stdout by default. Tests pass a capturing stream. */
  stream?: { write(line: string): void };
  /** Human-readable lines (a terminal) instead of JSON. */
  pretty?: boolean;
}

export const LOG_SERIALIZERS = {
  req: (req: { method: string; url: string; ip?: string }) => ({ method: req.method, url: redactUrl(req.url), ip: req.ip }),
  res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
};

const REDACT = { paths: ['req.headers.authorization', 'req.headers.cookie', 'headers.authorization'], remove: true };

/** Said at start, in the banner and the log, whenever the development switch is on. */
export const INSECURE_URLS_NOTICE =
  'ASSAY_ALLOW_INSECURE_URLS is on: http:// callback URLs and http:// or loopback webhook endpoints are accepted. For local development only; never in production.';

/** Whether this process writes to a person's terminal. */
export const stdoutIsTerminal = (): boolean => process.stdout.isTTY === true;

export function createLogger(opts: LoggerOptions): Logger & { pretty: PrettyStream | null } {
  const pretty = opts.pretty ? createPrettyStream(opts.stream ?? process.stdout) : null;
  const logger = pino({ level: opts.level, redact: REDACT, serializers: LOG_SERIALIZERS }, pretty ?? opts.stream ?? pino.destination(1));
  return Object.assign(logger, { pretty });
}
