import { notFound } from '../../platform/errors.js';
import type { AppContext } from '../../platform/context.js';
import { withTransaction } from '../../platform/db.js';
import type { Tenant } from '../../platform/principal.js';
import { disableEndpointRow, enableEndpointRow, findEndpointAny, listEndpointRows } from './endpoints-repo.js';
import { toEndpointView, type EndpointView } from './manage-endpoints.js';
import { auditIn, type AuditContext } from '../staff/audit.js';
import type { EndpointStatus } from './webhook-statuses.js';

/**
 * Operator view of every institution's endpoints. An operator's disabling
 * sticks: the partner cannot enable the endpoint again; only the operator can.
 */
export type OperatorEndpointView = EndpointView & { institutionId: string };

export async function operatorListEndpoints(
  ctx: AppContext,
  tenant: Tenant,
  filter: { status?: EndpointStatus; limit: number; offset: number },
): Promise<{ data: OperatorEndpointView[]; total: number }> {
  const { rows, total } = await listEndpointRows(ctx.pool, tenant, filter);
  return { data: rows.map((r) => ({ ...toEndpointView(r), institutionId: r.institutionId })), total };
}

export async function operatorSetEndpointStatus(
  ctx: AppContext,
  endpointId: string,
  status: EndpointStatus,
  audit?: AuditContext,
): Promise<OperatorEndpointView> {
  const now = ctx.clock.now();
  return withTransaction(ctx.pool, async (tx) => {
    if (!(await findEndpointAny(tx, endpointId))) throw notFound('webhook endpoint');
    if (status === 'disabled') await disableEndpointRow(tx, endpointId, 'operator', now);
    else await enableEndpointRow(tx, endpointId, now);
    const row = (await findEndpointAny(tx, endpointId))!;
    await auditIn(tx, audit, {
      action: status === 'disabled' ? 'webhook_endpoint.disabled' : 'webhook_endpoint.enabled',
      objectType: 'webhook_endpoint',
      objectId: endpointId,
      institutionId: row.institutionId,
      details: { url: row.url },
    });
    return { ...toEndpointView(row), institutionId: row.institutionId };
  });
}
