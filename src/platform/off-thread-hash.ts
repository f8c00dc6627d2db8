import { Worker } from 'node:worker_threads';

/**
 * SHA-256 of a stream, computed on a worker thread: hashing runs at a few
 * hundred MB/s per core, so hashing large uploads on the event loop delays
 * every other request of the process (50 uploads of 20 MB at once took a
 * third of a core). One worker per process, shared by every hash, started on
 * first use and unref'd (it never keeps the process alive). Chunks are copied
 * to the worker; at most WINDOW bytes of one hash wait there unhashed, so a
 * fast upload cannot pile its file up in the worker's queue: `update`
 * resolves once the hash is within its window again.
 */
const WINDOW = 4 * 1024 * 1024;

// A plain script (eval'd), so the worker needs no file of its own next to the built or the tsx-run code.
const WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads');
const { createHash } = require('node:crypto');
const hashes = new Map();
parentPort.on('message', ([op, id, chunk]) => {
  if (op === 'u') {
    let h = hashes.get(id);
    if (!h) hashes.set(id, (h = createHash('sha256')));
    h.update(chunk);
    parentPort.postMessage(['a', id, chunk.byteLength]);
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
  pending: number;
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
  w.on('message', ([op, id, value]: ['a' | 'd', number, number | string]) => {
    const s = sessions.get(id);
    if (!s) return;
    if (op === 'a') {
      s.pending -= value as number;
      if (s.pending <= WINDOW) for (const wake of s.waiters.splice(0)) wake();
    } else {
      sessions.delete(id);
      s.digest?.(value as string);
    }
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
  /** Sends a chunk (copied); resolves when this hash has room for more. */
  update(chunk: Buffer): Promise<void>;
  /** The hex digest of everything sent. */
  digest(): Promise<string>;
  /** Forgets the hash (an upload that failed). */
  discard(): void;
}

export function sha256OffThread(): OffThreadHash {
  const w = theWorker();
  const id = nextId++;
  let failed: Error | null = null;
  const session: Session = {
    pending: 0,
    waiters: [],
    digest: null,
    fail: (err) => {
      failed = err;
      for (const wake of session.waiters.splice(0)) wake();
    },
  };
  sessions.set(id, session);
  return {
    async update(chunk) {
      if (failed) throw failed;
      session.pending += chunk.length;
      // A copy of exactly these bytes, moved (not cloned again) to the worker: the chunk itself goes on to storage.
      const copy = new Uint8Array(chunk);
      w.postMessage(['u', id, copy], [copy.buffer]);
      if (session.pending > WINDOW) await new Promise<void>((resolve) => session.waiters.push(resolve));
      if (failed) throw failed;
    },
    digest() {
      if (failed) return Promise.reject(failed);
      return new Promise<string>((resolve, reject) => {
        session.digest = resolve;
        session.fail = reject;
        w.postMessage(['d', id]);
      });
    },
    discard() {
      if (sessions.delete(id)) w.postMessage(['x', id]);
    },
  };
}
