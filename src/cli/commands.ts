import fs from 'node:fs/promises';
import { notFound } from '../platform/errors.js';
import { MIGRATIONS_DIR } from '../platform/migrate.js';
import { saveLocalSecrets } from '../platform/local-secrets.js';
import { createApiKey, listApiKeys, revokeApiKey } from '../modules/institutions/api-keys.js';
import {
  createInstitution,
  getInstitution,
  listInstitutions,
  setCallbackDomains,
  setInstitutionStatus,
} from '../modules/institutions/institutions.js';
import type { InstitutionStatus } from '../modules/institutions/institution-status.js';
import { updateInstitutionSettings } from '../modules/institutions/institution-settings.js';
import { createTest, getTest, publishTest, unpublishTest, updateTest } from '../modules/catalog/tests-service.js';
import { importTest } from '../modules/catalog/interchange/import-service.js';
import { contentAssetSink } from '../modules/catalog/interchange/asset-sink.js';
import { resealEndpointSecrets } from '../modules/webhooks/reseal-secrets.js';
import { resealToolKeys } from '../modules/lti/reseal-tool-keys.js';
import { seedDemo } from '../demo/seed-demo.js';
import { UsageError, intOption, listOption, textOption, type Command, type CommandDeps } from './command.js';
import { readTestFile } from './read-test-file.js';
import { CLI_AUDIT, STAFF_COMMANDS } from './staff-commands.js';
import { LTI_COMMANDS } from './lti-commands.js';
import { STORAGE_COMMANDS } from './storage-commands.js';
import { FAILOVER_COMMANDS } from './failover-commands.js';

/**
 * Every operator command, each over the same service function the operator
 * API (`/api/admin/v1`) calls, so both apply the same rules and SQL.
 */
async function requireInstitution(deps: CommandDeps, institutionId: string) {
  const institution = await getInstitution((await deps.db()).pool, institutionId);
  if (!institution) throw notFound('institution');
  return institution;
}

function setStatus(status: InstitutionStatus): Command['run'] {
  return async ({ positionals: [institutionId] }, deps) => {
    const { pool } = await deps.db();
    if (!(await setInstitutionStatus(pool, institutionId!, status, CLI_AUDIT))) throw notFound('institution');
    return getInstitution(pool, institutionId!);
  };
}

