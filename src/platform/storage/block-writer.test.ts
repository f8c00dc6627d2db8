import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BLOCK_BYTES, writeInBlocks } from './block-writer.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'assay-blocks-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
let n = 0;

/** Writes `chunks` to a new file through writeInBlocks, closing it after as the local store does; returns the file's path, size and hash. */
async function writeFile(chunks: AsyncIterable<Buffer>, flags = 'wx') {
  const file = path.join(dir, `f${n++}`);
  if (flags === 'r') fs.writeFileSync(file, '');
  const handle = await fsp.open(file, flags);
  try {
    return { file, ...(await writeInBlocks(handle.fd, chunks)) };
  } finally {
    await handle.close();
  }
}

async function* chunksOf(data: Buffer, size: number, failAt: number | null = null) {
  for (let at = 0; at < data.length; at += size) {
    if (failAt !== null && at >= failAt) throw new Error('client went away');
    yield data.subarray(at, at + size);
    await new Promise((r) => setImmediate(r));
  }
}

describe('writeInBlocks', () => {
  it('writes chunks of about 46 KB through the byte thread, the file exact, also past a block per chunk, with its SHA-256', async () => {
    const data = randomBytes(5 * 1024 * 1024 + 12_345);
    const small = await writeFile(chunksOf(data, 47_616));
    expect(small.bytes).toBe(data.length);
    expect(small.sha256).toBe(createHash('sha256').update(data).digest('hex'));
    expect(fs.readFileSync(small.file).equals(data)).toBe(true);
    const large = await writeFile(chunksOf(data, BLOCK_BYTES + 100));
    expect(fs.readFileSync(large.file).equals(data)).toBe(true);
  });

  it('several files at once, each in its own order, and an empty stream writes nothing', async () => {
    const datas = [randomBytes(3 * BLOCK_BYTES + 7), randomBytes(BLOCK_BYTES - 1), randomBytes(2 * 1024 * 1024)];
    const written = await Promise.all(datas.map((d, i) => writeFile(chunksOf(d, 10_000 + i * 33_333))));
    written.forEach((w, i) => expect(fs.readFileSync(w.file).equals(datas[i]!)).toBe(true));
    written.forEach((w, i) => expect(w.sha256).toBe(createHash('sha256').update(datas[i]!).digest('hex')));
    const empty = await writeFile(chunksOf(Buffer.alloc(0), 10));
    expect(empty).toMatchObject({ bytes: 0, sha256: createHash('sha256').digest('hex') });
    expect(fs.statSync(empty.file).size).toBe(0);
  });

  it('when the chunks fail, returns only after the blocks at the thread are written, and the blocks serve the next file', async () => {
    const first = randomBytes(3 * BLOCK_BYTES);
    const file = path.join(dir, 'failing');
    const handle = await fsp.open(file, 'wx');
    await expect(writeInBlocks(handle.fd, chunksOf(first, 64 * 1024, 2 * BLOCK_BYTES + 64 * 1024))).rejects.toThrow('client went away');
    // Nothing of the handle is in flight any more: closing now loses no write that had been sent.
    await handle.close();
    expect(fs.readFileSync(file).equals(first.subarray(0, 2 * BLOCK_BYTES))).toBe(true);
    const second = randomBytes(BLOCK_BYTES * 2);
    const next = await writeFile(chunksOf(second, 100_000));
    expect(fs.readFileSync(next.file).equals(second)).toBe(true);
  });

  it("a write the file refuses fails the stream with the system's error", async () => {
    await expect(writeFile(chunksOf(randomBytes(BLOCK_BYTES + 5), 50_000), 'r')).rejects.toMatchObject({ code: 'EBADF' });
  });
});
