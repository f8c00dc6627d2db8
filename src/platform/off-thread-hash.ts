import { Worker } from 'node:worker_threads';

/**
 * SHA-256 of a stream, computed on a worker thread: hashing runs at a few
 * hundred MB/s per core, so hashing large uploads on the event loop delays
 * every other request of the process (50 uploads of 20 MB at once took a
 * third of a core). One worker per process, shared by every hash, started on
 * first use and unref'd (it never keeps the process alive).
 *
 * Bytes are copied into blocks of 256 KiB, and a block goes to the worker
 * when full (moved, not copied again) and comes back once hashed, for the
 * next bytes of any hash: one message each way per block, not per chunk (an
 * upload's chunks are about 46 KB, and a message per chunk cost the event
 * loop more than the copy), and no garbage. At most WINDOW_BLOCKS blocks of
 * one hash wait at the worker unhashed, so a fast upload cannot pile its file
 * up there: `update` then returns a promise that resolves once the hash is
 * within its window again, and otherwise nothing, so a caller waits only when
 * it must.
 */
export const HASH_BLOCK_BYTES = 256 * 1024;
const WINDOW_BLOCKS = 4;
/** Blocks kept between hashes (4 MiB). */
const SPARE_MAX = 16;
const spare: ArrayBuffer[] = [];
const takeBlock = () => spare.pop() ?? new ArrayBuffer(HASH_BLOCK_BYTES);

// A plain script (eval'd), so the worker needs no file of its own next to the built or the tsx-run code.
const WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads');
const { createHash } = require('node:crypto');
const hashes = new Map();
parentPort.on('message', ([op, id, block, length]) => {
  if (op === 'u') {
    let h = hashes.get(id);
    if (!h) hashes.set(id, (h = createHash('sha256')));
    h.update(new Uint8Array(block, 0, length));
    parentPort.postMessage(['a', id, block], [block]);
  } else if (op === 'd') {
    const h = hashes.get(id) ?? createHash('sha256');
    hashes.delete(id);
    parentPort.postMessage(['d', id, h.digest('hex')]);
  } else if (op === 'x') {
    hashes.delete(id);
  }
});
`;

interface Session {
  atWorker: number;
  waiters: Array<() => void>;
  digest: ((hex: string) => void) | null;
  fail: (err: Error) => void;
}

let worker: Worker | null = null;
let nextId = 0;
const sessions = new Map<number, Session>();

function theWorker(): Worker {
  if (worker) return worker;
  const w = new Worker(WORKER_SOURCE, { eval: true });
  w.unref();
  w.on('message', ([op, id, value]: ['a', number, ArrayBuffer] | ['d', number, string]) => {
    if (op === 'a') {
      // The block is back (also for a hash discarded meanwhile): ready for the next bytes.
      if (spare.length < SPARE_MAX) spare.push(value);
      const s = sessions.get(id);
      if (s && --s.atWorker < WINDOW_BLOCKS) for (const wake of s.waiters.splice(0)) wake();
      return;
    }
    const s = sessions.get(id);
    if (!s) return;
    sessions.delete(id);
    s.digest?.(value);
  });
  const broken = (err: Error) => {
    worker = null;
    for (const [id, s] of sessions) {
      sessions.delete(id);
      s.fail(err);
    }
  };
  w.on('error', broken);
  w.on('exit', (code) => broken(new Error(`the hashing worker exited (code ${code})`)));
  worker = w;
  return w;
}

export interface OffThreadHash {
  /** Takes a copy of the chunk; a promise when the caller must wait for room before the next one, else nothing. */
  update(chunk: Uint8Array): Promise<void> | undefined;
  /** The hex digest of everything sent. */
  digest(): Promise<string>;
  /** Forgets the hash (an upload that failed). */
  discard(): void;
}

export function sha256OffThread(): OffThreadHash {
  const w = theWorker();
  const id = nextId++;
  let failed: Error | null = null;
  let block: Uint8Array | null = null;
  let filled = 0;
  const session: Session = {
    atWorker: 0,
    waiters: [],
    digest: null,
    fail: (err) => {
      failed = err;
      for (const wake of session.waiters.splice(0)) wake();
    },
  };
  sessions.set(id, session);
  const send = () => {
    const buffer = block!.buffer as ArrayBuffer;
    w.postMessage(['u', id, buffer, filled], [buffer]);
    session.atWorker++;
    block = null;
    filled = 0;
  };
  const room = async () => {
    await new Promise<void>((resolve) => session.waiters.push(resolve));
    if (failed) throw failed;
  };
  return {
    update(chunk) {
      if (failed) throw failed;
      for (let at = 0; at < chunk.length; ) {
        block ??= new Uint8Array(takeBlock());
        const n = Math.min(HASH_BLOCK_BYTES - filled, chunk.length - at);
        block.set(chunk.subarray(at, at + n), filled);
        filled += n;
        at += n;
        if (filled === HASH_BLOCK_BYTES) send();
      }
      return session.atWorker >= WINDOW_BLOCKS ? room() : undefined;
    },
    digest() {
      if (failed) return Promise.reject(failed);
      if (filled > 0) send();
      return new Promise<string>((resolve, reject) => {
        session.digest = resolve;
        session.fail = reject;
        w.postMessage(['d', id]);
      });
    },
    discard() {
      if (block && spare.length < SPARE_MAX) spare.push(block.buffer as ArrayBuffer);
      block = null;
      if (sessions.delete(id)) w.postMessage(['x', id]);
    },
  };
}
