import type { Clock } from '../platform/clock.js';
import type { Config } from '../platform/config.js';
import type { Pool } from '../platform/db.js';
import type { LocalSecrets } from '../platform/local-secrets.js';

/** Wrong command line: printed with the command's usage, exit code 2. */
export class UsageError extends Error {}

export interface CliIO {
  out(text: string): void;
  err(text: string): void;
}

export interface CliDatabase {
  pool: Pool;
  config: Readonly<Config>;
  /** The embedded setup's local secrets (null with DATABASE_URL). */
  local: LocalSecrets | null;
  /** Migrations applied when this connection was made (reported by `assay migrate`). */
  migrationsApplied?: string[];
  close(): Promise<void>;
}

export interface CommandDeps {
  /** Connects on first use, so a command that fails on its arguments never reaches a database. */
  db(): Promise<CliDatabase>;
  clock: Clock;
  io: CliIO;
}

export interface ParsedArgs {
  positionals: string[];
  values: Record<string, string | boolean | string[] | undefined>;
}

export interface Command {
  /** One line for the command list. */
  summary: string;
  /** The argument synopsis, e.g. `<institutionId> <domain>...`. */
  usage: string;
  /** What `assay help <command>` prints below the synopsis. */
  description: string;
  /** Minimum and maximum number of positional arguments. */
  positionals: [number, number];
  options?: Record<string, { type: 'string' | 'boolean'; multiple?: boolean }>;
  /** Returns what to print: a string as is, anything else as JSON. */
  run(args: ParsedArgs, deps: CommandDeps): Promise<unknown>;
}

export function stringOption(args: ParsedArgs, name: string): string | undefined {
  const v = args.values[name];
  return typeof v === 'string' ? v : undefined;
}

export function listOption(args: ParsedArgs, name: string): string[] {
  const v = args.values[name];
  return Array.isArray(v) ? v : typeof v === 'string' ? [v] : [];
}

export function intOption(args: ParsedArgs, name: string, fallback: number, min: number, max: number): number {
  const raw = stringOption(args, name);
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    throw new UsageError(`--${name} must be a whole number from ${min} to ${max}, got "${raw}".`);
  }
  return Number(raw);
}

export function textOption(args: ParsedArgs, name: string, maxLength: number, required: true): string;
export function textOption(args: ParsedArgs, name: string, maxLength: number, required?: false): string | undefined;
export function textOption(args: ParsedArgs, name: string, maxLength: number, required = false): string | undefined {
  const v = stringOption(args, name);
  if (v === undefined) {
    if (required) throw new UsageError(`--${name} is required.`);
    return undefined;
  }
  if (v.length === 0 || v.length > maxLength) throw new UsageError(`--${name} must be 1 to ${maxLength} characters.`);
  return v;
}
