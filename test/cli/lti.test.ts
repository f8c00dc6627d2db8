import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run-cli.js';
import { listAudit } from '../../src/modules/staff/audit.js';
import { createHarness, type Harness } from '../helpers/harness.js';

/** The LTI commands: the operator API's services from the shell, recorded in the audit log as the command line. */
let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(() => h?.close());

async function cli(...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(argv, { out: (t) => out.push(t), err: (t) => err.push(t) }, async () => ({ pool: h.pool, config: h.ctx.config, local: null, close: async () => undefined }), h.clock);
  return { code, stdout: out.join('\n'), stderr: err.join('\n'), json: () => JSON.parse(out.join('\n')) };
}

const platformArgs = (institutionId: string, clientId = 'cli-client') => [
  'add-lti-platform', '--institution', institutionId, '--issuer', 'https://moodle.example.edu', '--client-id', clientId,
  '--deployment', '1', '--deployment', '2',
  '--login-url', 'https://moodle.example.edu/mod/lti/auth.php', '--token-url', 'https://moodle.example.edu/mod/lti/token.php', '--jwks-url', 'https://moodle.example.edu/mod/lti/certs.php',
];

describe('LTI commands', () => {
  it('add-lti-platform registers the platform and prints the tool URLs; list and remove follow', async () => {
    const added = await cli(...platformArgs(h.a.institutionId));
    expect(added.code, added.stderr).toBe(0);
    expect(added.json()).toMatchObject({ institutionId: h.a.institutionId, clientId: 'cli-client', deploymentIds: ['1', '2'], tool: { loginUrl: 'http://assay.test/lti/login' } });
    const id = added.json().ltiPlatformId;
    expect((await cli('list-lti-platforms', h.a.institutionId)).json().data.map((p: { ltiPlatformId: string }) => p.ltiPlatformId)).toEqual([id]);
    const audit = (await listAudit(h.pool, { institutionId: h.a.institutionId, limit: 20 })).data;
    expect(audit.find((e) => e.action === 'lti_platform.registered')).toMatchObject({ actorKind: 'cli', objectId: id });
    expect((await cli('remove-lti-platform', h.a.institutionId, id)).code).toBe(0);
    expect((await cli('list-lti-platforms', h.a.institutionId)).json().data).toEqual([]);
  });

  it('refuses a missing deployment, a private URL and an unknown institution, storing nothing', async () => {
    const noDeployment = await cli(...platformArgs(h.a.institutionId).filter((a, i, all) => a !== '--deployment' && all[i - 1] !== '--deployment'));
    expect(noDeployment.code).toBe(2);
    expect(noDeployment.stderr).toContain('--deployment is required');
    const privateUrl = await cli(...platformArgs(h.a.institutionId).map((a) => (a.endsWith('certs.php') ? 'https://192.168.1.5/certs' : a)));
    expect(privateUrl.code).not.toBe(0);
    expect(privateUrl.stderr).toContain('jwksUrl');
    expect((await cli(...platformArgs('ins_unknown'))).code).not.toBe(0);
    expect((await h.pool.query('SELECT count(*)::int AS n FROM lti_platforms')).rows[0].n).toBe(0);
  });

  it('lti-registration-url prints a one-time URL; rotate-lti-key makes a new current key', async () => {
    const invite = await cli('lti-registration-url', h.a.institutionId);
    expect(invite.code, invite.stderr).toBe(0);
    expect(invite.json().registrationUrl).toMatch(/^http:\/\/assay\.test\/lti\/register\?invite=[0-9A-Za-z]{32}$/);
    const first = await cli('rotate-lti-key');
    const second = await cli('rotate-lti-key');
    expect(first.code, first.stderr).toBe(0);
    expect(second.json().kid).not.toBe(first.json().kid);
    const keys = await h.pool.query('SELECT kid FROM lti_tool_keys WHERE retired_at IS NULL');
    expect(keys.rows).toEqual([{ kid: second.json().kid }]);
  });
});
