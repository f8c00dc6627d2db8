import { localStorageHere, moveStorageLocation } from '../platform/storage/storage-location.js';
import { UsageError, type Command } from './command.js';

/** Local file storage's registered location (platform/storage/storage-location.ts, docs/production.md). */
export const STORAGE_COMMANDS: Record<string, Command> = {
  'storage-moved': {
    summary: 'Record that local file storage now lives on this host, in this folder',
    usage: '',
    description:
      'Local storage is registered where the first serving process found it (host and ASSAY_DATA_DIR/storage), and a\n' +
      'process whose folder is elsewhere refuses to start. After copying the files to a new host or folder (with the\n' +
      'folder\'s .assay-storage-id marker), run this there, with the same ASSAY_DATA_DIR as the processes: it records the\n' +
      'new place. Refused when the folder does not carry the registered storage\'s marker.',
    positionals: [0, 0],
    async run(_args, deps) {
      const { pool, config } = await deps.db();
      const here = localStorageHere(config);
      if (!here) throw new UsageError('storage-moved is for local storage; with ASSAY_STORAGE_S3_BUCKET set there is nothing to move.');
      const moved = await moveStorageLocation(pool, here);
      return `Local storage moved: from ${moved.from} to ${moved.to}.`;
    },
  },
};
