import { blockBytes, BYTE_BLOCK_BYTES, giveBlockBack, hashDigest, hashForget, newHashId, takeBlock, writeBlock } from '../byte-thread.js';
import type { StoredStream } from './object-store.js';

/**
 * Writes a stream of chunks to a file in blocks of 256 KiB, on the process's
 * byte thread (byte-thread.ts), at most two blocks of a file at the thread
 * at once. An upload arrives in chunks of about 46 KB: a write per chunk
 * (2,800 a second for the upload allowance) cost the event loop more than
 * the bytes, and gathering chunks into fresh buffers made them live long
 * enough (a block fills at one upload's share of the allowance) to be
 * promoted, which turned into full garbage collections. Blocks are reused,
 * and written by a thread below the event loop's priority: Node's own
 * file-system threads, at its priority, took the loop's CPU on a busy machine
 * each time a write woke them. The thread hashes each block after writing
 * it, so the bytes are copied once for both.
 */
export const BLOCK_BYTES = BYTE_BLOCK_BYTES;
const IN_FLIGHT = 2;

/**
 * Copies every chunk into blocks and writes them to the file open as `fd` in order; resolves with the bytes written
 * and their SHA-256. Returns (or fails) only once no write of the file is in flight, so the caller may close it then.
 */
export async function writeInBlocks(fd: number, chunks: AsyncIterable<Buffer>): Promise<StoredStream> {
  const hashId = newHashId();
  let done = false;
  let total = 0;
  let block: number | null = null;
  let filled = 0;
  const inFlight: Array<Promise<unknown>> = [];
  const write = async () => {
    if (inFlight.length >= IN_FLIGHT) await inFlight.shift();
    const written = writeBlock(fd, block!, filled, total - filled, hashId);
    // Awaited in turn; until then a failure must not count as unhandled.
    written.catch(() => undefined);
    inFlight.push(written);
    block = null;
    filled = 0;
  };
  try {
    for await (const chunk of chunks) {
      for (let at = 0; at < chunk.length; ) {
        block ??= takeBlock();
        const n = chunk.copy(blockBytes(block), filled, at);
        filled += n;
        at += n;
        total += n;
        if (filled === BLOCK_BYTES) await write();
      }
    }
    if (filled > 0) await write();
    while (inFlight.length) await inFlight.shift();
    // The thread takes messages in order: the digest comes after every block written.
    const sha256 = await hashDigest(hashId);
    done = true;
    return { bytes: total, sha256 };
  } finally {
    await Promise.allSettled(inFlight);
    if (!done) hashForget(hashId);
    if (block !== null) giveBlockBack(block);
  }
}
