import { Type, type Static } from '@sinclair/typebox';
import type { JobContext } from '../../platform/context.js';
import type { Queryable } from '../../platform/db.js';
import { defineJob, enqueueJob } from '../../platform/jobs.js';
import { findAdmin, listAdmins, type StaffView } from '../staff/staff-service.js';
import { DISABLE_AFTER_FAILING_MS } from './retry-policy.js';
import { AUTO_DISABLED_REASONS } from './webhook-statuses.js';
import { englishTranslator, type Translator } from '../../platform/i18n/catalogue.js';

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

/**
 * The notice, its words from the message catalogue. In English: no admin has
 * told Assay their language yet (docs/languages.md), and the portal they are
 * sent to is English.
 */
export function composeEndpointDisabledMail(publicBaseUrl: string, admin: StaffView, p: EndpointDisabledMail, t: Translator = englishTranslator()): { subject: string; text: string } {
  const days = DISABLE_AFTER_FAILING_MS / (24 * 3600_000);
  const at = (iso: string) => t.dateTimeShort(new Date(iso));
  const why =
    p.reason === 'gone'
      ? t.t('mail.endpointDisabled.gone')
      : p.failingSince
        ? t.t('mail.endpointDisabled.failingSince', { days, since: at(p.failingSince) })
        : t.t('mail.endpointDisabled.failing', { days });
  const institution = admin.institutionName ?? t.t('mail.endpointDisabled.yourInstitution');
  const text = [
    admin.name ? t.t('mail.greetingName', { name: admin.name }) : t.t('mail.greeting'),
    '',
    t.t('mail.endpointDisabled.intro', { institution, at: at(p.disabledAt) }),
    '',
    p.url,
    '',
    why,
    '',
    t.t('mail.endpointDisabled.whatNow'),
    '',
    `${publicBaseUrl}/portal/webhooks`,
    t.t('mail.endpointDisabled.thisEndpoint', { url: `${publicBaseUrl}/portal/webhooks/${p.endpointId}` }),
    '',
    t.t('mail.endpointDisabled.why', { institution }),
    '',
    t.t('mail.signature'),
  ].join('\n');
  return { subject: t.t('mail.endpointDisabled.subject', { institution }), text };
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
