import { boot } from '../platform/boot.js';
import type { CliDatabase } from './command.js';
import { runCli } from './run-cli.js';

/**
 * Entry point of `npx assay …` / `npm run cli -- …`. Reaches PostgreSQL the
 * way every process does (boot): DATABASE_URL, else the embedded database a
 * running `npm start` of this checkout uses, else it starts that embedded
 * database for the length of the command.
 */
async function connect(): Promise<CliDatabase> {
  const booted = await boot({ allowStartEmbedded: true });
  return { pool: booted.pool, config: booted.config, local: booted.local, close: () => booted.shutdownDatabase() };
}

const code = await runCli(
  process.argv.slice(2),
  { out: (text) => process.stdout.write(`${text}\n`), err: (text) => process.stderr.write(`${text}\n`) },
  connect,
);
// An explicit exit with the command's code, once the output is flushed.
process.stdout.write('', () => process.exit(code));
