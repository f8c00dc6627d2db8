import type { FileHandle } from 'node:fs/promises';

/**
 * Writes a stream of chunks to a file in blocks of 256 KiB, copied into two
 * buffers that take turns (one fills while the other is written) and are
 * kept for the next stream. An upload arrives in chunks of about 46 KB: a
 * write per chunk (2,800 a second for the upload allowance) cost the event
 * loop more than the bytes, and gathering chunks into fresh buffers made
 * them live long enough (a block fills at one upload's share of the
 * allowance) to be promoted, which turned into full garbage collections.
 * Copying into reused buffers makes no garbage and writes one block at a time.
 */
export const BLOCK_BYTES = 256 * 1024;
/** Blocks kept between streams (4 MiB), beyond the two each stream in progress holds. */
const SPARE_MAX = 16;
const spare: Buffer[] = [];

function takeBlock(): Buffer {
  return spare.pop() ?? Buffer.allocUnsafeSlow(BLOCK_BYTES);
}
function giveBack(block: Buffer): void {
  if (spare.length < SPARE_MAX) spare.push(block);
}

async function writeAll(handle: FileHandle, block: Buffer, length: number): Promise<void> {
  for (let at = 0; at < length; ) at += (await handle.write(block, at, length - at)).bytesWritten;
}

/**
 * Copies every chunk into blocks and writes them to `handle` in order; resolves with the bytes written.
 * A block goes back for reuse only once its write has settled, also when the chunks fail.
 */
export async function writeInBlocks(handle: FileHandle, chunks: AsyncIterable<Buffer>): Promise<number> {
  let total = 0;
  let block = takeBlock();
  let filled = 0;
  let inFlight: { block: Buffer; written: Promise<void> } | null = null;
  const settle = async () => {
    if (!inFlight) return;
    const { block: done, written } = inFlight;
    inFlight = null;
    try {
      await written;
    } finally {
      giveBack(done);
    }
  };
  try {
    for await (const chunk of chunks) {
      total += chunk.length;
      for (let at = 0; at < chunk.length; ) {
        const n = chunk.copy(block, filled, at);
        filled += n;
        at += n;
        if (filled === BLOCK_BYTES) {
          // The other block's write first: it is the one to fill next.
          await settle();
          const written = writeAll(handle, block, filled);
          // Awaited by settle(); until then a failure must not count as unhandled.
          written.catch(() => undefined);
          inFlight = { block, written };
          block = takeBlock();
          filled = 0;
        }
      }
    }
    await settle();
    if (filled > 0) await writeAll(handle, block, filled);
    return total;
  } finally {
    await settle().catch(() => undefined);
    giveBack(block);
  }
}
