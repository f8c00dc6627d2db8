import type { AppContext } from '../platform/context.js';
import { issueSignInLink, signInUrl } from '../modules/staff/sign-in-links.js';
import { createOperator, inviteStaff } from '../modules/staff/staff-service.js';
import type { AuditContext } from '../modules/staff/audit.js';
import { INSTITUTION_ROLES } from '../modules/staff/principal.js';
import { UsageError, textOption, type Command, type CommandDeps } from './command.js';

/** Who acts from the command line: someone at the server's shell (the audit log says so). */
export const CLI_AUDIT: AuditContext = { actor: { kind: 'cli' }, ip: null };

async function context(deps: CommandDeps): Promise<AppContext> {
  const { pool, config } = await deps.db();
  return { pool, config, clock: deps.clock };
}

/** Staff accounts from the command line: the first operator of a new installation, and invitations. */
export const STAFF_COMMANDS: Record<string, Command> = {
  'invite-staff': {
    summary: "Invite a staff member of an institution (emails a sign-in link)",
    usage: '--institution <institutionId> --email <address> --role <admin|author|reviewer|viewer> [--name <name>]',
    description:
      'Creates the staff account and queues the invitation mail with a sign-in link (valid 15 minutes; they can ask\n' +
      'for a new one on the sign-in page). The worker sends it over ASSAY_SMTP_URL, or writes it to its log without one.',
    positionals: [0, 0],
    options: { institution: { type: 'string' }, email: { type: 'string' }, role: { type: 'string' }, name: { type: 'string' } },
    async run(args, deps) {
      const institutionId = textOption(args, 'institution', 64, true);
      const email = textOption(args, 'email', 254, true);
      const role = textOption(args, 'role', 20, true);
      if (!(INSTITUTION_ROLES as readonly string[]).includes(role)) throw new UsageError('--role must be admin, author, reviewer or viewer.');
      const staff = await inviteStaff(await context(deps), { institutionId, email, role, name: textOption(args, 'name', 200) ?? null }, CLI_AUDIT);
      deps.io.err(`Invitation queued for ${staff.email}: the worker emails the sign-in link.`);
      return staff;
    },
  },
  'create-operator': {
    summary: 'Create a platform operator account and print a sign-in link for it',
    usage: '--email <address> [--name <name>]',
    description:
      'Creates an operator account (every institution, the Institutions and Tests pages) and prints a sign-in link\n' +
      'for it, valid 15 minutes and once: the way into the portal of a new installation. The invitation mail is\n' +
      'queued as well; later sign-ins use the sign-in page.',
    positionals: [0, 0],
    options: { email: { type: 'string' }, name: { type: 'string' } },
    async run(args, deps) {
      const ctx = await context(deps);
      const staff = await createOperator(ctx, { email: textOption(args, 'email', 254, true), name: textOption(args, 'name', 200) ?? null }, CLI_AUDIT);
      const { token, expiresAt } = await issueSignInLink(ctx.pool, { staffId: staff.staffId, next: null, now: ctx.clock.now() });
      deps.io.err(`Sign in within 15 minutes (until ${expiresAt.toISOString()}); the link works once.`);
      return { ...staff, signInUrl: signInUrl(ctx, token) };
    },
  },
};
