import { Type, type Static } from '@sinclair/typebox';
import type { AppContext, JobContext } from '../../platform/context.js';
import type { Queryable } from '../../platform/db.js';
import { defineJob, enqueueJob } from '../../platform/jobs.js';
import type { Mailer } from '../../platform/mail.js';
import { deleteSignInLinks, issueSignInLink, LINK_TTL_MS, signInUrl } from './sign-in-links.js';
import { findStaffByEmail, findStaffById, type StaffRow } from './staff-repo.js';
import { englishTranslator, translator, type Translator } from '../../platform/i18n/catalogue.js';
import { chooseLocale } from '../../platform/i18n/locales.js';

/**
 * Sign-in and invitation mail, sent by a durable job rather than inside the
 * request. Why: the sign-in form must answer the same, in the same time,
 * whether or not the address has an account — the request only enqueues
 * (the same row for every address) and the job looks the account up; and an
 * SMTP outage delays a mail (retried for a few minutes) instead of losing
 * it. The token is created by the job at sending time, so it never sits in
 * the jobs table, and the link's 15 minutes start when the mail leaves.
 * The cost: a worker must run (`npm start` runs one).
 */
const SignInMailPayload = Type.Union([
  Type.Object(
    {
      kind: Type.Literal('sign_in'),
      email: Type.String({ minLength: 1 }),
      next: Type.Union([Type.String(), Type.Null()]),
      /** The sign-in form's `Accept-Language`: the mail is written in the language of the browser that asked for it (absent in jobs queued before: English). */
      acceptLanguage: Type.Optional(Type.String({ maxLength: 500 })),
    },
    { additionalProperties: false },
  ),
  Type.Object({ kind: Type.Literal('invite'), staffId: Type.String({ minLength: 1 }), invitedBy: Type.String() }, { additionalProperties: false }),
]);
export type SignInMailPayload = Static<typeof SignInMailPayload>;

export const signInMailJob = defineJob({
  kind: 'staff.sign_in_mail',
  payload: SignInMailPayload,
  /** 1 + 2 + 4 + … 64 s: about two minutes of retries; a later link would be of little use to someone waiting at the form. */
  maxAttempts: 8,
  run: (ctx: JobContext, payload) => runSignInMailJob(ctx, ctx.mailer, payload),
});

export async function enqueueSignInMail(db: Queryable, payload: SignInMailPayload): Promise<void> {
  await enqueueJob(db, signInMailJob, payload);
}

function accountLine(t: Translator, a: StaffRow): string {
  return a.role === 'operator' ? t.t('mail.signIn.operatorAccount') : t.t('mail.signIn.institutionAccount', { institution: a.institutionName ?? t.t('mail.signIn.institution'), role: a.role });
}

/**
 * The sign-in or invitation mail in the staff member's language (docs/languages.md):
 * a sign-in mail in the language of the browser that asked for it, an
 * invitation in English (nobody has told Assay the invitee's language yet).
 */
export function composeSignInMail(
  ctx: AppContext,
  p: { kind: 'sign_in' | 'invite'; invitedBy?: string; links: Array<{ account: StaffRow; url: string }>; expiresAt: Date; t?: Translator },
): { subject: string; text: string } {
  const t = p.t ?? englishTranslator();
  const first = p.links[0]!.account;
  const greeting = first.name ? t.t('mail.greetingName', { name: first.name }) : t.t('mail.greeting');
  const again = `${ctx.config.publicBaseUrl}/portal/sign-in`;
  const linkLines =
    p.links.length === 1
      ? [p.links[0]!.url]
      : p.links.flatMap((l) => [t.t('mail.signIn.accountLine', { account: accountLine(t, l.account) }), l.url, '']);
  const institution = first.institutionName ?? '';
  const intro =
    p.kind === 'invite'
      ? [
          institution
            ? t.t('mail.invite.intro', { invitedBy: p.invitedBy ?? '', institution, role: first.role })
            : t.t('mail.invite.introNoInstitution', { invitedBy: p.invitedBy ?? '', role: first.role }),
          '',
          t.t('mail.signIn.withThisLink'),
        ]
      : [t.t('mail.signIn.intro'), '', p.links.length === 1 ? t.t('mail.signIn.withThisLink') : t.t('mail.signIn.withYourLink')];
  const text = [
    greeting,
    '',
    ...intro,
    '',
    ...linkLines,
    '',
    t.t('mail.signIn.validity', { until: t.timeOfDay(p.expiresAt), url: again }),
    '',
    p.kind === 'invite' ? t.t('mail.invite.ignore') : t.t('mail.signIn.ignore'),
    '',
    t.t('mail.signature'),
  ].join('\n');
  const subject =
    p.kind === 'invite'
      ? institution
        ? t.t('mail.invite.subject', { institution })
        : t.t('mail.invite.subjectNoInstitution')
      : t.t('mail.signIn.subject');
  return { subject, text };
}

/**
 * The job: find the account(s), create a link for each, send one mail. If
 * sending fails the links are withdrawn and the job retries with fresh ones.
 * No account for the address: nothing is sent and nothing is logged.
 */
export async function runSignInMailJob(ctx: AppContext, mailer: Mailer, payload: SignInMailPayload): Promise<void> {
  const accounts =
    payload.kind === 'invite'
      ? [await findStaffById(ctx.pool, payload.staffId)].filter((a): a is StaffRow => a !== null)
      : await findStaffByEmail(ctx.pool, payload.email);
  if (accounts.length === 0) return;
  const now = ctx.clock.now();
  const next = payload.kind === 'sign_in' ? payload.next : null;
  const links = [];
  for (const account of accounts) {
    const { token } = await issueSignInLink(ctx.pool, { staffId: account.staffId, next, now });
    links.push({ account, token, url: signInUrl(ctx, token) });
  }
  const mail = composeSignInMail(ctx, {
    kind: payload.kind,
    invitedBy: payload.kind === 'invite' ? payload.invitedBy : undefined,
    links,
    expiresAt: new Date(now.getTime() + LINK_TTL_MS),
    t: payload.kind === 'sign_in' ? translator(chooseLocale({ acceptLanguage: payload.acceptLanguage })) : englishTranslator(),
  });
  try {
    await mailer.send({ to: accounts[0]!.email, ...mail });
  } catch (err) {
    await deleteSignInLinks(ctx.pool, links.map((l) => l.token));
    // The SMTP error alone: it never contains the message, so no link reaches the log.
    throw new Error(`sign-in mail not sent: ${(err as Error).message}`);
  }
}
