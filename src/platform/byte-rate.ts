import { setTimeout as sleep } from 'node:timers/promises';

/**
 * A process-wide allowance of bytes per second shared by every stream that
 * takes from it: each chunk takes its size, and a taker that finds the
 * allowance spent waits until it has refilled (the debt it and those before
 * it ran up), so the waits queue in arrival order. While a stream waits, its
 * transform does not ask for more, and TCP's flow control holds the client.
 * Used for uploads, so a burst of them cannot take the CPU from everything
 * else the process serves.
 */
export class ByteRate {
  private tokens: number;
  private last = performance.now();

  constructor(
    private readonly bytesPerSecond: number,
    private readonly burstBytes = bytesPerSecond / 10,
  ) {
    this.tokens = burstBytes;
  }

  /** Resolves when `bytes` may pass. */
  async take(bytes: number): Promise<void> {
    const now = performance.now();
    this.tokens = Math.min(this.burstBytes, this.tokens + ((now - this.last) / 1000) * this.bytesPerSecond);
    this.last = now;
    this.tokens -= bytes;
    if (this.tokens < 0) await sleep((-this.tokens / this.bytesPerSecond) * 1000);
  }
}

/**
 * One stream's share of a ByteRate, taken in steps of `stepBytes` rather than
 * per chunk: a stream of 46 KB chunks then waits on a timer once per step,
 * not 2,800 times a second across the streams, and goes on at once
 * (`undefined`) in between. The rate stays the ByteRate's, give or take one
 * step per stream.
 */
export class ByteMeter {
  private owed = 0;

  constructor(
    private readonly rate: ByteRate,
    private readonly stepBytes: number,
  ) {}

  /** Counts `bytes`; a promise when the stream must wait before its next bytes, else nothing. */
  add(bytes: number): Promise<void> | undefined {
    this.owed += bytes;
    if (this.owed < this.stepBytes) return undefined;
    const owed = this.owed;
    this.owed = 0;
    return this.rate.take(owed);
  }
}

/** At most `n` callers inside `run` at once; the rest wait in arrival order. */
export class Gate {
  private active = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(private readonly n: number) {}

  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.active >= this.n) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.active++;
    try {
      return await work();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.active--;
    }
  }
}
