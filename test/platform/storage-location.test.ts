import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createPool, type Pool } from '../../src/platform/db.js';
import {
  claimStorageLocation,
  moveStorageLocation,
  STORAGE_MARKER_FILE,
  StorageLocationError,
} from '../../src/platform/storage/storage-location.js';
import { createTestDatabase } from '../helpers/database.js';
import { ADMIN_TOKEN } from '../helpers/harness.js';
import { HARNESS_SECRET } from '../helpers/worker-process.js';

/**
 * Local storage cannot split: two "hosts" (host names injected, folders of
 * their own) on one database. The first registers; a second elsewhere
 * refuses, naming the settings; a declared shared mount is believed only when
 * its folder carries the registered marker.
 */
let db: Awaited<ReturnType<typeof createTestDatabase>>;
let pool: Pool;
let tmp: string;

beforeAll(async () => {
  db = await createTestDatabase();
  pool = createPool(db.url, 4);
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'assay-storage-location-'));
});
afterAll(async () => {
  await pool.end();
  await db.drop();
  fs.rmSync(tmp, { recursive: true, force: true });
});
beforeEach(async () => {
  await pool.query('DELETE FROM storage_location');
});

let n = 0;
const folder = () => path.join(tmp, `storage-${++n}`);

async function refusal(p: Promise<unknown>): Promise<string> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(StorageLocationError);
  return (err as Error).message;
}

describe('local storage on one database', () => {
  it('the first process registers its host and folder and leaves a marker; it starts again there', async () => {
    const a = folder();
    const first = await claimStorageLocation(pool, { host: 'host-a', folder: a, shared: false });
    expect(first.registered).toBe(true);
    expect(fs.readFileSync(path.join(a, STORAGE_MARKER_FILE), 'utf8').trim()).toBe(first.storageId);
    const { rows } = await pool.query('SELECT storage_id, host, folder FROM storage_location');
    expect(rows).toEqual([{ storage_id: first.storageId, host: 'host-a', folder: a }]);
    expect(await claimStorageLocation(pool, { host: 'host-a', folder: a, shared: false })).toEqual({ storageId: first.storageId, registered: false });
  });

  it('a second host with a folder of its own refuses, naming both places and the storage settings', async () => {
    const a = folder();
    const b = folder();
    await claimStorageLocation(pool, { host: 'host-a', folder: a, shared: false });
    const message = await refusal(claimStorageLocation(pool, { host: 'host-b', folder: b, shared: false }));
    expect(message).toContain('local storage is elsewhere');
    expect(message).toContain(`${a} on host host-a`);
    expect(message).toContain(`${b} on host host-b`);
    for (const setting of ['ASSAY_STORAGE_S3_BUCKET', 'ASSAY_STORAGE_SHARED', 'ASSAY_DATA_DIR']) expect(message).toContain(setting);
    // Refusing writes nothing: the other folder gets no marker, the registration is unchanged.
    expect(fs.existsSync(path.join(b, STORAGE_MARKER_FILE))).toBe(false);
    expect((await pool.query('SELECT host FROM storage_location')).rows).toEqual([{ host: 'host-a' }]);
  });

  it('another folder on the same host refuses too', async () => {
    await claimStorageLocation(pool, { host: 'host-a', folder: folder(), shared: false });
    expect(await refusal(claimStorageLocation(pool, { host: 'host-a', folder: folder(), shared: false }))).toContain('local storage is elsewhere');
  });

  it('a declared shared mount starts on another host and mount point when its folder carries the marker', async () => {
    const a = folder();
    const first = await claimStorageLocation(pool, { host: 'host-a', folder: a, shared: true });
    // The same folder seen through another mount point on host B: a symbolic link stands for the mount.
    const mountOnB = path.join(tmp, `mount-b-${n}`);
    fs.symlinkSync(a, mountOnB);
    expect(await claimStorageLocation(pool, { host: 'host-b', folder: mountOnB, shared: true })).toEqual({
      storageId: first.storageId,
      registered: false,
    });
  });

  it('declared shared but a different folder (the mount missing) refuses, and writes no marker there', async () => {
    await claimStorageLocation(pool, { host: 'host-a', folder: folder(), shared: true });
    const notMounted = folder();
    const message = await refusal(claimStorageLocation(pool, { host: 'host-b', folder: notMounted, shared: true }));
    expect(message).toContain('not the shared folder');
    expect(message).toContain(`lacks the marker file ${STORAGE_MARKER_FILE}`);
    expect(message).toContain('ASSAY_STORAGE_S3_BUCKET');
    expect(fs.existsSync(path.join(notMounted, STORAGE_MARKER_FILE))).toBe(false);
  });

  it('declared shared with another storage marker refuses', async () => {
    await claimStorageLocation(pool, { host: 'host-a', folder: folder(), shared: true });
    const other = folder();
    fs.mkdirSync(other);
    fs.writeFileSync(path.join(other, STORAGE_MARKER_FILE), 'sto_0123456789abcdefghij\n');
    expect(await refusal(claimStorageLocation(pool, { host: 'host-b', folder: other, shared: true }))).toContain(
      "holds another storage's marker (sto_0123456789abcdefghij)",
    );
  });

  it('processes starting at once register one location: the others compare with it', async () => {
    const a = folder();
    const results = await Promise.allSettled([
      claimStorageLocation(pool, { host: 'host-a', folder: a, shared: false }),
      claimStorageLocation(pool, { host: 'host-a', folder: a, shared: false }),
      claimStorageLocation(pool, { host: 'host-b', folder: folder(), shared: false }),
    ]);
    expect((await pool.query('SELECT count(*)::int AS n FROM storage_location')).rows[0].n).toBe(1);
    const winner = (await pool.query<{ host: string }>('SELECT host FROM storage_location')).rows[0]!.host;
    const started = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
    expect(started.filter((s) => s.registered)).toHaveLength(1);
    // Host A's two processes share one folder: both start or both refuse; host B starts only alone.
    expect(started).toHaveLength(winner === 'host-a' ? 2 : 1);
  });

  it('storage-moved records a new place only for a folder that carries the marker', async () => {
    const a = folder();
    await claimStorageLocation(pool, { host: 'host-a', folder: a, shared: false });
    const copy = folder();
    expect(await refusal(moveStorageLocation(pool, { host: 'host-b', folder: copy, shared: false }))).toContain('does not carry');
    fs.cpSync(a, copy, { recursive: true });
    expect(await moveStorageLocation(pool, { host: 'host-b', folder: copy, shared: false })).toEqual({
      from: `${a} on host host-a`,
      to: `${copy} on host host-b`,
    });
    await claimStorageLocation(pool, { host: 'host-b', folder: copy, shared: false });
    expect(await refusal(claimStorageLocation(pool, { host: 'host-a', folder: a, shared: false }))).toContain('elsewhere');
  });
});

