import type { Queryable } from '../../platform/db.js';
import { tenantInstitution, type Tenant } from '../../platform/principal.js';
import type { SubscribableEventType } from '../lifecycle/event-types.js';
import type { DisabledReason, EndpointStatus } from './webhook-statuses.js';

/**
 * SQL for webhook endpoints. Partner-facing functions take `institutionId`
 * and filter on it: another tenant's endpoint is simply not found. The
 * operator functions (suffix `Any`) reach every institution. Functions that
 * take only an endpoint id (secrets, disable, enable) are called with an id
 * already resolved through a scoped read, or by the dispatcher and operator.
 */
export interface EndpointRow {
  id: string;
  institutionId: string;
  url: string;
  description: string | null;
  eventTypes: SubscribableEventType[] | null;
  status: EndpointStatus;
  disabledReason: DisabledReason | null;
  disabledAt: Date | null;
  failingSince: Date | null;
  secretEnc: string;
  previousSecretEnc: string | null;
  previousSecretExpiresAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
  /** False for a test-mode endpoint: it receives test-mode events only. */
  livemode: boolean;
}

const COLUMNS = `id, institution_id, url, description, event_types, status, disabled_reason, disabled_at, failing_since,
  secret_enc, previous_secret_enc, previous_secret_expires_at, created_at, updated_at, livemode`;

/** A row of COLUMNS as pg returns it. */
type EndpointRecord = {
  id: string;
  institution_id: string;
  url: string;
  description: string | null;
  event_types: SubscribableEventType[] | null;
  status: EndpointStatus;
  disabled_reason: DisabledReason | null;
  disabled_at: Date | null;
  failing_since: Date | null;
  secret_enc: string;
  previous_secret_enc: string | null;
  previous_secret_expires_at: Date | null;
  created_at: Date;
  updated_at: Date;
  livemode: boolean;
};

function toRow(r: EndpointRecord): EndpointRow {
  return {
    id: r.id,
    institutionId: r.institution_id,
    url: r.url,
    description: r.description,
    eventTypes: r.event_types,
    status: r.status,
    disabledReason: r.disabled_reason,
    disabledAt: r.disabled_at,
    failingSince: r.failing_since,
    secretEnc: r.secret_enc,
    previousSecretEnc: r.previous_secret_enc,
    previousSecretExpiresAt: r.previous_secret_expires_at,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    livemode: r.livemode,
  };
}

export async function insertEndpoint(
  db: Queryable,
  e: {
    id: string;
    institutionId: string;
    url: string;
    description: string | null;
    eventTypes: SubscribableEventType[] | null;
    secretEnc: string;
    livemode: boolean;
    now: Date;
  },
): Promise<EndpointRow> {
  const { rows } = await db.query<EndpointRecord>(
    `INSERT INTO webhook_endpoints (id, institution_id, url, description, event_types, secret_enc, created_at, updated_at, livemode)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $7, $8) RETURNING ${COLUMNS}`,
    [e.id, e.institutionId, e.url, e.description, e.eventTypes, e.secretEnc, e.now, e.livemode],
  );
  return toRow(rows[0]!);
}

/** The institution's endpoints of one mode: live and test mode each have their own allowance. */
export async function countEndpoints(db: Queryable, institutionId: string, livemode: boolean): Promise<number> {
  const { rows } = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM webhook_endpoints WHERE institution_id = $1 AND livemode = $2', [
    institutionId,
    livemode,
  ]);
  return rows[0]!.n;
}

/** `livemode`: a partner key's mode (the other mode's endpoint is not found); staff pass nothing and see both. */
export async function findEndpoint(
  db: Queryable,
  institutionId: string,
  id: string,
  opts: { forUpdate?: boolean; livemode?: boolean } = {},
): Promise<EndpointRow | null> {
  const { rows } = await db.query<EndpointRecord>(
    `SELECT ${COLUMNS} FROM webhook_endpoints WHERE institution_id = $1 AND id = $2 AND ($3::boolean IS NULL OR livemode = $3)${opts.forUpdate ? ' FOR UPDATE' : ''}`,
    [institutionId, id, opts.livemode ?? null],
  );
  return rows[0] ? toRow(rows[0]) : null;
}

export async function findEndpointAny(db: Queryable, id: string): Promise<EndpointRow | null> {
  const { rows } = await db.query<EndpointRecord>(`SELECT ${COLUMNS} FROM webhook_endpoints WHERE id = $1`, [id]);
  return rows[0] ? toRow(rows[0]) : null;
}