export const COMMANDS: Record<string, Command> = {
  'create-institution': {
    summary: 'Create an institution',
    usage: '--name <name> [--domain <domain>]...',
    description:
      'Creates an institution. Each --domain adds a callbackUrl domain to its allowlist: "partner.example",\n' +
      'or "*.partner.example" for any subdomain. Prints the institution (with its institutionId).',
    positionals: [0, 0],
    options: { name: { type: 'string' }, domain: { type: 'string', multiple: true } },
    async run(args, deps) {
      const name = textOption(args, 'name', 200, true);
      const callbackDomains = listOption(args, 'domain');
      return createInstitution((await deps.db()).pool, { name, callbackDomains }, CLI_AUDIT);
    },
  },
  'list-institutions': {
    summary: 'List institutions',
    usage: '[--limit <1-100>] [--offset <n>]',
    description: 'Lists institutions, oldest first, with their status and callback domains (default: the first 20).',
    positionals: [0, 0],
    options: { limit: { type: 'string' }, offset: { type: 'string' } },
    async run(args, deps) {
      const limit = intOption(args, 'limit', 20, 1, 100);
      const offset = intOption(args, 'offset', 0, 0, Number.MAX_SAFE_INTEGER);
      return { ...(await listInstitutions((await deps.db()).pool, { limit, offset })), limit, offset };
    },
  },
  'get-institution': {
    summary: 'Show one institution',
    usage: '<institutionId>',
    description: 'Prints the institution with its status and callback domains.',
    positionals: [1, 1],
    run: ({ positionals: [institutionId] }, deps) => requireInstitution(deps, institutionId!),
  },
  'set-domains': {
    summary: "Replace an institution's callbackUrl domain allowlist",
    usage: '<institutionId> <domain>... | <institutionId> --clear',
    description:
      'Replaces the allowlist with the given domains ("partner.example", "*.lms.example"). --clear empties it,\n' +
      'after which no new assignment can be created for the institution.',
    positionals: [1, 100],
    options: { clear: { type: 'boolean' } },
    async run({ positionals: [institutionId, ...domains], values }, deps) {
      if (values.clear === true && domains.length > 0) throw new UsageError('Give domains or --clear, not both.');
      if (values.clear !== true && domains.length === 0) throw new UsageError('Give at least one domain (or --clear to empty the allowlist).');
      const set = await setCallbackDomains((await deps.db()).pool, institutionId!, domains, CLI_AUDIT);
      if (!set) throw notFound('institution');
      return { domains: set };
    },
  },
  suspend: {
    summary: 'Suspend an institution (its API keys get 403)',
    usage: '<institutionId>',
    description: 'Suspends the institution: every request with one of its API keys is refused with 403 until it is activated.',
    positionals: [1, 1],
    run: setStatus('suspended'),
  },
  activate: {
    summary: 'Reactivate a suspended institution',
    usage: '<institutionId>',
    description: 'Reactivates the institution: its API keys work again.',
    positionals: [1, 1],
    run: setStatus('active'),
  },
  'set-proctoring-relaxations': {
    summary: "Allow or forbid an institution's partners to relax proctoring per assignment",
    usage: '<institutionId> <on|off>',
    description:
      'on: the institution may grant accommodations.proctoring relaxations (no full-screen requirement, copy and paste\n' +
      'not flagged) on its assignments; off (the default) refuses them with 422. Relaxations already granted stay.',
    positionals: [2, 2],
    async run({ positionals: [institutionId, value] }, deps) {
      if (value !== 'on' && value !== 'off') throw new UsageError('Give on or off.');
      const settings = await updateInstitutionSettings((await deps.db()).pool, institutionId!, { allowProctoringRelaxations: value === 'on' });
      if (!settings) throw notFound('institution');
      return settings;
    },
  },
  'set-report-questions': {
    summary: "Show or hide each question's outcome in an institution's candidate reports",
    usage: '<institutionId> <on|off>',
    description:
      "on: the report (result.reportUrl and its PDF) lists every question the candidate was given, in their order, with\n" +
      'the points awarded of its points; off (the default) shows the score, the sections and the integrity summary only.',
    positionals: [2, 2],
    async run({ positionals: [institutionId, value] }, deps) {
      if (value !== 'on' && value !== 'off') throw new UsageError('Give on or off.');
      const settings = await updateInstitutionSettings((await deps.db()).pool, institutionId!, { reportShowsQuestions: value === 'on' });
      if (!settings) throw notFound('institution');
      return settings;
    },
  },
  'create-key': {
    summary: 'Create an API key (printed once)',
    usage: '<institutionId> [--label <label>] [--mode live|test]',
    description:
      'Creates an API key for the institution. The key is printed this once: only its hash is stored.\n' +
      'An institution may hold several active keys, so a key can be rotated without downtime.\n' +
      '--mode test creates an ak_test_ key, which reaches only test-mode data (default: live).',
    positionals: [1, 1],
    options: { label: { type: 'string' }, mode: { type: 'string' } },
    async run(args, deps) {
      const label = textOption(args, 'label', 200) ?? null;
      const mode = textOption(args, 'mode', 4) ?? 'live';
      if (mode !== 'live' && mode !== 'test') throw new UsageError('--mode: give live or test.');
      const institution = await requireInstitution(deps, args.positionals[0]!);
      const { record, apiKey } = await createApiKey((await deps.db()).pool, institution.institutionId, label, CLI_AUDIT, mode);
      deps.io.err('Store this API key now: it is not shown again.');
      return { keyId: record.keyId, apiKey, label: record.label, mode: record.mode, createdAt: record.createdAt };
    },
  },
  'list-keys': {
    summary: "List an institution's API keys (never the secrets)",
    usage: '<institutionId>',
    description: 'Lists the keys with their id, label, visible prefix, last use and revocation time.',
    positionals: [1, 1],
    async run({ positionals: [institutionId] }, deps) {
      await requireInstitution(deps, institutionId!);
      return { data: await listApiKeys((await deps.db()).pool, institutionId!) };
    },
  },
  'revoke-key': {
    summary: 'Revoke an API key',
    usage: '<institutionId> <keyId>',
    description: 'Revokes the key; the next request made with it gets 401. Revoking twice is harmless.',
    positionals: [2, 2],
    async run({ positionals: [institutionId, keyId] }, deps) {
      if (!(await revokeApiKey((await deps.db()).pool, institutionId!, keyId!, deps.clock.now(), CLI_AUDIT))) throw notFound('API key');
      return `Revoked ${keyId}.`;
    },
  },
  'create-test': {
    summary: 'Create a test from a JSON file',
    usage: '<file.json>',
    description:
      'Creates a test (version 1) from a file holding the body of POST /api/admin/v1/tests:\n' +
      '{title, description, durationMinutes, proctoring, marking, resultVisibility, passPercent?, questions: [...]}.\n' +
      'See docs/operators.md for the question types. Prints the test with its testId.',
    positionals: [1, 1],
    async run({ positionals: [file] }, deps) {
      const input = await readTestFile(file!);
      return createTest((await deps.db()).pool, input, CLI_AUDIT);
    },
  },
  'import-test': {
    summary: 'Import a test from a QTI package (.zip) or a CSV file',
    usage: '<file.zip|file.csv> [--dry-run] [--title <title>]',
    description:
      'Imports a QTI 3.0 or 2.1/2.2 content package, or a CSV of one question per row (docs/import-export.md),\n' +
      'as a new test, exactly as POST /api/admin/v1/tests/import does. Prints the test id and the report: what each\n' +
      'item became, and each skipped item with why. --dry-run prints the report and creates nothing.',
    positionals: [1, 1],
    options: { 'dry-run': { type: 'boolean' }, title: { type: 'string' } },
    async run(args, deps) {
      const file = args.positionals[0]!;
      const title = textOption(args, 'title', 200);
      let bytes: Buffer;
      try {
        bytes = await fs.readFile(file);
      } catch (err) {
        throw new UsageError(`Cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}.`);
      }
      // A zip starts with "PK"; anything else is read as CSV.
      const format = bytes.subarray(0, 2).toString('latin1') === 'PK' ? 'qti' : 'csv';
      const db = await deps.db();
      // Images become the platform's assets, as with the operator API.
      const assets = contentAssetSink({ pool: db.pool, config: db.config }, null, CLI_AUDIT);
      return importTest(db.pool, { bytes, format, dryRun: args.values['dry-run'] === true, ...(title ? { title } : {}), audit: CLI_AUDIT, assets });
    },
  },
  'update-test': {
    summary: 'Write a new version of a test from a JSON file',
    usage: '<testId> <file.json>',
    description: 'Replaces the test with the file\'s content as a new version. Existing assignments keep the version they were created with.',
    positionals: [2, 2],
    async run({ positionals: [testId, file] }, deps) {
      const input = await readTestFile(file!);
      return updateTest((await deps.db()).pool, testId!, input, CLI_AUDIT);
    },
  },
  'get-test': {
    summary: 'Show a test (current version, with answer keys)',
    usage: '<testId>',
    description: 'Prints the current version of the test, its questions with answer keys, and where it is published.',
    positionals: [1, 1],
    run: async ({ positionals: [testId] }, deps) => getTest((await deps.db()).pool, testId!),
  },
  publish: {
    summary: 'Publish a test to an institution',
    usage: '<testId> <institutionId>',
    description: "Publishes the test to the institution: it appears in the institution's GET /tests and can be assigned. Publishing twice is harmless.",
    positionals: [2, 2],
    async run({ positionals: [testId, institutionId] }, deps) {
      await publishTest((await deps.db()).pool, testId!, institutionId!, CLI_AUDIT);
      return `Published ${testId} to ${institutionId}.`;
    },
  },
  unpublish: {
    summary: 'Unpublish a test from an institution',
    usage: '<testId> <institutionId>',
    description: 'Unpublishes the test: no new assignments of it; existing ones continue.',
    positionals: [2, 2],
    async run({ positionals: [testId, institutionId] }, deps) {
      await unpublishTest((await deps.db()).pool, testId!, institutionId!, CLI_AUDIT);
      return `Unpublished ${testId} from ${institutionId}.`;
    },
  },
  'seed-demo': {
    summary: 'Seed the demo institution, tests and API key (npm run seed)',
    usage: '',
    description:
      'Seeds "Demo University" (callback domain partner.example) and its demo tests, once; later runs reuse them (and add a demo test that is new).\n' +
      'Prints a live demo key and a test-mode one (ak_test_). On the embedded database the demo keys of this checkout are reused\n' +
      'while they work (as npm start does). With DATABASE_URL each run prints new demo keys: keys are stored hashed, so an old one cannot be shown again.',
    positionals: [0, 0],
    async run(_args, deps) {
      const { pool, config, local } = await deps.db();
      const seed = await seedDemo(pool, local?.demoApiKey, local?.demoTestApiKey);
      if (local && (seed.apiKeyIsNew || seed.testApiKeyIsNew)) {
        saveLocalSecrets(config.dataDir, { ...local, demoApiKey: seed.apiKey, demoTestApiKey: seed.testApiKey });
      }
      return {
        institutionId: seed.institutionId,
        apiKey: seed.apiKey,
        apiKeyIsNew: seed.apiKeyIsNew,
        testApiKey: seed.testApiKey,
        testApiKeyIsNew: seed.testApiKeyIsNew,
        testIds: seed.testIds,
      };
    },
  },
  'reseal-secrets': {
    summary: 'Re-seal every webhook endpoint secret and LTI tool key under the first ASSAY_SECRET',
    usage: '',
    description:
      'Rewrites every webhook endpoint\'s stored signing secrets (current and previous) and the private key of every LTI\n' +
      'tool key (current and retired; report under "ltiToolKeys") in the current format under the\n' +
      'first secret of ASSAY_SECRET. Rotate ASSAY_SECRET by putting the new secret first and keeping the old ones after it,\n' +
      'restart, run this, and once it reports "unopenable": [] remove the old secrets. Running it again changes nothing.',
    positionals: [0, 0],
    async run(_args, deps) {
      const { pool, config } = await deps.db();
      if (!config.secrets) throw new Error('ASSAY_SECRET is not set: there is no key to seal with.');
      const report = await resealEndpointSecrets(pool, config.secrets);
      if (report.unopenable.length > 0) {
        deps.io.err(`${report.unopenable.length} endpoint secret(s) open with none of the configured ASSAY_SECRET values; keep the old secrets until they are dealt with.`);
      }
      const ltiToolKeys = await resealToolKeys(pool, config.secrets);
      if (ltiToolKeys.unopenable.length > 0) {
        deps.io.err(`${ltiToolKeys.unopenable.length} LTI tool key(s) open with none of the configured ASSAY_SECRET values; keep the old secrets until they are dealt with.`);
      }
      return { ...report, ltiToolKeys };
    },
  },
  migrate: {
    summary: 'Apply pending database migrations (npm run migrate)',
    usage: '',
    description:
      'Applies the migrations in migrations/ that have not run yet, each recorded with its checksum, and refuses if an\n' +
      'applied one was changed since. Every process also does this at boot unless ASSAY_MIGRATE=check, in which case\n' +
      'processes only check and this command (npm run migrate) is the deployment step that applies them.',
    positionals: [0, 0],
    async run(_args, deps) {
      const { migrationsApplied = [] } = await deps.db(); // connecting migrates, under an advisory lock shared with every other process
      const files = (await fs.readdir(MIGRATIONS_DIR)).filter((f) => /^\d{4}_.+\.sql$/.test(f)).sort();
      const applied = migrationsApplied.length > 0 ? `Applied ${migrationsApplied.join(', ')}. ` : '';
      return `${applied}The database is up to date (${files.length} migrations, the last ${files.at(-1) ?? 'none'}).`;
    },
  },
  ...STAFF_COMMANDS,
  ...LTI_COMMANDS,
  ...STORAGE_COMMANDS,
  ...FAILOVER_COMMANDS,
};
