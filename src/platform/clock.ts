/** Time source passed down from the composition root so tests can move time. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** A clock for tests: starts at `start` (or real now) and moves only when told. */
export function manualClock(start: Date = new Date()): Clock & { advance(ms: number): void; set(d: Date): void } {
  let current = start.getTime();
  return {
    now: () => new Date(current),
    advance(ms: number) {
      current += ms;
    },
    set(d: Date) {
      current = d.getTime();
    },
  };
}
