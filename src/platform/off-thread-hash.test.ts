import { createHash, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { HASH_BLOCK_BYTES, sha256OffThread } from './off-thread-hash.js';

/** SHA-256 on the worker thread gives the digest of the main thread's, for interleaved hashes and chunks of any size. */
describe('sha256OffThread', () => {
  it('digests like createHash, several hashes at once, past the window', async () => {
    const a = randomBytes(9 * 1024 * 1024 + 17);
    const b = randomBytes(300_001);
    const ha = sha256OffThread();
    const hb = sha256OffThread();
    for (let i = 0, j = 0; i < a.length || j < b.length; i += 65_536, j += 7_001) {
      if (i < a.length) await ha.update(a.subarray(i, i + 65_536));
      if (j < b.length) await hb.update(b.subarray(j, j + 7_001));
    }
    expect(await ha.digest()).toBe(createHash('sha256').update(a).digest('hex'));
    expect(await hb.digest()).toBe(createHash('sha256').update(b).digest('hex'));
  });

  it('asks the caller to wait only once its window (four blocks of 256 KiB at the worker) is full', async () => {
    const data = randomBytes(8 * HASH_BLOCK_BYTES);
    const h = sha256OffThread();
    const waited: boolean[] = [];
    for (let at = 0; at < data.length; at += 47_616) {
      const wait = h.update(data.subarray(at, at + 47_616));
      waited.push(wait !== undefined);
      if (wait) await wait;
    }
    // No wait (and no message to the worker) until the chunk that fills the fourth block.
    expect(waited.indexOf(true)).toBe(Math.floor((4 * HASH_BLOCK_BYTES - 1) / 47_616));
    expect(await h.digest()).toBe(createHash('sha256').update(data).digest('hex'));
  });

  it('digests nothing as the empty string does, and a discarded hash leaves the others alone', async () => {
    const gone = sha256OffThread();
    await gone.update(Buffer.from('never mind'));
    gone.discard();
    expect(await sha256OffThread().digest()).toBe(createHash('sha256').digest('hex'));
    // The chunk sent stays usable: the worker got a copy.
    const chunk = Buffer.from('still here');
    const h = sha256OffThread();
    await h.update(chunk);
    expect(chunk.toString()).toBe('still here');
    expect(await h.digest()).toBe(createHash('sha256').update('still here').digest('hex'));
  });
});
