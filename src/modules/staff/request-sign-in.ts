import type { AppContext } from '../../platform/context.js';
import { withTransaction } from '../../platform/db.js';
import { safeNextPath } from './principal.js';
import { enqueueSignInMail } from './sign-in-mail.js';
import { takeSignInAttempt } from './sign-in-throttle.js';
import { normaliseEmail } from './staff-service.js';

export type SignInRequestResult =
  | { kind: 'accepted' }
  | { kind: 'invalid_email' }
  | { kind: 'rate_limited'; retryAfterSeconds: number };

/**
 * "Email me a sign-in link": counts the attempt and queues the mail job, in
 * one transaction, doing exactly the same work whether or not the address
 * has an account (the job finds out). So the answer — "If that address has
 * an account, we've emailed a sign-in link" — and its timing say nothing.
 */
export async function requestSignIn(ctx: AppContext, input: { email: string; next?: string | null; ip: string; acceptLanguage?: string | undefined }): Promise<SignInRequestResult> {
  const email = normaliseEmail(input.email);
  if (!email) return { kind: 'invalid_email' };
  const next = safeNextPath(input.next);
  return withTransaction(ctx.pool, async (tx) => {
    const throttle = await takeSignInAttempt(tx, { email, ip: input.ip, now: ctx.clock.now() });
    if (!throttle.allowed) return { kind: 'rate_limited', retryAfterSeconds: throttle.retryAfterSeconds };
    await enqueueSignInMail(tx, { kind: 'sign_in', email, next, ...(input.acceptLanguage ? { acceptLanguage: input.acceptLanguage.slice(0, 500) } : {}) });
    return { kind: 'accepted' };
  });
}
