import { watchAndPromote } from '../platform/failover-watch.js';
import { UsageError, intOption, textOption, type Command } from './command.js';

/** Database operations that do not go through Assay's own database connection. */
export const FAILOVER_COMMANDS: Record<string, Command> = {
  'failover-watch': {
    summary: 'Watch a primary and promote its synchronous standby when it dies',
    usage: '--primary <postgres-url> --standby <postgres-url> [--checks <n>] [--interval-ms <ms>] [--timeout-ms <ms>]',
    description:
      'Checks the primary every --interval-ms (1000) and, after --checks (3) failed checks in a row, promotes the\n' +
      "standby (pg_promote) if its WAL receiver has lost the primary too; then prints what it did and exits. Run one\n" +
      'watcher per primary/standby pair, never two. The old primary must then be rebuilt as a standby of the new one\n' +
      'before a watcher runs again with the roles swapped. Needs a role allowed to run pg_promote() on the standby.\n' +
      'Progress goes to stderr; see docs/production.md "Failover".',
    positionals: [0, 0],
    options: {
      primary: { type: 'string' },
      standby: { type: 'string' },
      checks: { type: 'string' },
      'interval-ms': { type: 'string' },
      'timeout-ms': { type: 'string' },
    },
    async run(args, deps) {
      const primaryUrl = textOption(args, 'primary', 2000, true);
      const standbyUrl = textOption(args, 'standby', 2000, true);
      for (const [name, url] of [['primary', primaryUrl], ['standby', standbyUrl]] as const) {
        // Never echo the value: it may hold a password.
        if (!/^postgres(ql)?:\/\/[^,]+$/.test(url)) throw new UsageError(`--${name} must be one postgres:// URL naming one host.`);
      }
      const controller = new AbortController();
      const stop = () => controller.abort();
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
      try {
        return await watchAndPromote({
          primaryUrl,
          standbyUrl,
          failures: intOption(args, 'checks', 3, 1, 600),
          intervalMs: intOption(args, 'interval-ms', 1000, 100, 60_000),
          checkTimeoutMs: intOption(args, 'timeout-ms', 1000, 100, 60_000),
          log: (line) => deps.io.err(`${new Date().toISOString()} ${line}`),
          signal: controller.signal,
        });
      } finally {
        process.removeListener('SIGINT', stop);
        process.removeListener('SIGTERM', stop);
      }
    },
  },
};
