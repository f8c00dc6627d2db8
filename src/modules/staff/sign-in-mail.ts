import { Type, type Static } from '@sinclair/typebox';
import type { AppContext, JobContext } from '../../platform/context.js';
import type { Queryable } from '../../platform/db.js';
import { defineJob, enqueueJob } from '../../platform/jobs.js';
import type { Mailer } from '../../platform/mail.js';
import { deleteSignInLinks, issueSignInLink, LINK_TTL_MS, signInUrl } from './sign-in-links.js';
import { findStaffByEmail, findStaffById, type StaffRow } from './staff-repo.js';

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
  Type.Object({ kind: Type.Literal('sign_in'), email: Type.String({ minLength: 1 }), next: Type.Union([Type.String(), Type.Null()]) }, { additionalProperties: false }),
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

const TIME = new Intl.DateTimeFormat('en-GB', { timeStyle: 'short', timeZone: 'UTC' });

function accountLine(a: StaffRow): string {
  return a.role === 'operator' ? 'Assay operator' : `${a.institutionName ?? 'Institution'} (${a.role})`;
}

export function composeSignInMail(
  ctx: AppContext,
  p: { kind: 'sign_in' | 'invite'; invitedBy?: string; links: Array<{ account: StaffRow; url: string }>; expiresAt: Date },
): { subject: string; text: string } {
  const first = p.links[0]!.account;
  const greeting = first.name ? `Hello ${first.name},` : 'Hello,';
  const until = `${TIME.format(p.expiresAt)} UTC`;
  const again = `${ctx.config.publicBaseUrl}/portal/sign-in`;
  const linkLines =
    p.links.length === 1
      ? [p.links[0]!.url]
      : p.links.flatMap((l) => [`${accountLine(l.account)}:`, l.url, '']);
  const intro =
    p.kind === 'invite'
      ? [
          `${p.invitedBy} invited you to the Assay portal${first.institutionName ? ` of ${first.institutionName}` : ''} as ${first.role === 'operator' ? 'an operator' : `${/^[aeiou]/.test(first.role) ? 'an' : 'a'} ${first.role}`}.`,
          '',
          'Sign in with this link:',
        ]
      : ['Someone (we hope you) asked to sign in to the Assay portal with this address.', '', p.links.length === 1 ? 'Sign in with this link:' : 'Sign in with the link of the account you want:'];
  const text = [
    greeting,
    '',
    ...intro,
    '',
    ...linkLines,
    '',
    `Each link works once and until ${until} (15 minutes). After that, ask for a new one at ${again} with this address.`,
    '',
    p.kind === 'invite' ? 'If you do not know why you were invited, ignore this message.' : 'If you did not ask for this, ignore this message: nobody can sign in without the link.',
    '',
    '— Assay',
  ].join('\n');
  return { subject: p.kind === 'invite' ? `You are invited to the Assay portal${first.institutionName ? ` of ${first.institutionName}` : ''}` : 'Your sign-in link for Assay', text };
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
  });
  try {
    await mailer.send({ to: accounts[0]!.email, ...mail });
  } catch (err) {
    await deleteSignInLinks(ctx.pool, links.map((l) => l.token));
    // The SMTP error alone: it never contains the message, so no link reaches the log.
    throw new Error(`sign-in mail not sent: ${(err as Error).message}`);
  }
}
