// The recording's upload queue. Every segment and snapshot is written to IndexedDB first and deleted only
// once the server has accepted it (201, or 200 for one it already had), so a network cut, a server restart
// or a reload loses nothing: failed uploads are retried with backoff, at once when the browser is back
// online, and on the next page load. Without IndexedDB (some private modes) the queue lives in memory.
// With S3 storage (`direct`), each piece goes presign → PUT to the bucket → record (proctor-direct.js)
// and stays queued until its record succeeds; otherwise it is POSTed to the API as bytes.
import { createDirectSender, outcomeOf } from './proctor-direct.js';

const DB_NAME = 'assay-proctoring';
const STORE = 'uploads';

function openDb() {
  return new Promise((resolve) => {
    let request;
    try {
      request = indexedDB.open(DB_NAME, 1);
    } catch {
      resolve(null);
      return;
    }
    request.onupgradeneeded = () => request.result.createObjectStore(STORE, { keyPath: 'key' });
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => resolve(null);
    request.onblocked = () => resolve(null);
  });
}

function run(db, mode, fn) {
  return new Promise((resolve, reject) => {
    const tx = db.transaction(STORE, mode);
    const result = fn(tx.objectStore(STORE));
    tx.oncomplete = () => resolve(result && 'result' in result ? result.result : undefined);
    tx.onerror = () => reject(tx.error);
    tx.onabort = () => reject(tx.error);
  });
}

// Evidence for a flag first, then the recording in order, then periodic pictures.
const RANK = { evidence: 0, segment: 1, snapshot: 2 };
const pad = (n) => String(n).padStart(6, '0');

/**
 * @param {{ assignmentId: string, csrfToken: string, direct?: boolean, onChange?: (s: { queued: number, failing: boolean }) => void }} opts
 */
export async function createUploadQueue(opts) {
  const base = `/a/${encodeURIComponent(opts.assignmentId)}/proctoring`;
  const prefix = `${opts.assignmentId}|`;
  const db = await openDb();
  const memory = new Map(); // key → item, when there is no IndexedDB
  const keys = new Set(); // what is queued, for ordering and counting without reading the blobs
  if (db) {
    const stored = await run(db, 'readonly', (s) => s.getAllKeys(IDBKeyRange.bound(prefix, `${prefix}\uffff`))).catch(() => []);
    for (const k of stored) keys.add(k);
  }

  const direct = opts.direct ? createDirectSender({ base, csrfToken: opts.csrfToken }) : null;
  let sending = null;
  let retryTimer = null;
  let retryDelay = 1000;
  let failing = false;
  let halted = false; // the session ended: nothing can succeed until a new page load
  const changed = () => opts.onChange && opts.onChange({ queued: keys.size, failing });

  async function put(item) {
    if (db) {
      try {
        await run(db, 'readwrite', (s) => s.put(item));
        keys.add(item.key);
        return;
      } catch {
        // Storage full or refused: keep it in memory; it is lost only if the page also closes before it is sent.
      }
    }
    memory.set(item.key, item);
    keys.add(item.key);
  }

  async function get(key) {
    if (memory.has(key)) return memory.get(key);
    return db ? run(db, 'readonly', (s) => s.get(key)) : undefined;
  }

  async function drop(key) {
    keys.delete(key);
    memory.delete(key);
    if (db) await run(db, 'readwrite', (s) => s.delete(key)).catch(() => undefined);
  }

  function next() {
    return [...keys].sort()[0];
  }

  async function upload(item) {
    const headers = { 'content-type': item.type, 'x-csrf-token': opts.csrfToken };
    let url;
    if (item.kind === 'segment') {
      url = `${base}/segments/${item.seq}`;
      headers['x-segment-started-at'] = new Date(item.startedAt).toISOString();
      headers['x-segment-duration-ms'] = String(Math.round(item.durationMs));
    } else {
      url = `${base}/snapshots`;
      headers['x-snapshot-taken-at'] = new Date(item.takenAt).toISOString();
      headers['x-snapshot-id'] = item.snapshotId;
      if (item.flagId) headers['x-flag-id'] = item.flagId;
    }
    return fetch(url, { method: 'POST', headers, body: item.blob, credentials: 'same-origin', cache: 'no-store' });
  }

  /** What the presign call declares: the through-API upload's headers, as JSON. */
  function intentOf(item) {
    if (item.kind === 'segment') {
      return { kind: 'segment', bytes: item.blob.size, seq: item.seq, startedAt: new Date(item.startedAt).toISOString(), durationMs: Math.round(item.durationMs) };
    }
    const intent = { kind: 'snapshot', bytes: item.blob.size, takenAt: new Date(item.takenAt).toISOString(), snapshotId: item.snapshotId };
    if (item.flagId) intent.flagId = item.flagId;
    return intent;
  }

  /** One piece sent, by whichever path the storage calls for; the outcome says what the queue does next. */
  async function send(key, item) {
    if (direct) return direct(key, item, intentOf(item));
    try {
      return outcomeOf(await upload(item));
    } catch {
      return { kind: 'retry', retryAfter: null };
    }
  }

  /** Sends what is queued, oldest first, one at a time; resolves true when the queue is empty. */
  function flush() {
    if (!sending) sending = sendAll().finally(() => (sending = null));
    return sending;
  }

  async function sendAll() {
    clearTimeout(retryTimer);
    while (!halted) {
      const key = next();
      if (!key) break;
      const item = await get(key);
      if (!item) {
        keys.delete(key);
        continue;
      }
      const outcome = await send(key, item);
      if (outcome.kind === 'done') {
        await drop(key);
      } else if (outcome.kind === 'halt') {
        halted = true; // session gone: kept for the next page load, which has a fresh session and token
      } else if (outcome.kind === 'retry') {
        return retryLater(outcome.retryAfter);
      } else {
        // 400/404/409/413/415: this piece can never be accepted (the attempt ended long ago, for example).
        await drop(key);
      }
      retryDelay = 1000;
      failing = false;
      changed();
    }
    changed();
    return keys.size === 0;
  }

  function retryLater(retryAfter) {
    failing = true;
    changed();
    const asked = Number(retryAfter) * 1000;
    const delay = Number.isFinite(asked) && asked > 0 ? Math.min(asked, 60_000) : retryDelay;
    retryDelay = Math.min(retryDelay * 2, 30_000);
    clearTimeout(retryTimer);
    retryTimer = setTimeout(flush, delay);
    return false;
  }

  window.addEventListener('online', () => {
    retryDelay = 1000;
    flush();
  });

  return {
    /** The highest segment number queued on this device, or -1. */
    highestQueuedSeq() {
      let max = -1;
      for (const k of keys) {
        const m = /\|1segment\|(\d+)$/.exec(k);
        if (m) max = Math.max(max, Number(m[1]));
      }
      return max;
    },
    async addSegment(seg) {
      await put({ key: `${prefix}${RANK.segment}segment|${pad(seg.seq)}`, kind: 'segment', ...seg });
      changed();
      flush();
    },
    async addSnapshot(snap) {
      const rank = snap.flagId ? RANK.evidence : RANK.snapshot;
      await put({ key: `${prefix}${rank}snapshot|${String(snap.takenAt).padStart(15, '0')}|${snap.snapshotId}`, kind: 'snapshot', type: 'image/jpeg', ...snap });
      changed();
      flush();
    },
    flush,
    get size() {
      return keys.size;
    },
  };
}
