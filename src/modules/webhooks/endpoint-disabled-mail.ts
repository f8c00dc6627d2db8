import { Type, type Static } from '@sinclair/typebox';
import type { JobContext } from '../../platform/context.js';
import type { Queryable } from '../../platform/db.js';
import { defineJob, enqueueJob } from '../../platform/jobs.js';
import { findAdmin, listAdmins, type StaffView } from '../staff/staff-service.js';
import { DISABLE_AFTER_FAILING_MS } from './retry-policy.js';
import { AUTO_DISABLED_REASONS } from './webhook-statuses.js';

/**
 * The mail half of the endpoint-disabled notice: one durable job per admin
 * of the institution, written in the disabling's transaction. One job per
 * admin so that an SMTP failure retries that admin's mail alone (the queue's
 * backoff, a day of attempts) and never sends another admin's twice; the
 * job sends nothing if its addressee is no longer an admin when it runs.
 */
/** An ISO 8601 instant as toISOString writes it (TypeBox's compiler knows no `format` until one is registered). */
const Instant = Type.String({ pattern: '^\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d(\\.\\d+)?Z$' });

const EndpointDisabledMail = Type.Object(
  {
    institutionId: Type.String({ minLength: 1 }),
    staffId: Type.String({ minLength: 1 }),
    endpointId: Type.String({ minLength: 1 }),
    url: Type.String({ minLength: 1 }),
    reason: Type.Union(AUTO_DISABLED_REASONS.map((r) => Type.Literal(r))),
    disabledAt: Instant,
    failingSince: Type.Union([Instant, Type.Null()]),
  },
  { additionalProperties: false },
);
export type EndpointDisabledMail = Static<typeof EndpointDisabledMail>;

export const endpointDisabledMailJob = defineJob({
  kind: 'webhooks.endpoint_disabled_mail',
  payload: EndpointDisabledMail,
  /** 1 s doubling to 10 minutes, then every 10 minutes: a bit over a day of SMTP trouble. */
  maxAttempts: 160,
  run: (ctx: JobContext, payload) => sendEndpointDisabledMail(ctx, payload),
});

/** In the disabling's transaction: a mail job per admin, due when the endpoint was disabled. */
export async function enqueueEndpointDisabledMails(db: Queryable, notice: Omit<EndpointDisabledMail, 'staffId'>): Promise<number> {
  const admins = await listAdmins(db, notice.institutionId);
  for (const admin of admins) {
    await enqueueJob(db, endpointDisabledMailJob, { ...notice, staffId: admin.staffId }, { runAt: new Date(notice.disabledAt) });
  }
  return admins.length;
}

const WHEN = new Intl.DateTimeFormat('en-GB', { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' });
const at = (iso: string) => `${WHEN.format(new Date(iso))} UTC`;

export function composeEndpointDisabledMail(publicBaseUrl: string, admin: StaffView, p: EndpointDisabledMail): { subject: string; text: string } {
  const days = DISABLE_AFTER_FAILING_MS / (24 * 3600_000);
  const why =
    p.reason === 'gone'
      ? 'It answered 410 Gone, which asks senders to stop for good.'
      : `Every delivery to it has failed for ${days} days${p.failingSince ? ` (since ${at(p.failingSince)})` : ''}.`;
  const institution = admin.institutionName ?? 'your institution';
  const text = [
    admin.name ? `Hello ${admin.name},` : 'Hello,',
    '',
    `Assay disabled a webhook endpoint of ${institution} on ${at(p.disabledAt)}:`,
    '',
    p.url,
    '',
    why,
    '',
    'Assay sends it nothing until it is enabled again. Events keep being recorded, and your integration can list them through the events API. Once the receiver works, enable the endpoint on the portal’s Webhooks page and redeliver the events it missed:',
    '',
    `${publicBaseUrl}/portal/webhooks`,
    `(this endpoint: ${publicBaseUrl}/portal/webhooks/${p.endpointId})`,
    '',
    `You receive this because you are an admin of ${institution} on Assay.`,
    '',
    '— Assay',
  ].join('\n');
  return { subject: `Assay disabled a webhook endpoint of ${institution}`, text };
}

async function sendEndpointDisabledMail(ctx: JobContext, p: EndpointDisabledMail): Promise<void> {
  const admin = await findAdmin(ctx.pool, p.institutionId, p.staffId);
  if (!admin) return;
  try {
    await ctx.mailer.send({ to: admin.email, ...composeEndpointDisabledMail(ctx.config.publicBaseUrl, admin, p) });
  } catch (err) {
    throw new Error(`endpoint-disabled mail not sent: ${(err as Error).message}`);
  }
}
