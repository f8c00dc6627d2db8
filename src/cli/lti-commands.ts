import type { AppContext } from '../platform/context.js';
import { createRegistrationInvite } from '../modules/lti/dynamic-registration.js';
import { listInstitutionPlatforms, registerPlatform, removePlatform } from '../modules/lti/platforms.js';
import { rotateToolKey } from '../modules/lti/tool-keys.js';
import { UsageError, listOption, textOption, type Command, type CommandDeps } from './command.js';
import { CLI_AUDIT } from './staff-commands.js';

async function context(deps: CommandDeps): Promise<AppContext> {
  const { pool, config } = await deps.db();
  return { pool, config, clock: deps.clock };
}

/** LTI 1.3 from the command line (docs/lti.md): the same services as the operator API's LTI routes. */
export const LTI_COMMANDS: Record<string, Command> = {
  'add-lti-platform': {
    summary: 'Register a learning platform (LTI 1.3) with an institution',
    usage: '--institution <institutionId> --issuer <url> --client-id <id> --deployment <id>... --login-url <url> --token-url <url> --jwks-url <url>',
    description:
      "Registers the platform (its issuer, the client id it gave Assay, its deployment ids, its OIDC login, token and key-set\n" +
      "URLs) and prints it with the tool's URLs to enter in the platform. The URLs must be public https addresses.",
    positionals: [0, 0],
    options: {
      institution: { type: 'string' },
      issuer: { type: 'string' },
      'client-id': { type: 'string' },
      deployment: { type: 'string', multiple: true },
      'login-url': { type: 'string' },
      'token-url': { type: 'string' },
      'jwks-url': { type: 'string' },
    },
    async run(args, deps) {
      const institutionId = textOption(args, 'institution', 64, true);
      const deploymentIds = listOption(args, 'deployment');
      if (deploymentIds.length === 0 || deploymentIds.length > 100 || deploymentIds.some((d) => d.length === 0 || d.length > 255)) {
        throw new UsageError('--deployment is required (1 to 100 of them, each 1 to 255 characters).');
      }
      return registerPlatform(
        await context(deps),
        institutionId,
        {
          issuer: textOption(args, 'issuer', 2048, true),
          clientId: textOption(args, 'client-id', 255, true),
          deploymentIds,
          authLoginUrl: textOption(args, 'login-url', 2048, true),
          authTokenUrl: textOption(args, 'token-url', 2048, true),
          jwksUrl: textOption(args, 'jwks-url', 2048, true),
        },
        CLI_AUDIT,
      );
    },
  },
  'list-lti-platforms': {
    summary: "List an institution's learning platforms (LTI 1.3)",
    usage: '<institutionId>',
    description: "Prints the institution's registered platforms, oldest first, each with the tool's URLs.",
    positionals: [1, 1],
    run: async ({ positionals: [institutionId] }, deps) => ({ data: await listInstitutionPlatforms(await context(deps), institutionId!) }),
  },
  'remove-lti-platform': {
    summary: 'Remove a learning platform: its launches are refused from now on',
    usage: '<institutionId> <ltiPlatformId>',
    description: 'Removes the platform. Assignments made by its earlier launches stay, without their link to it (no more score posts).',
    positionals: [2, 2],
    async run({ positionals: [institutionId, platformId] }, deps) {
      await removePlatform(await context(deps), institutionId!, platformId!, CLI_AUDIT);
      return `Removed ${platformId}.`;
    },
  },
  'lti-registration-url': {
    summary: 'Make a one-time LTI Dynamic Registration URL for an institution (valid 7 days)',
    usage: '<institutionId>',
    description: "Prints the URL the LMS administrator pastes into the platform's dynamic registration (Moodle: Tool URL).",
    positionals: [1, 1],
    run: async ({ positionals: [institutionId] }, deps) => createRegistrationInvite(await context(deps), institutionId!, CLI_AUDIT),
  },
  'rotate-lti-key': {
    summary: "Rotate the tool's LTI signing key (the old one stays published at /lti/jwks for 7 days)",
    usage: '',
    description: 'Makes a new key pair, sealed under the first ASSAY_SECRET, which signs from now on. Run it before dropping an old ASSAY_SECRET.',
    positionals: [0, 0],
    run: async (_args, deps) => rotateToolKey(await context(deps), CLI_AUDIT),
  },
};
