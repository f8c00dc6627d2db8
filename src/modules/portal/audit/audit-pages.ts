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
import type { MessageKey, Translator } from '../../../platform/i18n/catalogue.js';
import { portalTranslator, richText } from '../ui/portal-text.js';

/**
 * The audit log, newest first: every change made in the portal or through
 * the operator API (who, what, which object, when, from which address).
 * Admins read their institution's; an operator reads one institution's, or
 * without choosing one, every entry of the platform.
 */
const PAGE_SIZE = 50;

const ACTOR: Record<AuditEntry['actorKind'], MessageKey> = {
  staff: 'portal.audit.actor.staff',
  operator_token: 'portal.audit.actor.operatorToken',
  partner_key: 'portal.audit.actor.partnerKey',
  cli: 'portal.audit.actor.cli',
};

function detailsText(d: Record<string, unknown>): string {
  const parts = Object.entries(d).map(([k, v]) => `${k}: ${typeof v === 'string' ? v : JSON.stringify(v)}`);
  const text = parts.join('; ');
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
}

function auditTable(t: Translator, entries: AuditEntry[], caption: string, withInstitution: boolean): SafeHtml {
  return dataTable({
    caption,
    stack: true,
    className: 'audit-table',
    columns: [
      { label: t.t('portal.audit.when') },
      { label: t.t('portal.audit.who') },
      { label: t.t('portal.marking.queue.action') },
      { label: t.t('portal.audit.object') },
      ...(withInstitution ? [{ label: t.t('portal.chooseInstitution.institution') }] : []),
      { label: t.t('portal.audit.details') },
    ],
    rows: entries.map((e) => [
      whenShort(e.at, t),
      html`${e.actorEmail ?? t.t(ACTOR[e.actorKind])}${e.ip ? html`<br><span class="hint">${e.ip}</span>` : ''}`,
      html`<code>${e.action}</code>`,
      html`${e.objectType}${e.objectId ? html`<br><code>${e.objectId}</code>` : ''}`,
      ...(withInstitution ? [e.institutionId ? html`<code>${e.institutionId}</code>` : t.t('portal.audit.platform')] : []),
      detailsText(e.details),
    ]),
    empty: t.t('portal.audit.none'),
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
        const t = portalTranslator();
        const page = await listAudit(db, { institutionId: null, limit: PAGE_SIZE, before });
        const main = html`<h1>${t.t('portal.nav.audit')}</h1>
<p class="lede">${richText(t, 'portal.audit.ledePlatform')}</p>
${auditTable(t, page.data, t.t('portal.audit.captionPlatform'), true)}
${pager({
  label: t.t('portal.audit.pages'),
  newerHref: before ? '/portal/audit' : null,
  newerText: t.t('portal.webhooks.log.newest'),
  olderHref: page.nextBefore ? `/portal/audit?before=${page.nextBefore}` : null,
  t,
})}`;
        return sendHtml(reply, portalLayout({ title: t.t('portal.nav.audit'), principal: p, current: 'audit', main, t }));
      }
      const { t } = scope;
      const page = await listAudit(db, { institutionId: scope.institutionId, limit: PAGE_SIZE, before });
      const main = html`<h1>${t.t('portal.nav.audit')}</h1>
<p class="lede">${richText(t, 'portal.audit.lede', { institution: scope.institutionName })}</p>
${auditTable(t, page.data, t.t('portal.audit.caption', { institution: scope.institutionName }), false)}
${pager({
  label: t.t('portal.audit.pages'),
  newerHref: before ? scope.link('/portal/audit') : null,
  newerText: t.t('portal.webhooks.log.newest'),
  olderHref: page.nextBefore ? scope.link('/portal/audit', { before: String(page.nextBefore) }) : null,
  t,
})}`;
      return sendHtml(reply, layoutFor(scope, { title: t.t('portal.nav.audit'), current: 'audit', main }));
    },
  );
};
