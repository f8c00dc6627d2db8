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
