import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { randomBase62 } from '../ids.js';
import { closeFile, openNewFile, removeFile } from '../byte-thread.js';
import { writeInBlocks } from './block-writer.js';
import { checkKey, checkPrefix, limitedChunks, type ObjectStore } from './object-store.js';

/**
 * The local-filesystem store (the default, and what `npm start` uses): one
 * file per object under `root`, the key as its relative path. A put writes a
 * temporary file beside the target and renames it into place, so a reader
 * never sees half an object and a crash leaves at most a stray `.tmp-` file
 * (removed with its folder by deletePrefix). Single machine only: in a
 * deployment with several API processes on different hosts, use S3.
 */
export function createLocalStore(root: string): ObjectStore {
  const fileOf = (key: string) => path.join(root, ...checkKey(key).split('/'));

  async function walk(dir: string, prefix: string, out: Array<{ key: string; size: number }>): Promise<void> {
    let entries: fs.Dirent[];
    try {
      entries = await fsp.readdir(dir, { withFileTypes: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw err;
    }
    for (const e of entries) {
      const full = path.join(dir, e.name);
      if (e.isDirectory()) await walk(full, `${prefix}${e.name}/`, out);
      else if (e.isFile() && !e.name.startsWith('.tmp-')) out.push({ key: `${prefix}${e.name}`, size: (await fsp.stat(full)).size });
    }
  }

  return {
    kind: 'local',
    async put(key, body) {
      const file = fileOf(key);
      await fsp.mkdir(path.dirname(file), { recursive: true });
      const tmp = path.join(path.dirname(file), `.tmp-${randomBase62(12)}`);
      try {
        await fsp.writeFile(tmp, body);
        await fsp.rename(tmp, file);
      } catch (err) {
        await fsp.rm(tmp, { force: true });
        throw err;
      }
    },
    // A streamed object's file (an upload's) is opened, written, closed and renamed by the byte thread
    // (platform/byte-thread.ts), below the event loop's priority; objects are deleted there too.
    async putStream(key, body, _contentType, maxBytes) {
      const file = fileOf(key);
      const tmp = path.join(path.dirname(file), `.tmp-${randomBase62(12)}`);
      let fd: number | null = null;
      try {
        fd = await openNewFile(tmp);
        // In blocks of 256 KiB (block-writer.ts). The request is not destroyed when the limit stops the
        // read: its error answer still has to reach the client.
        const stored = await writeInBlocks(fd, limitedChunks(body, maxBytes));
        const open = fd;
        fd = null;
        await closeFile(open, { from: tmp, to: file });
        return stored;
      } catch (err) {
        if (fd !== null) await closeFile(fd).catch(() => undefined);
        await removeFile(tmp).catch(() => undefined);
        throw err;
      }
    },
    async get(key) {
      const file = fileOf(key);
      try {
        // Open first, then stat the open file: the size is that of the object being streamed.
        const handle = await fsp.open(file, 'r');
        const { size } = await handle.stat();
        return { body: handle.createReadStream(), size };
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
        throw err;
      }
    },
    async delete(key) {
      await removeFile(fileOf(key));
    },
    async deletePrefix(prefix) {
      const dir = path.join(root, ...checkPrefix(prefix).slice(0, -1).split('/'));
      const found: Array<{ key: string; size: number }> = [];
      await walk(dir, prefix, found);
      await fsp.rm(dir, { recursive: true, force: true });
      return found.length;
    },
    async head(key) {
      try {
        const st = await fsp.stat(fileOf(key));
        return st.isFile() ? { size: st.size, contentType: null, lastModified: st.mtime } : null;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
        throw err;
      }
    },
    async readStart(key, bytes) {
      return this.readRange(key, 0, bytes);
    },
    async readRange(key, start, bytes) {
      let handle: fsp.FileHandle;
      try {
        handle = await fsp.open(fileOf(key), 'r');
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
        throw err;
      }
      try {
        const buf = Buffer.alloc(bytes);
        const { bytesRead } = await handle.read(buf, 0, bytes, start);
        return buf.subarray(0, bytesRead);
      } finally {
        await handle.close();
      }
    },
    async list(prefix) {
      const found: Array<{ key: string; size: number }> = [];
      await walk(path.join(root, ...checkPrefix(prefix).slice(0, -1).split('/')), prefix, found);
      return found.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    },
  };
}
