import { Worker } from 'node:worker_threads';

/**
 * One worker thread per process for the bytes of uploads: hashing them
 * (off-thread-hash.ts) and writing them to files (storage/block-writer.ts),
 * in blocks of 256 KiB that both threads share and reuse (a message each
 * way per block, no copy, no garbage).
 *
 * The thread lowers its own scheduling priority (nice +10 on Linux, where a
 * thread has its own): work it is woken for never takes a CPU from the event
 * loop, which serves every other request of the process. When the thread ran
 * at the loop's priority, as Node's file-system threads do, each block handed
 * to it could preempt the loop on a busy machine, and a burst of uploads
 * doubled the partner read's p99 in the middle of the burst
 * (docs/performance.md). A busy machine slows the uploads instead: their
 * blocks come back later, and TCP's flow control holds the clients.
 *
 * Started by the API process as it boots (`startByteThread`, main.ts), or
 * else on first use, and unref'd (it never keeps the process alive); a
 * thread that fails fails the calls in flight, and the next call starts a
 * new one. Started on first use, its start-up (a V8 isolate and Node's
 * bootstrap, about 40 ms of CPU) fell on the first upload burst's first
 * moments, with the loop's own work for fifty new requests.
 */
export const BYTE_BLOCK_BYTES = 256 * 1024;
/** How much lower than the process the thread runs (nice), where the system allows it. */
export const BYTE_THREAD_NICE = 10;
/**
 * Blocks kept for reuse (16 MiB): fifty uploads at once hold about 150, so a
 * burst allocates the rest, and those are let go when they come back.
 */
const SPARE_MAX = 64;

/**
 * The blocks are SharedArrayBuffers that both threads hold from their first
 * use, and a message names a block by its number: moving an ArrayBuffer to
 * the thread and back instead made a new ArrayBuffer object each way, 256 KiB
 * of "external memory" to V8 each time, and at 128 MB/s of uploads that alone
 * set off a young-generation collection several times a second.
 */
const blocks: Array<Buffer | undefined> = [];
const spare: number[] = [];
/** Numbers of blocks let go, for the next new block. */
const unused: number[] = [];

/** A block for the next bytes (a spare one or a new one), by number; `blockBytes(n)` is its memory. */
export function takeBlock(): number {
  return spare.pop() ?? newBlock();
}
function newBlock(): number {
  const n = unused.pop() ?? blocks.length;
  blocks[n] = Buffer.from(new SharedArrayBuffer(BYTE_BLOCK_BYTES));
  worker?.postMessage(['b', -1, n, blocks[n]!.buffer]);
  return n;
}
/** The memory of block `n`, to fill while the block is the caller's. */
export const blockBytes = (n: number): Buffer => blocks[n]!;
/** A block no longer needed: kept for reuse, or let go beyond the spares. */
export function giveBlockBack(n: number): void {
  if (spare.length < SPARE_MAX) return void spare.push(n);
  blocks[n] = undefined;
  unused.push(n);
  worker?.postMessage(['f', -1, n]);
}

