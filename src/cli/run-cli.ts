import { parseArgs } from 'node:util';
import { AppError } from '../platform/errors.js';
import { systemClock, type Clock } from '../platform/clock.js';
import { headline } from '../platform/http/validation.js';
import { UsageError, type CliDatabase, type CliIO, type Command, type CommandDeps, type ParsedArgs } from './command.js';
import { COMMANDS } from './commands.js';

/**
 * The operator CLI: `assay <command> [arguments]`. Arguments are checked
 * before any database is reached; exit codes are 0 (done), 1 (refused by a
 * domain rule, or the database failed) and 2 (bad arguments).
 */
export const EXIT_OK = 0;
export const EXIT_FAILED = 1;
export const EXIT_USAGE = 2;

export async function runCli(argv: string[], io: CliIO, connect: () => Promise<CliDatabase>, clock: Clock = systemClock): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === 'help' || name === '--help' || name === '-h') {
    const topic = rest[0];
    if (topic !== undefined && !COMMANDS[topic]) {
      io.err(`Unknown command "${topic}".\n\n${usage()}`);
      return EXIT_USAGE;
    }
    io.out(topic ? commandHelp(topic, COMMANDS[topic]!) : usage());
    return EXIT_OK;
  }
  const command = COMMANDS[name];
  if (!command) {
    io.err(`Unknown command "${name}".\n\n${usage()}`);
    return EXIT_USAGE;
  }

  let database: CliDatabase | null = null;
  const deps: CommandDeps = {
    clock,
    io,
    db: async () => (database ??= await connect()),
  };
  try {
    const args = parseCommandArgs(command, rest);
    if (args.values.help === true) {
      io.out(commandHelp(name, command));
      return EXIT_OK;
    }
    const result = await command.run(args, deps);
    if (result !== undefined) io.out(typeof result === 'string' ? result : JSON.stringify(result, null, 2));
    return EXIT_OK;
  } catch (err) {
    if (err instanceof UsageError) {
      io.err(`${err.message}\nUsage: assay ${name} ${command.usage}`.trimEnd());
      return EXIT_USAGE;
    }
    if (err instanceof AppError) {
      // One problem: the message says it. Several: a count, then each once (the message of a service
      // error is its first problem, which the list repeats).
      const details = err.details ?? [];
      const message = details.length > 1 && [headline(details), details[0]!.message].includes(err.message) ? `${details.length} problems:` : err.message;
      io.err([`${err.code}: ${message}`, ...(details.length > 1 ? details.map((d) => `  ${d.field}: ${d.message}`) : [])].join('\n'));
      return EXIT_FAILED;
    }
    io.err(`error: ${(err as Error).message ?? String(err)}`);
    return EXIT_FAILED;
  } finally {
    if (database) await (database as CliDatabase).close();
  }
}

function parseCommandArgs(command: Command, argv: string[]): ParsedArgs {
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      args: argv,
      options: { ...command.options, help: { type: 'boolean', short: 'h' } },
      allowPositionals: true,
      strict: true,
    });
  } catch (err) {
    // node:util reports unknown options and missing option values as TypeErrors with an ERR_PARSE_ARGS_* code.
    throw new UsageError((err as Error).message);
  }
  const values = parsed.values as ParsedArgs['values'];
  const [min, max] = command.positionals;
  if (values.help !== true) {
    if (parsed.positionals.length < min) throw new UsageError(`Missing argument: expected ${command.usage}.`);
    if (parsed.positionals.length > max) {
      throw new UsageError(`Unexpected argument "${parsed.positionals[max]}".`);
    }
  }
  return { positionals: parsed.positionals, values };
}

function commandHelp(name: string, command: Command): string {
  return `assay ${name} ${command.usage}`.trimEnd() + `\n\n${command.description}`;
}

export function usage(): string {
  const width = Math.max(...Object.keys(COMMANDS).map((n) => n.length));
  const lines = Object.entries(COMMANDS).map(([n, c]) => `  ${n.padEnd(width)}  ${c.summary}`);
  return [
    'Usage: assay <command> [arguments]     (or: npm run cli -- <command> [arguments])',
    '',
    'Commands:',
    ...lines,
    `  ${'help'.padEnd(width)}  This text; "assay help <command>" for one command`,
    '',
    'Database: DATABASE_URL when set; otherwise the embedded database of this checkout',
    '(the one a running `npm start` uses, or started for the duration of the command).',
    'Exit codes: 0 done, 1 refused or failed, 2 bad arguments.',
  ].join('\n');
}
