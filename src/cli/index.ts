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
  // `assay migrate` (npm run migrate) applies pending migrations even where ASSAY_MIGRATE=check keeps processes from it.
  // The operator token and the signing secret are needed by no command but reseal-secrets and rotate-lti-key, which check themselves.
  const booted = await boot({
    allowStartEmbedded: true,
    requireSecrets: false,
    ...(process.argv[2] === 'migrate' ? { migrate: 'apply' as const } : {}),
  });
  return {
    pool: booted.pool,
    config: booted.config,
    local: booted.local,
    migrationsApplied: booted.migrationsApplied,
    close: () => booted.shutdownDatabase(),
  };
}

const code = await runCli(
  process.argv.slice(2),
  { out: (text) => process.stdout.write(`${text}\n`), err: (text) => process.stderr.write(`${text}\n`) },
  connect,
);
// An explicit exit with the command's code, once the output is flushed.
process.stdout.write('', () => process.exit(code));
