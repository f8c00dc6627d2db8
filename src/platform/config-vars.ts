import { parseHostList } from './primary-hosts.js';

/**
 * Reading one environment variable into a typed value, or a ConfigError
 * naming the variable: the building blocks of parseConfig (config.ts).
 */

/** Standard Webhooks / Svix schedule: immediately, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h. */
export const DEFAULT_RETRY_SCHEDULE = '0,5s,5m,30m,2h,5h,10h,10h';

export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    message: string,
  ) {
    super(`Invalid configuration: ${variable} ${message}`);
  }
}

export type Env = Record<string, string | undefined>;

/** "0,5s,5m,2h": durations with ms/s/m/h units (a bare number is milliseconds). */
export function scheduleVar(env: Env, name: string, fallback = DEFAULT_RETRY_SCHEDULE): number[] {
  const raw = env[name] || fallback;
  const units: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, '': 1 };
  const steps = raw.split(',').map((part) => {
    const m = /^\s*(\d+)(ms|s|m|h)?\s*$/.exec(part);
    if (!m) throw new ConfigError(name, `must be comma-separated durations like "0,5s,5m,2h", got "${raw}"`);
    return Number(m[1]) * units[m[2] ?? '']!;
  });
  if (steps.length < 1 || steps.length > 20) throw new ConfigError(name, 'must list between 1 and 20 attempts');
  if (steps[0] !== 0) throw new ConfigError(name, 'must start with 0: the first attempt is immediate');
  if (steps.some((ms) => ms > 7 * 24 * 3_600_000)) throw new ConfigError(name, 'must not wait more than 7 days between attempts');
  return steps;
}

/** A postgres:// or postgresql:// URL, or null when unset. A bad value is never echoed: it may hold a password. */
export function postgresUrlVar(env: Env, name: string, opts: { hostList?: boolean } = {}): string | null {
  const raw = env[name] || null;
  if (raw === null) return null;
  let protocol = '';
  try {
    // Several hosts (`postgres://u@db1:5432,db2:5432/assay`, a primary and its standbys) are not a WHATWG URL:
    // each host's own URL must be one.
    const hosts = opts.hostList ? parseHostList(raw) : null;
    protocol = new URL(hosts ? hosts.urlFor(hosts.hosts[0]!) : raw).protocol;
  } catch {
    // reported below
  }
  if (protocol !== 'postgres:' && protocol !== 'postgresql:') throw new ConfigError(name, 'must be a postgres:// or postgresql:// URL');
  return raw;
}

export function intVar(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw)) throw new ConfigError(name, `must be a whole number, got "${raw}"`);
  const value = Number(raw);
  if (value < min || value > max) throw new ConfigError(name, `must be between ${min} and ${max}, got ${value}`);
  return value;
}

export function boolVar(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (['1', 'true', 'yes', 'on'].includes(raw.toLowerCase())) return true;
  if (['0', 'false', 'no', 'off'].includes(raw.toLowerCase())) return false;
  throw new ConfigError(name, `must be 1/0 or true/false, got "${raw}"`);
}

export function urlVar(env: Env, name: string, fallback: string): string {
  const raw = env[name] || fallback;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(name, `must be an absolute URL, got "${raw}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ConfigError(name, 'must be an http: or https: URL');
  if (url.search || url.hash || url.username || url.password) {
    throw new ConfigError(name, 'must not carry a query, fragment or credentials');
  }
  return url.toString().replace(/\/+$/, '');
}

/** Whether `value` is one of a closed list's values (the list's own type, for narrowing). */
export function isOneOf<T extends string>(values: readonly T[], value: string): value is T {
  return (values as readonly string[]).includes(value);
}
