import { AppError, notFound } from '../../platform/errors.js';
import type { AppContext } from '../../platform/context.js';
import { withTransaction } from '../../platform/db.js';
import { newId } from '../../platform/ids.js';
import type { SubscribableEventType } from '../lifecycle/event-types.js';
import {
  countEndpoints,
  deleteEndpointRow,
  disableEndpointRow,
  enableEndpointRow,
  findEndpoint,
  insertEndpoint,
  listEndpointRows,
  updateEndpointFields,
  type EndpointRow,
} from './endpoints-repo.js';
import { generateEndpointSecret } from './secret-box.js';
import { checkEndpointUrl } from './url-guard.js';
import { secretBoxFor, urlPolicyFor } from './webhooks-context.js';
import type { EndpointStatus } from './webhook-statuses.js';

/**
 * Partner management of webhook endpoints. Every function is scoped to the
 * caller's institution and, for a partner key, to its mode (`livemode`): a
 * test key creates and sees test-mode endpoints only, which receive test-mode
 * events only. Staff (the portal) pass no mode and see both. The signing secret is returned by `createEndpoint`
 * (and by rotation) only; reads never show it.
 */
export const MAX_ENDPOINTS_PER_INSTITUTION = 20;

export interface EndpointView {
  endpointId: string;
  url: string;
  description: string | null;
  /** Null: every event type, including types added later. */
  eventTypes: SubscribableEventType[] | null;
  status: EndpointStatus;
  disabledReason: EndpointRow['disabledReason'];
  disabledAt: Date | null;
  /** Start of the current run of failed attempts; null when the last attempt succeeded. */
  failingSince: Date | null;
  createdAt: Date;
  updatedAt: Date;
  livemode: boolean;
}

export function toEndpointView(r: EndpointRow): EndpointView {
  return {
    endpointId: r.id,
    url: r.url,
    description: r.description,
    eventTypes: r.eventTypes,
    status: r.status,
    disabledReason: r.disabledReason,
    disabledAt: r.disabledAt,
    failingSince: r.failingSince,
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
    livemode: r.livemode,
  };
}

/** Duplicates are dropped and the order kept; an empty list is refused by the schema. */
const normaliseTypes = (types: SubscribableEventType[] | null | undefined) => (types ? [...new Set(types)] : types);

export interface EndpointInput {
  url: string;
  eventTypes?: SubscribableEventType[] | null;
  description?: string | null;
}

export async function createEndpoint(ctx: AppContext, institutionId: string, input: EndpointInput, livemode = true): Promise<EndpointView & { secret: string }> {
  const url = checkEndpointUrl(input.url, urlPolicyFor(ctx.config));
  const secret = generateEndpointSecret();
  const row = await withTransaction(ctx.pool, async (tx) => {
    // Serialises creations per institution so the cap holds under concurrency.
    await tx.query('SELECT 1 FROM institutions WHERE id = $1 FOR UPDATE', [institutionId]);
    if ((await countEndpoints(tx, institutionId, livemode)) >= MAX_ENDPOINTS_PER_INSTITUTION) {
      throw new AppError(
        'invalid_state',
        `An institution can have at most ${MAX_ENDPOINTS_PER_INSTITUTION} webhook endpoints${livemode ? '' : ' in test mode'}; delete one first.`,
      );
    }
    const id = newId('whep');
    return insertEndpoint(tx, {
      id,
      institutionId,
      url,
      description: input.description ?? null,
      eventTypes: normaliseTypes(input.eventTypes) ?? null,
      secretEnc: secretBoxFor(ctx.config).seal(secret, id),
      livemode,
      now: ctx.clock.now(),
    });
  });
  return { ...toEndpointView(row), secret };
}

export async function listEndpoints(ctx: AppContext, institutionId: string, page: { limit: number; offset: number }, livemode?: boolean) {
  const { rows, total } = await listEndpointRows(ctx.pool, { institutionId }, { livemode, ...page });
  return { data: rows.map(toEndpointView), total };
}

export async function getEndpoint(ctx: AppContext, institutionId: string, endpointId: string, livemode?: boolean): Promise<EndpointView> {
  const row = await findEndpoint(ctx.pool, institutionId, endpointId, { livemode });
  if (!row) throw notFound('webhook endpoint');
  return toEndpointView(row);
}

export interface EndpointPatch {
  url?: string;
  eventTypes?: SubscribableEventType[] | null;
  description?: string | null;
  status?: EndpointStatus;
}

export async function updateEndpoint(ctx: AppContext, institutionId: string, endpointId: string, patch: EndpointPatch, livemode?: boolean): Promise<EndpointView> {
  const url = patch.url === undefined ? undefined : checkEndpointUrl(patch.url, urlPolicyFor(ctx.config));
  const now = ctx.clock.now();
  return withTransaction(ctx.pool, async (tx) => {
    const current = await findEndpoint(tx, institutionId, endpointId, { forUpdate: true, livemode });
    if (!current) throw notFound('webhook endpoint');
    if (patch.status === 'enabled' && current.disabledReason === 'operator') {
      throw new AppError('invalid_state', 'This endpoint was disabled by the Assay operator; contact them to enable it.');
    }
    await updateEndpointFields(tx, institutionId, endpointId, { url, description: patch.description, eventTypes: normaliseTypes(patch.eventTypes) }, now);
    if (patch.status === 'disabled') await disableEndpointRow(tx, endpointId, 'partner', now);
    if (patch.status === 'enabled') await enableEndpointRow(tx, endpointId, now);
    return toEndpointView((await findEndpoint(tx, institutionId, endpointId))!);
  });
}

/** Deleting an endpoint deletes its deliveries and attempt history; its events stay listable. */
export async function deleteEndpoint(ctx: AppContext, institutionId: string, endpointId: string, livemode?: boolean): Promise<void> {
  if (!(await deleteEndpointRow(ctx.pool, institutionId, endpointId, livemode))) throw notFound('webhook endpoint');
}
