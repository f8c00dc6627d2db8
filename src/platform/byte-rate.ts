import { setTimeout as sleep } from 'node:timers/promises';
import { performance } from 'node:perf_hooks';

/**
 * How a ByteRate gives way to the rest of the process: every `everyMs` while
 * it is in use, the event loop's busy share over that time
 * (`performance.eventLoopUtilization`) is read; above `busyAbove` the rate
 * halves (down to `floorBytesPerSecond`, a number or what a function says
 * at the time), below `busyBelow` it grows by a
 * quarter (up to the rate the ByteRate was made with). Takers that come after
 * a quiet second start at `startBytesPerSecond` (a slow start: the loop's
 * share is only known a tick later), and the burst is a tenth of a second
 * at the rate of the moment.
 */
export interface GiveWay {
  busyAbove: number;
  busyBelow: number;
  floorBytesPerSecond: number | (() => number);
  startBytesPerSecond: number;
  everyMs?: number;
  /** The loop's busy share since the last call (tests give their own). */
  loopBusy?: () => number;
}

/** The event loop's busy share since the previous call. */
function loopBusySince(): () => number {
  let last = performance.eventLoopUtilization();
  return () => {
    const now = performance.eventLoopUtilization();
    const share = performance.eventLoopUtilization(now, last).utilization;
    last = now;
    return share;
  };
}

/**
 * A process-wide allowance of bytes per second shared by every stream that
 * takes from it: each chunk takes its size, and a taker that finds the
 * allowance spent waits until it has refilled (the debt it and those before
 * it ran up), so the waits queue in arrival order. While a stream waits, its
 * transform does not ask for more, and TCP's flow control holds the client.
 * Used for uploads, so a burst of them cannot take the CPU from everything
 * else the process serves; with `giveWay`, the allowance also shrinks while
 * the event loop is busy (with the uploads' own starts, other requests,
 * anything) and grows back when it is not.
 */
export class ByteRate {
  private tokens: number;
  private last = performance.now();
  private current: number;
  private lastTake = 0;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly bytesPerSecond: number,
    private readonly burstBytes = bytesPerSecond / 10,
    private readonly giveWay?: GiveWay,
  ) {
    this.current = giveWay?.startBytesPerSecond ?? bytesPerSecond;
    this.tokens = this.burst();
  }

  private burst(): number {
    return this.giveWay ? Math.min(this.burstBytes, this.current / 10) : this.burstBytes;
  }

  /** The allowance now (bytes per second). */
  get rate(): number {
    return this.current;
  }

  /** Resolves when `bytes` may pass. */
  async take(bytes: number): Promise<void> {
    const now = performance.now();
    this.lastTake = now;
    if (this.giveWay && !this.timer) this.watchLoop(this.giveWay);
    this.tokens = Math.min(this.burst(), this.tokens + ((now - this.last) / 1000) * this.current);
    this.last = now;
    this.tokens -= bytes;
    if (this.tokens < 0) await sleep((-this.tokens / this.current) * 1000);
  }

  /** Adjusts the rate while takers come (stopping a second after the last), as GiveWay says. */
  private watchLoop(g: GiveWay): void {
    const busy = g.loopBusy ?? loopBusySince();
    busy();
    this.timer = setInterval(() => {
      const share = busy();
      const floor = Math.min(this.bytesPerSecond, typeof g.floorBytesPerSecond === 'number' ? g.floorBytesPerSecond : g.floorBytesPerSecond());
      if (share > g.busyAbove) this.current = Math.max(floor, this.current / 2);
      else if (this.current < floor) this.current = floor;
      else if (share < g.busyBelow) this.current = Math.min(this.bytesPerSecond, this.current * 1.25);
      if (performance.now() - this.lastTake > 1000) {
        clearInterval(this.timer!);
        this.timer = null;
        this.current = g.startBytesPerSecond;
      }
    }, g.everyMs ?? 100);
    this.timer.unref();
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
