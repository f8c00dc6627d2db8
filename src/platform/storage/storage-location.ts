import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Config } from '../config.js';
import type { Pool } from '../db.js';
import { randomBase62 } from '../ids.js';

/**
 * Local storage cannot split. Local files live in one folder on one host;
 * two hosts sharing one database, each with a folder of its own, would each
 * answer 404 for the files the other stored, silently. So the first serving
 * process on local storage records where the files live (host, absolute
 * folder, and a random storage id written into a marker file in the folder)
 * in `storage_location`, and a serving process whose folder is elsewhere
 * refuses to start.
 *
 * A shared mount (NFS…) seen by every host is declared with
 * ASSAY_STORAGE_SHARED: the host and the mount point may then differ, and the
 * marker file is what proves the folder is the same one (a host where the
 * mount is missing sees an empty folder without it, and refuses).
 *
 * Limits: the host name identifies a machine, so a container must keep its
 * host name across restarts (`--hostname`), or the storage be declared moved
 * (`npx assay storage-moved`). A process on S3 checks nothing here.
 */
export const STORAGE_MARKER_FILE = '.assay-storage-id';

const STORAGE_ID = /^sto_[A-Za-z0-9]{20}$/;

/** Where this process would keep local files. */
export interface LocalStorageHere {
  host: string;
  /** Absolute. */
  folder: string;
  shared: boolean;
}

interface Registered {
  storage_id: string;
  host: string;
  folder: string;
}

/** The process must not start: its local storage is not this database's. The message is the operator's to act on. */
export class StorageLocationError extends Error {}

/** Where a process with this configuration keeps local files (null: S3, nothing to check). */
export function localStorageHere(config: Readonly<Pick<Config, 'storage' | 'dataDir'>>, host = os.hostname()): LocalStorageHere | null {
  if (config.storage.kind !== 'local') return null;
  return { host, folder: path.resolve(config.dataDir, 'storage'), shared: config.storage.shared };
}

async function readMarker(folder: string): Promise<string | null> {
  let text: string;
  try {
    text = (await fs.readFile(path.join(folder, STORAGE_MARKER_FILE), 'utf8')).trim();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
  if (!STORAGE_ID.test(text)) {
    throw new StorageLocationError(`${path.join(folder, STORAGE_MARKER_FILE)} is not an Assay storage marker (it should hold one storage id, sto_…); remove it or restore it.`);
  }
  return text;
}

/** Writes the marker unless one is there already; returns the one that is there in the end. */
async function writeMarker(folder: string, storageId: string): Promise<string> {
  await fs.mkdir(folder, { recursive: true });
  try {
    await fs.writeFile(path.join(folder, STORAGE_MARKER_FILE), `${storageId}\n`, { flag: 'wx', mode: 0o644 });
    return storageId;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    return (await readMarker(folder))!;
  }
}

async function registered(pool: Pool): Promise<Registered | null> {
  const { rows } = await pool.query<Registered>('SELECT storage_id, host, folder FROM storage_location');
  return rows[0] ?? null;
}

const where = (r: { host: string; folder: string }) => `${r.folder} on host ${r.host}`;

const REMEDIES =
  'Several hosts need one store: S3 (set ASSAY_STORAGE_S3_BUCKET, see docs/production.md), or one folder mounted on every host ' +
  '(NFS or the like) with ASSAY_STORAGE_SHARED=1 on every process. The folder is ASSAY_DATA_DIR/storage.';

/**
 * Registers this process's local storage if the database has none yet, or
 * checks it against the registered one; throws StorageLocationError when
 * they differ. Safe when several processes start at once (the table has one
 * row at most; the loser of the insert compares with the winner's).
 */
export async function claimStorageLocation(pool: Pool, here: LocalStorageHere): Promise<{ storageId: string; registered: boolean }> {
  const folder = path.resolve(here.folder);
  let marker = await readMarker(folder);
  let row = await registered(pool);
  if (!row) {
    // First process: the folder's own marker (a folder that an earlier installation used) or a new one.
    const storageId = marker ?? (await writeMarker(folder, `sto_${randomBase62(20)}`));
    const inserted = await pool.query(
      'INSERT INTO storage_location (storage_id, host, folder) VALUES ($1, $2, $3) ON CONFLICT (only_one) DO NOTHING',
      [storageId, here.host, folder],
    );
    if (inserted.rowCount === 1) return { storageId, registered: true };
    row = (await registered(pool))!;
    marker = await readMarker(folder);
  }
  if (here.shared) {
    if (marker === row.storage_id) return { storageId: row.storage_id, registered: false };
    throw new StorageLocationError(
      `local storage is not the shared folder. ASSAY_STORAGE_SHARED says ${folder} is the shared mount, but it ` +
        (marker ? `holds another storage's marker (${marker})` : `lacks the marker file ${STORAGE_MARKER_FILE}`) +
        ` that this database's storage (${row.storage_id}, first used at ${where(row)}) wrote there: on this host the folder is not that mount. ` +
        `Mount the shared folder at ${folder}, or point ASSAY_DATA_DIR at the mount. ${REMEDIES}`,
    );
  }
  if (row.host !== here.host || row.folder !== folder) {
    throw new StorageLocationError(
      `local storage is elsewhere. This database's files are stored in ${where(row)}; this process would store them in ` +
        `${where({ host: here.host, folder })}, and each would answer 404 for the files the other stored. ${REMEDIES} ` +
        `If the files have moved here for good (the folder copied with its ${STORAGE_MARKER_FILE}), run \`npx assay storage-moved\` on this host.`,
    );
  }
  if (marker !== null && marker !== row.storage_id) {
    throw new StorageLocationError(
      `${folder} holds another storage's marker (${marker}, this database's is ${row.storage_id}): it is not this database's storage folder. ${REMEDIES}`,
    );
  }
  // The registered folder, emptied by hand since (or from before markers): it gets its marker back.
  if (marker === null) await writeMarker(folder, row.storage_id);
  return { storageId: row.storage_id, registered: false };
}

/**
 * `assay storage-moved`: the files now live here for good. Allowed only when
 * this folder carries the registered storage's marker (the files came with
 * it), so it cannot be used to paper over a split.
 */
export async function moveStorageLocation(pool: Pool, here: LocalStorageHere): Promise<{ from: string; to: string }> {
  const folder = path.resolve(here.folder);
  const row = await registered(pool);
  if (!row) throw new StorageLocationError('no local storage is registered for this database yet: the first process to start registers its own.');
  const marker = await readMarker(folder);
  if (marker !== row.storage_id) {
    throw new StorageLocationError(
      `${folder} does not carry this database's storage marker (${STORAGE_MARKER_FILE} with ${row.storage_id}): copy the files from ${where(row)}, ` +
        'marker included, before declaring them moved.',
    );
  }
  await pool.query('UPDATE storage_location SET host = $1, folder = $2, registered_at = now()', [here.host, folder]);
  return { from: where(row), to: where({ host: here.host, folder }) };
}
