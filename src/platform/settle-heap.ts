/**
 * One full garbage collection after start-up, before the process takes
 * requests: what booting left in the old generation (migrations, seeds,
 * compiled schemas, caches filled) is collected now, not by the first full
 * collection under load. Until then the young collections keep alive what
 * that dead old garbage still points to and promote it, and the process
 * serves its first tens of seconds of load at about half speed
 * (docs/performance.md, "The old generation's garbage at the start").
 *
 * `gc` is V8's, exposed by `--expose-gc` (bin/node-flags.js); without that
 * flag this does nothing and says so by returning false.
 */
export function settleHeap(gc: (() => void) | undefined = (globalThis as { gc?: () => void }).gc): boolean {
  if (typeof gc !== 'function') return false;
  gc();
  return true;
}

/**
 * `settleHeap` for an HTTP app: made ready first, then collected. Fastify
 * compiles the routes' validators when the app is made ready (otherwise at
 * `listen`), and compiling the largest body schemas (a test's questions)
 * leaves V8's hidden class for `{}` with as many transitions as it keeps
 * (about 1,500, one per variable name in the generated code). Until a full
 * collection clears those dead transitions, every object built key by key
 * (each request's headers, among others) gets a hidden class of its own,
 * which outlives the next young collection and is promoted: 0.7 KB a
 * request, and young pauses of 6-10 ms instead of 2-3
 * (docs/performance.md, "A hidden class full of transitions").
 */
export async function settleHeapOnceReady(app: { ready(): PromiseLike<unknown> }, gc?: () => void): Promise<boolean> {
  await app.ready();
  return gc ? settleHeap(gc) : settleHeap();
}
