import pino from 'pino';
import type { FastifyBaseLogger } from 'fastify';

type Level = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';
type Bindings = Record<string, unknown>;
type ChildOptions = { level?: string };

/**
 * Fastify's logger for one request, made only when the request writes a line
 * at a level that is logged. Fastify makes a pino child per request (bound to
 * the request id); at the production level (`warn`) nearly every request
 * writes nothing, and the child's bindings were serialised for nothing on
 * every partner read. A line below the level costs a comparison; the first
 * line at or above it makes the child, which then writes this and every later line.
 */
export function lazyChildLogger(parent: FastifyBaseLogger, bindings: Bindings, opts: ChildOptions): FastifyBaseLogger {
  return new LazyChild(parent, bindings, opts) as unknown as FastifyBaseLogger;
}

const VALUES = pino.levels.values as Record<string, number>;

class LazyChild {
  #made: FastifyBaseLogger | null = null;
  readonly #parent: FastifyBaseLogger;
  readonly #bindings: Bindings;
  /** Bindings set before the child was made, given to it when it is. */
  #more: Bindings | null = null;
  readonly #opts: ChildOptions;

  constructor(parent: FastifyBaseLogger, bindings: Bindings, opts: ChildOptions) {
    this.#parent = parent;
    this.#bindings = bindings;
    this.#opts = opts;
  }

  #child(): FastifyBaseLogger {
    return (this.#made ??= this.#parent.child(this.#more ? { ...this.#bindings, ...this.#more } : this.#bindings, this.#opts));
  }

  /** Whether a line at `level` is written: by the child's own level once made, else its options' or the parent's. */
  #writes(level: Level): boolean {
    const threshold = VALUES[this.level];
    // A level pino does not know (a custom logger's): let the logger decide.
    return threshold === undefined || VALUES[level]! >= threshold;
  }

  get level(): string {
    return this.#made?.level ?? this.#opts.level ?? this.#parent.level;
  }

  set level(level: string) {
    this.#child().level = level;
  }

  #log(level: Level, args: unknown[]): void {
    if (this.#writes(level)) (this.#child()[level] as (...a: unknown[]) => void)(...args);
  }

  fatal(...args: unknown[]): void {
    this.#log('fatal', args);
  }
  error(...args: unknown[]): void {
    this.#log('error', args);
  }
  warn(...args: unknown[]): void {
    this.#log('warn', args);
  }
  info(...args: unknown[]): void {
    this.#log('info', args);
  }
  debug(...args: unknown[]): void {
    this.#log('debug', args);
  }
  trace(...args: unknown[]): void {
    this.#log('trace', args);
  }
  silent(): void {}

  child(bindings: Bindings, opts?: ChildOptions): FastifyBaseLogger {
    return this.#child().child(bindings, opts);
  }

  /** pino's: more bindings for every later line (the partner's key id, once authenticated); a logger without them (none, in tests) ignores them. */
  setBindings(more: Bindings): void {
    if (this.#made) (this.#made as FastifyBaseLogger & { setBindings?(b: Bindings): void }).setBindings?.(more);
    // The caller's object is kept, not copied (per request, a copy cost more than the rest of this logger).
    else this.#more = this.#more ? { ...this.#more, ...more } : more;
  }

  bindings(): Bindings {
    return this.#made ? ((this.#made as FastifyBaseLogger & { bindings?(): Bindings }).bindings?.() ?? {}) : { ...this.#bindings, ...this.#more };
  }

  isLevelEnabled(level: string): boolean {
    return this.#writes(level as Level);
  }
}