export async function listEndpointRows(
  db: Queryable,
  tenant: Tenant,
  filter: { status?: EndpointStatus; livemode?: boolean; limit: number; offset: number },
): Promise<{ rows: EndpointRow[]; total: number }> {
  const params = [tenantInstitution(tenant), filter.status ?? null, filter.livemode ?? null];
  const where = 'WHERE ($1::text IS NULL OR institution_id = $1) AND ($2::text IS NULL OR status = $2) AND ($3::boolean IS NULL OR livemode = $3)';
  const [list, count] = await Promise.all([
    db.query<EndpointRecord>(`SELECT ${COLUMNS} FROM webhook_endpoints ${where} ORDER BY created_at, id LIMIT $4 OFFSET $5`, [...params, filter.limit, filter.offset]),
    db.query<{ n: number }>(`SELECT count(*)::int AS n FROM webhook_endpoints ${where}`, params),
  ]);
  return { rows: list.rows.map(toRow), total: count.rows[0]!.n };
}

export async function updateEndpointFields(
  db: Queryable,
  institutionId: string,
  id: string,
  patch: { url?: string; description?: string | null; eventTypes?: SubscribableEventType[] | null },
  now: Date,
): Promise<void> {
  await db.query(
    `UPDATE webhook_endpoints SET
        url = CASE WHEN $3 THEN $4 ELSE url END,
        description = CASE WHEN $5 THEN $6 ELSE description END,
        event_types = CASE WHEN $7 THEN $8::text[] ELSE event_types END,
        updated_at = $9
      WHERE institution_id = $1 AND id = $2`,
    [institutionId, id, patch.url !== undefined, patch.url ?? null, patch.description !== undefined, patch.description ?? null,
      patch.eventTypes !== undefined, patch.eventTypes ?? null, now],
  );
}

export async function deleteEndpointRow(db: Queryable, institutionId: string, id: string, livemode?: boolean): Promise<boolean> {
  const { rowCount } = await db.query(
    'DELETE FROM webhook_endpoints WHERE institution_id = $1 AND id = $2 AND ($3::boolean IS NULL OR livemode = $3)',
    [institutionId, id, livemode ?? null],
  );
  return (rowCount ?? 0) > 0;
}

export async function setEndpointSecrets(
  db: Queryable,
  id: string,
  s: { secretEnc: string; previousSecretEnc: string | null; previousSecretExpiresAt: Date | null; now: Date },
): Promise<void> {
  await db.query(
    `UPDATE webhook_endpoints SET secret_enc = $2, previous_secret_enc = $3, previous_secret_expires_at = $4, updated_at = $5 WHERE id = $1`,
    [id, s.secretEnc, s.previousSecretEnc, s.previousSecretExpiresAt, s.now],
  );
}

/**
 * Disables an endpoint and fails its pending deliveries in one statement:
 * a disabled endpoint is not attempted, and its events stay listable and can
 * be redelivered after it is enabled again. An operator's disabling replaces
 * any other reason (the partner cannot re-enable it); other reasons only
 * apply to an enabled endpoint. Returns the endpoint's institution, URL and
 * failure run when it changed, null when nothing changed.
 */
export async function disableEndpointRow(
  db: Queryable,
  id: string,
  reason: DisabledReason,
  now: Date,
): Promise<{ institutionId: string; url: string; failingSince: Date | null; livemode: boolean } | null> {
  const { rows } = await db.query(
    `WITH e AS (
       UPDATE webhook_endpoints SET status = 'disabled', disabled_reason = $2, disabled_at = $3, updated_at = $3
        WHERE id = $1 AND (status = 'enabled' OR ($2 = 'operator' AND disabled_reason <> 'operator'))
        RETURNING id, institution_id, url, failing_since, livemode),
     d AS (
       UPDATE webhook_deliveries SET status = 'failed', next_attempt_at = NULL, updated_at = $3
        WHERE endpoint_id IN (SELECT id FROM e) AND status = 'pending')
     SELECT institution_id, url, failing_since, livemode FROM e`,
    [id, reason, now],
  );
  const r = rows[0];
  return r ? { institutionId: r.institution_id, url: r.url, failingSince: r.failing_since, livemode: r.livemode } : null;
}

/** Enables an endpoint with a clean slate: no failure run, no pause. */
export async function enableEndpointRow(db: Queryable, id: string, now: Date): Promise<void> {
  await db.query(
    `UPDATE webhook_endpoints SET status = 'enabled', disabled_reason = NULL, disabled_at = NULL, failing_since = NULL,
            paused_until = NULL, updated_at = $2
      WHERE id = $1 AND status = 'disabled'`,
    [id, now],
  );
}
