import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BYTE_THREAD_NICE, blockBytes, closeFile, giveBlockBack, hashBlock, hashDigest, newHashId, openNewFile, removeFile, takeBlock, writeBlock } from './byte-thread.js';

/** Each thread's nice value (field 19 of /proc/self/task/<tid>/stat, after the command name). */
function niceOfThreads(): Map<number, number> {
  const out = new Map<number, number>();
  for (const tid of fs.readdirSync('/proc/self/task')) {
    const fields = fs.readFileSync(`/proc/self/task/${tid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    out.set(Number(tid), Number(fields[16]));
  }
  return out;
}

describe('the byte thread', () => {
  it.skipIf(process.platform !== 'linux')('runs below the event loop: one thread of the process is niced by BYTE_THREAD_NICE, the loop is not', async () => {
    const before = niceOfThreads();
    const n = takeBlock();
    blockBytes(n).fill(7);
    const id = newHashId();
    await hashBlock(id, n, 10);
    await hashDigest(id);
    const after = niceOfThreads();
    const main = after.get(process.pid)!;
    // One byte thread per module instance (a test runner may hold another's): each lowered by BYTE_THREAD_NICE, no other thread.
    const lowered = [...after.values()].filter((nice) => nice !== main);
    expect(lowered.length).toBeGreaterThanOrEqual(1);
    expect(new Set(lowered)).toEqual(new Set([Math.min(19, main + BYTE_THREAD_NICE)]));
    expect(main).toBe(before.get(process.pid));
  });

  it('a block comes back to the spares after the thread is done with it, with the bytes the caller wrote', async () => {
    const n = takeBlock();
    blockBytes(n).fill(1, 0, 3);
    const id = newHashId();
    await hashBlock(id, n, 3);
    expect(await hashDigest(id)).toBe('75c8fd04ad916aec3e3d5cb76a452b116b3d4d0912a0a485e9fb8e3d240e210c');
    // Back as a spare: the next block taken is the same one.
    expect(takeBlock()).toBe(n);
    giveBlockBack(n);
  });

  it('opens a new file in a new folder, refuses one that exists, closes and renames it, and deletes it (a missing file too)', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'assay-byte-thread-'));
    try {
      const tmp = path.join(dir, 'a', 'b', '.tmp-1');
      const fd = await openNewFile(tmp);
      await expect(openNewFile(tmp)).rejects.toMatchObject({ code: 'EEXIST' });
      const n = takeBlock();
      blockBytes(n).write('hello', 0);
      await writeBlock(fd, n, 5, 0);
      const final = path.join(dir, 'a', 'b', 'object');
      await closeFile(fd, { from: tmp, to: final });
      expect(fs.readFileSync(final, 'utf8')).toBe('hello');
      expect(fs.existsSync(tmp)).toBe(false);
      await removeFile(final);
      expect(fs.existsSync(final)).toBe(false);
      await expect(removeFile(final)).resolves.toBeUndefined();
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
