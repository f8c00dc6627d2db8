// What the browser noticed, as signals for the heartbeat: each has a stable id, is sent while it lasts with
// its growing duration (ongoing: true), and a last time when it ends (ongoing: false). The server turns
// them into flags and decides their severity; nothing here judges.
import { randomId } from './proctor-camera.js';

const MAX_PER_CALL = 50; // the heartbeat route's limit

/**
 * @param {{ now: () => number, onChange: () => void }} opts  now() is the server-corrected clock in ms
 */
export function createSignals(opts) {
  const active = new Map(); // key → { id, kind, startedAt }
  let ended = []; // finished, not yet accepted by the server

  const payload = (s, until, ongoing) => ({
    id: s.id,
    kind: s.kind,
    startedAt: new Date(s.startedAt).toISOString(),
    durationSeconds: Math.max(0, Math.round((until - s.startedAt) / 100) / 10),
    ongoing,
  });

  return {
    now: opts.now,
    isActive: (key) => active.has(key),
    /** Starts a lasting condition (no-op while it already lasts). `key` tells apart conditions of one kind. */
    start(kind, { key = kind, at = opts.now() } = {}) {
      if (active.has(key)) return;
      active.set(key, { id: randomId(`${kind}-`), kind, startedAt: at });
      opts.onChange();
    },
    stop(key, at = opts.now()) {
      const s = active.get(key);
      if (!s) return;
      active.delete(key);
      ended.push(payload(s, Math.max(at, s.startedAt), false));
      opts.onChange();
    },
    /** A moment (a paste): sent once, with no duration. */
    once(kind) {
      const at = opts.now();
      ended.push(payload({ id: randomId(`${kind}-`), kind, startedAt: at }, at, false));
      opts.onChange();
    },
    /** Ends every lasting condition now, dropping those younger than `minMs` (artefacts of leaving the page). */
    stopAll({ minMs = 0 } = {}) {
      const now = opts.now();
      for (const [key, s] of active) {
        if (now - s.startedAt < minMs) active.delete(key);
        else this.stop(key, now);
      }
    },
    /** The next heartbeat's signals: what ended first (oldest first), then what still lasts. */
    take() {
      const now = opts.now();
      const finished = ended.slice(0, MAX_PER_CALL);
      const lasting = [...active.values()].slice(0, MAX_PER_CALL - finished.length).map((s) => payload(s, now, true));
      return { signals: [...finished, ...lasting], finished };
    },
    /** The server stored these: they need not be sent again. */
    accepted(finished) {
      const done = new Set(finished.map((s) => s.id));
      ended = ended.filter((s) => !done.has(s.id));
    },
    get activeKinds() {
      return [...active.values()].map((s) => s.kind);
    },
  };
}