// A plain script (eval'd), so the worker needs no file of its own next to the built or the tsx-run code.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { createHash } = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
try {
  // Linux: this thread's own id, so only this thread is lowered.
  const tid = Number(fs.readlinkSync('/proc/thread-self').split('/').pop());
  os.setPriority(tid, Math.min(19, os.getPriority(tid) + ${BYTE_THREAD_NICE}));
} catch {}
const blocks = workerData.map((b) => b && new Uint8Array(b));
const hashes = new Map();
const hashOf = (id) => {
  let h = hashes.get(id);
  if (!h) hashes.set(id, (h = createHash('sha256')));
  return h;
};
parentPort.on('message', (m) => {
  const [op, seq] = m;
  if (op === 'u') {
    const [, , id, n, length] = m;
    hashOf(id).update(blocks[n].subarray(0, length));
    parentPort.postMessage(['ok', seq, n]);
  } else if (op === 'w') {
    const [, , fd, n, length, position, id] = m;
    try {
      for (let at = 0; at < length; ) at += fs.writeSync(fd, blocks[n], at, length - at, position + at);
      if (id !== undefined) hashOf(id).update(blocks[n].subarray(0, length));
      parentPort.postMessage(['ok', seq, n]);
    } catch (err) {
      parentPort.postMessage(['err', seq, n, String(err && err.message), err && err.code]);
    }
  } else if (op === 'o' || op === 'c' || op === 'r') {
    try {
      let fd;
      if (op === 'o') {
        fs.mkdirSync(path.dirname(m[2]), { recursive: true });
        fd = String(fs.openSync(m[2], 'wx'));
      } else if (op === 'c') {
        fs.closeSync(m[2]);
        if (m[4]) fs.renameSync(m[3], m[4]);
      } else {
        fs.rmSync(m[2], { force: true });
      }
      parentPort.postMessage(['ok', seq, -1, fd]);
    } catch (err) {
      parentPort.postMessage(['err', seq, -1, String(err && err.message), err && err.code]);
    }
  } else if (op === 'd') {
    const id = m[2];
    const h = hashes.get(id) ?? createHash('sha256');
    hashes.delete(id);
    parentPort.postMessage(['ok', seq, -1, h.digest('hex')]);
  } else if (op === 'x') {
    hashes.delete(m[2]);
  } else if (op === 'b') {
    blocks[m[2]] = new Uint8Array(m[3]);
  } else if (op === 'f') {
    blocks[m[2]] = undefined;
  }
});
`;

/** `[ok|err, seq, block number or -1, digest | error message, error code]` */
type Reply = ['ok', number, number, string?] | ['err', number, number, string, string | undefined];
interface Call {
  resolve: (value: string | undefined) => void;
  reject: (err: Error) => void;
  /** The block the thread holds for the call, if any. */
  block: number;
}

let worker: Worker | null = null;
let nextSeq = 0;
const calls = new Map<number, Call>();

function theWorker(): Worker {
  if (worker) return worker;
  const w = new Worker(WORKER_SOURCE, { eval: true, workerData: blocks.map((b) => b?.buffer) });
  w.unref();
  w.on('message', (reply: Reply) => {
    const call = calls.get(reply[1]);
    calls.delete(reply[1]);
    // The block is back (also for a call nobody waits for any more): ready for the next bytes.
    if (reply[2] >= 0) giveBlockBack(reply[2]);
    if (!call) return;
    if (reply[0] === 'ok') call.resolve(reply[3]);
    else call.reject(Object.assign(new Error(reply[3]), reply[4] ? { code: reply[4] } : {}));
  });
  const broken = (err: Error) => {
    if (worker === w) worker = null;
    for (const [seq, call] of calls) {
      calls.delete(seq);
      // The thread is gone: the blocks it held are the process's again.
      if (call.block >= 0) giveBlockBack(call.block);
      call.reject(err);
    }
  };
  w.on('error', broken);
  w.on('exit', (code) => broken(new Error(`the byte thread exited (code ${code})`)));
  worker = w;
  return w;
}

/**
 * Starts the thread now, while nothing waits for it (the API process's boot), with the spare blocks made and
 * their memory touched: the first burst of uploads otherwise made them as it arrived, each a new mapping and
 * 64 page faults on the event loop, which was busiest then (docs/performance.md).
 */
export function startByteThread(): void {
  theWorker();
  while (spare.length < SPARE_MAX) {
    const n = newBlock();
    blocks[n]!.fill(0);
    spare.push(n);
  }
}

function call(block: number, message: Array<string | number>): Promise<string | undefined> {
  const w = theWorker();
  const seq = nextSeq++;
  return new Promise((resolve, reject) => {
    calls.set(seq, { resolve, reject, block });
    w.postMessage([message[0], seq, ...message.slice(1)]);
  });
}

let nextHash = 0;
/** A new hash's id for the calls below. */
export const newHashId = (): number => nextHash++;
/** Adds block `n`'s first `length` bytes to a hash; the block is the thread's until then (and a spare after). */
export const hashBlock = (id: number, n: number, length: number): Promise<unknown> => call(n, ['u', id, n, length]);
/** The hex SHA-256 of everything added to the hash, which is then forgotten. */
export const hashDigest = async (id: number): Promise<string> => (await call(-1, ['d', id]))!;
/** Forgets a hash. */
export function hashForget(id: number): void {
  worker?.postMessage(['x', -1, id]);
}
/**
 * An upload's file operations, on the same thread: creates `file` (and its folder) for writing, failing if it
 * exists, and gives its descriptor. Node's own file-system threads, at the loop's priority, woken for the
 * opening, closing, renaming and deleting of fifty uploads' files at once, took the loop's CPU at the start and
 * end of a burst (docs/performance.md).
 */
export const openNewFile = async (file: string): Promise<number> => Number(await call(-1, ['o', file]));
/** Closes a descriptor from openNewFile, then renames `from` to `to` when given (after every block written to it). */
export const closeFile = (fd: number, rename?: { from: string; to: string }): Promise<unknown> =>
  call(-1, rename ? ['c', fd, rename.from, rename.to] : ['c', fd]);
/** Deletes a file, if there is one. */
export const removeFile = (file: string): Promise<unknown> => call(-1, ['r', file]);
/**
 * Writes block `n`'s first `length` bytes at `position` of an open file, and adds them to hash `hashId` when
 * given (one copy of the bytes for both); the block is the thread's until then (and a spare after).
 */
export const writeBlock = (fd: number, n: number, length: number, position: number, hashId?: number): Promise<unknown> =>
  call(n, hashId === undefined ? ['w', fd, n, length, position] : ['w', fd, n, length, position, hashId]);
