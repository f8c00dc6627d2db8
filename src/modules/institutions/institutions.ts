import { newId } from '../../platform/ids.js';
import { AppError, type ErrorDetail } from '../../platform/errors.js';
import { withTransaction, type Pool, type Queryable } from '../../platform/db.js';
import { KEYS_CHANNEL, invalidateKeyCaches } from './key-cache.js';
import { auditIn, withAuditEntry, type AuditContext } from '../staff/audit.js';
import type { InstitutionStatus } from './institution-status.js';

export interface Institution {
  institutionId: string;
  name: string;
  status: InstitutionStatus;
  callbackDomains: string[];
  createdAt: Date;
}

/**
 * Normalises an allowlist entry: lower-case, IDN to punycode (via the WHATWG
 * URL parser), optional leading `*.` for "any subdomain". Returns null when
 * the entry is not a plain host name.
 */
export function normaliseDomain(entry: string): string | null {
  const wildcard = entry.startsWith('*.');
  const host = wildcard ? entry.slice(2) : entry;
  if (!host || /[/:@?#\s*]/.test(host)) return null;
  let parsed: string;
  try {
    parsed = new URL(`https://${host}/`).hostname;
  } catch {
    return null;
  }
  if (parsed === 'localhost') return wildcard ? null : parsed;
  // At least two labels, none empty (".a.example", "a..example", a trailing dot) or over 63 characters.
  const labels = parsed.split('.');
  if (labels.length < 2 || labels.some((l) => l === '' || l.length > 63) || parsed.length > 253) return null;
  if (/^[\d.]+$/.test(parsed) || parsed.startsWith('[')) return null;
  return wildcard ? `*.${parsed}` : parsed;
}

/** `field` names the list in error details (`domains` on the allowlist route, `callbackDomains` on create). */
export function normaliseDomains(entries: string[], field = 'domains'): string[] {
  const details: ErrorDetail[] = [];
  const out = new Set<string>();
  entries.forEach((entry, i) => {
    const d = normaliseDomain(entry);
    if (!d) details.push({ field: `${field}.${i}`, message: `"${entry}" is not a host name (use "partner.example" or "*.partner.example")` });
    else out.add(d);
  });
  if (details.length > 0) throw new AppError('invalid_request', details[0]!.message, details);
  return [...out].sort();
}

async function domainsOf(db: Queryable, institutionId: string): Promise<string[]> {
  const { rows } = await db.query<{ domain: string }>({
    name: 'callback-domains-of',
    text: 'SELECT domain FROM callback_domains WHERE institution_id = $1 ORDER BY domain',
    values: [institutionId],
  });
  return rows.map((r) => r.domain);
}

export async function createInstitution(pool: Pool, input: { name: string; callbackDomains?: string[] }, audit?: AuditContext): Promise<Institution> {
  const domains = normaliseDomains(input.callbackDomains ?? [], 'callbackDomains');
  return withTransaction(pool, async (tx) => {
    const id = newId('ins');
    const { rows } = await tx.query<{ created_at: Date }>(
      'INSERT INTO institutions (id, name) VALUES ($1, $2) RETURNING created_at',
      [id, input.name],
    );
    for (const d of domains) {
      await tx.query('INSERT INTO callback_domains (institution_id, domain) VALUES ($1, $2)', [id, d]);
    }
    await auditIn(tx, audit, { action: 'institution.created', objectType: 'institution', objectId: id, institutionId: id, details: { name: input.name, callbackDomains: domains } });
    return { institutionId: id, name: input.name, status: 'active', callbackDomains: domains, createdAt: rows[0]!.created_at };
  });
}

export async function getInstitution(db: Queryable, institutionId: string): Promise<Institution | null> {
  const { rows } = await db.query('SELECT id, name, status, created_at FROM institutions WHERE id = $1', [institutionId]);
  const r = rows[0];
  if (!r) return null;
  return { institutionId: r.id, name: r.name, status: r.status, createdAt: r.created_at, callbackDomains: await domainsOf(db, r.id) };
}

export async function listInstitutions(
  db: Queryable,
  page: { limit: number; offset: number },
): Promise<{ data: Institution[]; total: number }> {
  const { rows } = await db.query(
    `SELECT i.id, i.name, i.status, i.created_at, count(*) OVER () AS total,
            COALESCE((SELECT array_agg(domain ORDER BY domain) FROM callback_domains d WHERE d.institution_id = i.id), '{}') AS domains
       FROM institutions i ORDER BY i.created_at, i.id LIMIT $1 OFFSET $2`,
    [page.limit, page.offset],
  );
  const total = rows[0]?.total ?? (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM institutions')).rows[0]!.n;
  return {
    total,
    data: rows.map((r) => ({ institutionId: r.id, name: r.name, status: r.status, createdAt: r.created_at, callbackDomains: r.domains })),
  };
}

/** Suspends or reactivates; like a key revocation it invalidates every process's key cache (see key-cache.ts). */
export async function setInstitutionStatus(db: Queryable, institutionId: string, status: InstitutionStatus, audit?: AuditContext): Promise<boolean> {
  const changed = await withAuditEntry(
    db,
    audit,
    (q) => writeInstitutionStatus(q, institutionId, status),
    (done) => (done ? { action: `institution.${status === 'active' ? 'reactivated' : 'suspended'}`, objectType: 'institution', objectId: institutionId, institutionId } : null),
  );
  // Again after the audited transaction's commit: a lookup between the first drop and the commit may have cached a key.
  invalidateKeyCaches();
  return changed;
}

async function writeInstitutionStatus(db: Queryable, institutionId: string, status: InstitutionStatus): Promise<boolean> {
  const { rowCount } = await db.query(
    `WITH changed AS (UPDATE institutions SET status = $2 WHERE id = $1 RETURNING id)
     SELECT pg_notify('${KEYS_CHANNEL}', id) FROM changed`,
    [institutionId, status],
  );
  invalidateKeyCaches();
  return (rowCount ?? 0) > 0;
}

/** Replaces the allowlist. Returns null when the institution does not exist. */
export async function setCallbackDomains(pool: Pool, institutionId: string, entries: string[], audit?: AuditContext): Promise<string[] | null> {
  const domains = normaliseDomains(entries);
  return withTransaction(pool, async (tx) => {
    const found = await tx.query('SELECT 1 FROM institutions WHERE id = $1 FOR UPDATE', [institutionId]);
    if (found.rowCount === 0) return null;
    const before = await domainsOf(tx, institutionId);
    await tx.query('DELETE FROM callback_domains WHERE institution_id = $1', [institutionId]);
    for (const d of domains) {
      await tx.query('INSERT INTO callback_domains (institution_id, domain) VALUES ($1, $2)', [institutionId, d]);
    }
    await auditIn(tx, audit, { action: 'callback_domains.replaced', objectType: 'institution', objectId: institutionId, institutionId, details: { before, after: domains } });
    return domains;
  });
}

export async function getCallbackDomains(db: Queryable, institutionId: string): Promise<string[]> {
  return domainsOf(db, institutionId);
}

/** Hard cap on one institution's allowlist, as on the operator API's replace-all route. */
export const MAX_CALLBACK_DOMAINS = 100;

/**
 * Adds one allowlist entry (same rules as the operator API: normaliseDomain).
 * Adding an entry already present is a no-op. Returns the entry as stored.
 */
export async function addCallbackDomain(pool: Pool, institutionId: string, entry: string): Promise<string> {
  const domain = normaliseDomain(entry.trim());
  if (!domain) {
    const message = `"${entry.trim()}" is not a host name (use "partner.example" or "*.partner.example")`;
    throw new AppError('invalid_request', message, [{ field: 'domain', message }]);
  }
  return withTransaction(pool, async (tx) => {
    const found = await tx.query('SELECT 1 FROM institutions WHERE id = $1 FOR UPDATE', [institutionId]);
    if (found.rowCount === 0) throw new AppError('not_found', 'No such institution.');
    const { rows } = await tx.query<{ n: number }>('SELECT count(*)::int AS n FROM callback_domains WHERE institution_id = $1', [institutionId]);
    if (rows[0]!.n >= MAX_CALLBACK_DOMAINS) {
      throw new AppError('invalid_request', `An institution can have at most ${MAX_CALLBACK_DOMAINS} callback domains.`, [
        { field: 'domain', message: `at most ${MAX_CALLBACK_DOMAINS} callback domains; remove one first` },
      ]);
    }
    await tx.query('INSERT INTO callback_domains (institution_id, domain) VALUES ($1, $2) ON CONFLICT DO NOTHING', [institutionId, domain]);
    return domain;
  });
}

/** Removes one entry; false when the institution has no such entry. */
export async function removeCallbackDomain(db: Queryable, institutionId: string, domain: string): Promise<boolean> {
  const { rowCount } = await db.query('DELETE FROM callback_domains WHERE institution_id = $1 AND domain = $2', [institutionId, domain]);
  return (rowCount ?? 0) > 0;
}
