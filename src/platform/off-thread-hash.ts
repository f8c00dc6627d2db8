import { blockBytes, BYTE_BLOCK_BYTES, giveBlockBack, hashBlock, hashDigest, hashForget, newHashId, takeBlock } from './byte-thread.js';

/**
 * SHA-256 of a stream, computed on the process's byte thread (byte-thread.ts):
 * hashing runs at a few hundred MB/s per core, so hashing large uploads on
 * the event loop delays every other request of the process (50 uploads of
 * 20 MB at once took a third of a core).
 *
 * Bytes are copied into blocks of 256 KiB, and a block goes to the thread
 * when full (shared, not copied again) and comes back once hashed, for the
 * next bytes of any hash or file: one message each way per block, not per
 * chunk (an upload's chunks are about 46 KB, and a message per chunk cost the
 * event loop more than the copy), and no garbage. At most WINDOW_BLOCKS
 * blocks of one hash wait at the thread unhashed, so a fast upload cannot
 * pile its file up there: `update` then returns a promise that resolves once
 * the hash is within its window again, and otherwise nothing, so a caller
 * waits only when it must.
 */
export const HASH_BLOCK_BYTES = BYTE_BLOCK_BYTES;
const WINDOW_BLOCKS = 4;

export interface OffThreadHash {
  /** Takes a copy of the chunk; a promise when the caller must wait for room before the next one, else nothing. */
  update(chunk: Uint8Array): Promise<void> | undefined;
  /** The hex digest of everything sent. */
  digest(): Promise<string>;
  /** Forgets the hash (an upload that failed). */
  discard(): void;
}

export function sha256OffThread(): OffThreadHash {
  const id = newHashId();
  let failed: Error | null = null;
  let block: number | null = null;
  let filled = 0;
  let atThread = 0;
  const waiters: Array<() => void> = [];
  const wakeAll = () => {
    for (const wake of waiters.splice(0)) wake();
  };
  const send = () => {
    atThread++;
    hashBlock(id, block!, filled).then(
      () => {
        if (--atThread < WINDOW_BLOCKS) wakeAll();
      },
      (err: Error) => {
        failed ??= err;
        wakeAll();
      },
    );
    block = null;
    filled = 0;
  };
  const room = async () => {
    await new Promise<void>((resolve) => waiters.push(resolve));
    if (failed) throw failed;
  };
  return {
    update(chunk) {
      if (failed) throw failed;
      for (let at = 0; at < chunk.length; ) {
        block ??= takeBlock();
        const n = Math.min(HASH_BLOCK_BYTES - filled, chunk.length - at);
        blockBytes(block).set(chunk.subarray(at, at + n), filled);
        filled += n;
        at += n;
        if (filled === HASH_BLOCK_BYTES) send();
      }
      return atThread >= WINDOW_BLOCKS ? room() : undefined;
    },
    digest() {
      if (failed) return Promise.reject(failed);
      if (filled > 0) send();
      // The thread takes messages in order: the digest comes after every block sent.
      return hashDigest(id).then((hex) => {
        if (failed) throw failed;
        return hex;
      });
    },
    discard() {
      if (block !== null) giveBlockBack(block);
      block = null;
      hashForget(id);
    },
  };
}
