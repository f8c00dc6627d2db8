import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../../platform/context.js';
import { html, type SafeHtml } from '../../../platform/web/html.js';
import { listAudit, type AuditEntry } from '../../staff/audit.js';
import { requirePermission } from '../../staff/principal.js';
import { dataTable, pager, whenShort } from '../ui/components.js';
import { portalLayout } from '../ui/layout.js';
import { Html, InstitutionQuery, institutionScope, layoutFor, pageRoute, sendHtml } from '../ui/page.js';
import { portalReadPool } from '../portal-reads.js';

/**
 * The audit log, newest first: every change made in the portal or through
 * the operator API (who, what, which object, when, from which address).
 * Admins read their institution's; an operator reads one institution's, or
 * without choosing one, every entry of the platform.
 */
const PAGE_SIZE = 50;

const ACTOR: Record<AuditEntry['actorKind'], string> = {
  staff: 'Staff',
  operator_token: 'Operator API token',
  partner_key: 'Partner API key',
  cli: 'Command line',
};

function detailsText(d: Record<string, unknown>): string {
  const parts = Object.entries(d).map(([k, v]) => `${k}: ${typeof v === 'string' ? v : JSON.stringify(v)}`);
  const text = parts.join('; ');
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
}

function auditTable(entries: AuditEntry[], caption: string, withInstitution: boolean): SafeHtml {
  return dataTable({
    caption,
    stack: true,
    className: 'audit-table',
    columns: [{ label: 'When' }, { label: 'Who, from where' }, { label: 'Action' }, { label: 'Object' }, ...(withInstitution ? [{ label: 'Institution' }] : []), { label: 'Details' }],
    rows: entries.map((e) => [
      whenShort(e.at),
      html`${e.actorEmail ?? ACTOR[e.actorKind]}${e.ip ? html`<br><span class="hint">${e.ip}</span>` : ''}`,
      html`<code>${e.action}</code>`,
      html`${e.objectType}${e.objectId ? html`<br><code>${e.objectId}</code>` : ''}`,
      ...(withInstitution ? [e.institutionId ? html`<code>${e.institutionId}</code>` : 'Platform'] : []),
      detailsText(e.details),
    ]),
    empty: 'Nothing has been recorded yet.',
  });
}

export const auditPages: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.get(
    '/audit',
    {
      schema: {
        ...pageRoute,
        querystring: Type.Object({ ...InstitutionQuery, before: Type.Optional(Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER })) }),
        response: { 200: Html },
      },
    },
    async (request, reply) => {
      const before = request.query.before ?? null;
      const scope = await institutionScope(ctx, request, 'manage_staff');
      // The log may be a little behind: the read replica's, once it has this browser's own changes (portal-reads.ts).
      const db = portalReadPool(ctx, request);
      if (!scope) {
        // An operator without a chosen institution: the whole platform's log.
        const p = requirePermission(request, 'operate');
        const page = await listAudit(db, { institutionId: null, limit: PAGE_SIZE, before });
        const main = html`<h1>Audit log</h1>
<p class="lede">Every change on the platform, newest first. Open an institution's audit log from its page to see only its entries.</p>
${auditTable(page.data, 'All audit entries, newest first', true)}
${pager({ label: 'Audit log pages', newerHref: before ? '/portal/audit' : null, newerText: 'Newest', olderHref: page.nextBefore ? `/portal/audit?before=${page.nextBefore}` : null })}`;
        return sendHtml(reply, portalLayout({ title: 'Audit log', principal: p, current: 'audit', main }));
      }
      const page = await listAudit(db, { institutionId: scope.institutionId, limit: PAGE_SIZE, before });
      const main = html`<h1>Audit log</h1>
<p class="lede">Every change to ${scope.institutionName}'s keys, domains, webhooks, marks and staff, made in the portal or by the Assay operator, newest first.</p>
${auditTable(page.data, `Audit entries of ${scope.institutionName}, newest first`, false)}
${pager({
  label: 'Audit log pages',
  newerHref: before ? scope.link('/portal/audit') : null,
  newerText: 'Newest',
  olderHref: page.nextBefore ? scope.link('/portal/audit', { before: String(page.nextBefore) }) : null,
})}`;
      return sendHtml(reply, layoutFor(scope, { title: 'Audit log', current: 'audit', main }));
    },
  );
};
