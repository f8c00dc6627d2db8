import type { AppContext } from '../../../platform/context.js';
import { randomBase62 } from '../../../platform/ids.js';
import type { ObjectStore } from '../../../platform/storage/object-store.js';
import { storageFor } from '../../../platform/storage/storage.js';
import type { StaffPrincipal } from '../../staff/principal.js';

/**
 * A checked upload kept for **Import this file** (docs/import-export.md
 * "The portal"): after **Check only** the page is a new page, whose file
 * input is empty, so the file that was checked is kept in the object store
 * for STASH_MINUTES under a random token, and the button posts the token
 * instead of the file.
 *
 * The key holds the owner (institution, or the operators' catalogue) and
 * the staff member: a token is found only by the person who checked the
 * file, in the institution they checked it for; anyone else's lookup finds
 * nothing, as does an expired one (its age is the object's write time).
 * Each new stash sweeps that person's expired ones and keeps at most
 * STASH_PER_PERSON, so nothing piles up.
 */
export const STASH_MINUTES = 30;
const STASH_PER_PERSON = 5;
const TOKEN = /^[A-Za-z0-9]{32}$/;

const folderOf = (p: StaffPrincipal) => `import-stash/${p.institutionId ?? 'catalogue'}/${p.staffId}/`;

export interface StashedFile {
  name: string;
  bytes: Buffer;
}

async function readAll(store: ObjectStore, key: string): Promise<Buffer | null> {
  const object = await store.get(key);
  if (!object) return null;
  const chunks: Buffer[] = [];
  for await (const chunk of object.body) chunks.push(Buffer.from(chunk as Uint8Array));
  return Buffer.concat(chunks);
}

/** Keeps the checked file; returns its token. */
export async function stashUpload(ctx: AppContext, principal: StaffPrincipal, file: StashedFile): Promise<string> {
  const store = storageFor(ctx.config);
  const folder = folderOf(principal);
  await sweep(store, folder);
  const token = randomBase62(32);
  // The name first: a file object without its name is never read (lookups start from the name).
  await store.put(`${folder}${token}.file`, file.bytes, 'application/octet-stream');
  await store.put(`${folder}${token}.name`, Buffer.from(file.name, 'utf8'), 'text/plain; charset=utf-8');
  return token;
}

/** The file kept under `token` for this person, or null (unknown, another person's or institution's, or expired). */
export async function takeStash(ctx: AppContext, principal: StaffPrincipal, token: string): Promise<StashedFile | null> {
  if (!TOKEN.test(token)) return null;
  const store = storageFor(ctx.config);
  const key = `${folderOf(principal)}${token}`;
  const head = await store.head(`${key}.name`);
  // The store's own write time, so the age is measured on the clock that wrote it.
  if (!head || Date.now() - head.lastModified.getTime() > STASH_MINUTES * 60_000) return null;
  const [name, bytes] = await Promise.all([readAll(store, `${key}.name`), readAll(store, `${key}.file`)]);
  if (!name || !bytes) return null;
  return { name: name.toString('utf8'), bytes };
}

/** Forgets a stash once its file is imported. */
export async function dropStash(ctx: AppContext, principal: StaffPrincipal, token: string): Promise<void> {
  if (!TOKEN.test(token)) return;
  const store = storageFor(ctx.config);
  const key = `${folderOf(principal)}${token}`;
  await Promise.all([store.delete(`${key}.name`), store.delete(`${key}.file`)]);
}

/** Deletes the person's expired stashes, and the oldest past STASH_PER_PERSON - 1 (a new one is about to be added). */
async function sweep(store: ObjectStore, folder: string): Promise<void> {
  const names = (await store.list(folder)).filter((o) => o.key.endsWith('.name'));
  const aged = await Promise.all(names.map(async (o) => ({ key: o.key.slice(0, -'.name'.length), at: (await store.head(o.key))?.lastModified.getTime() ?? 0 })));
  aged.sort((a, b) => b.at - a.at);
  const gone = aged.filter((s, i) => i >= STASH_PER_PERSON - 1 || Date.now() - s.at > STASH_MINUTES * 60_000);
  await Promise.all(gone.flatMap((s) => [store.delete(`${s.key}.name`), store.delete(`${s.key}.file`)]));
}