/** The entry point itself: `npm run worker` with another ASSAY_DATA_DIR on the same database exits 1 with the message. */
describe('a worker process', () => {
  function runWorker(dataDir: string): Promise<{ code: number | null; output: string }> {
    const child = spawn('npx', ['tsx', 'src/worker-main.ts'], {
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        DATABASE_URL: db.url,
        ASSAY_ADMIN_TOKEN: ADMIN_TOKEN,
        ASSAY_SECRET: HARNESS_SECRET,
        ASSAY_DATA_DIR: dataDir,
        LOG_LEVEL: 'info',
      },
    });
    let output = '';
    const collect = (c: Buffer) => {
      output += c.toString();
      // Started: this test needs no more of it.
      if (output.includes('worker started')) process.kill(-child.pid!, 'SIGTERM');
    };
    child.stdout!.on('data', collect);
    child.stderr!.on('data', collect);
    return new Promise((resolve) => child.once('exit', (code) => resolve({ code, output })));
  }

  it('registers on first start; another data folder on the same database refuses to start', async () => {
    const a = path.join(tmp, 'worker-a');
    const b = path.join(tmp, 'worker-b');
    const first = await runWorker(a);
    expect(first.output).toContain('worker started');
    expect(fs.existsSync(path.join(a, 'storage', STORAGE_MARKER_FILE))).toBe(true);
    const second = await runWorker(b);
    expect(second.code).toBe(1);
    expect(second.output).toContain('Cannot start: local storage is elsewhere');
    expect(second.output).toContain('ASSAY_STORAGE_S3_BUCKET');
    expect(second.output).not.toContain('worker started');
  }, 90_000);
});
