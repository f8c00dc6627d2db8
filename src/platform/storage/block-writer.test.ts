import { randomBytes } from 'node:crypto';
import type { FileHandle } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { BLOCK_BYTES, writeInBlocks } from './block-writer.js';

/** A file handle that keeps what each write was given, as the write completes, after `delayMs`. */
function fakeHandle(delayMs = 0) {
  const writes: Array<{ bytes: Buffer; position: number }> = [];
  let position = 0;
  let inFlight = 0;
  let mostInFlight = 0;
  const handle = {
    async write(buffer: Buffer, offset: number, length: number) {
      inFlight++;
      mostInFlight = Math.max(mostInFlight, inFlight);
      const at = position;
      position += length;
      if (delayMs) await new Promise((r) => setTimeout(r, delayMs));
      // Copied only now: a block reused before its write completed would show the next bytes here.
      writes.push({ bytes: Buffer.from(buffer.subarray(offset, offset + length)), position: at });
      inFlight--;
      return { bytesWritten: length, buffer };
    },
  };
  const file = () => Buffer.concat(writes.sort((a, b) => a.position - b.position).map((w) => w.bytes));
  return { handle: handle as unknown as FileHandle, writes, file, mostInFlight: () => mostInFlight };
}

async function* chunksOf(data: Buffer, size: number, failAt: number | null = null) {
  for (let at = 0; at < data.length; at += size) {
    if (failAt !== null && at >= failAt) throw new Error('client went away');
    yield data.subarray(at, at + size);
    await new Promise((r) => setImmediate(r));
  }
}

describe('writeInBlocks', () => {
  it('writes chunks of about 46 KB in blocks of 256 KiB, one write in flight at a time, the file exact', async () => {
    const data = randomBytes(5 * 1024 * 1024 + 12_345);
    const f = fakeHandle(1);
    expect(await writeInBlocks(f.handle, chunksOf(data, 47_616))).toBe(data.length);
    expect(f.file().equals(data)).toBe(true);
    expect(f.writes.length).toBe(Math.ceil(data.length / BLOCK_BYTES));
    expect(f.mostInFlight()).toBe(1);
  });

  it('takes chunks larger than a block, and an empty stream writes nothing', async () => {
    const data = randomBytes(3 * BLOCK_BYTES + 7);
    const f = fakeHandle();
    expect(await writeInBlocks(f.handle, chunksOf(data, BLOCK_BYTES + 100))).toBe(data.length);
    expect(f.file().equals(data)).toBe(true);
    const empty = fakeHandle();
    expect(await writeInBlocks(empty.handle, chunksOf(Buffer.alloc(0), 10))).toBe(0);
    expect(empty.writes).toEqual([]);
  });

  it('when the chunks fail, waits for the block being written before giving it back, so the next stream cannot overwrite it', async () => {
    const first = randomBytes(2 * BLOCK_BYTES);
    const slow = fakeHandle(30);
    await expect(writeInBlocks(slow.handle, chunksOf(first, 64 * 1024, BLOCK_BYTES + 64 * 1024))).rejects.toThrow('client went away');
    // The write that was in flight completed with its own bytes, before the failure came out.
    expect(slow.writes).toHaveLength(1);
    expect(slow.writes[0]!.bytes.equals(first.subarray(0, BLOCK_BYTES))).toBe(true);
    // The blocks go on to serve another stream.
    const second = randomBytes(BLOCK_BYTES * 2);
    const next = fakeHandle(5);
    await writeInBlocks(next.handle, chunksOf(second, 100_000));
    expect(next.file().equals(second)).toBe(true);
  });
});
