import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run-cli.js';
import { listAudit } from '../../src/modules/staff/audit.js';
import { createStaffRig, type StaffRig } from '../helpers/staff-rig.js';

/**
 * `assay invite-staff` and `assay create-operator`: the same service as the
 * operator API, recorded in the audit log as the command line; the
 * operator's printed link signs them in to the portal.
 */
let r: StaffRig;

beforeAll(async () => {
  r = await createStaffRig();
});
afterAll(() => r.close());

async function cli(...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(
    argv,
    { out: (t) => out.push(t), err: (t) => err.push(t) },
    async () => ({ pool: r.h.pool, config: r.h.ctx.config, local: null, close: async () => undefined }),
    r.clock,
  );
  return { code, stdout: out.join('\n'), stderr: err.join('\n'), json: () => JSON.parse(out.join('\n')) };
}

describe('staff commands', () => {
  it('invite-staff creates the account and queues the invitation mail, recorded as the command line', async () => {
    const res = await cli('invite-staff', '--institution', r.h.a.institutionId, '--email', 'Cleo@Alpha.example', '--role', 'reviewer', '--name', 'Cleo');
    expect(res.code, res.stderr).toBe(0);
    expect(res.json()).toMatchObject({ email: 'cleo@alpha.example', role: 'reviewer', institutionId: r.h.a.institutionId, name: 'Cleo' });
    expect(res.stderr).toContain('Invitation queued for cleo@alpha.example');
    const [link] = await r.mailedLinks('cleo@alpha.example');
    expect(r.smtp.to('cleo@alpha.example')[0]!.text).toContain('the Assay operator invited you');
    expect((await r.browser().useLink(link!)).statusCode).toBe(303);
    const entries = (await listAudit(r.h.pool, { institutionId: r.h.a.institutionId, limit: 20 })).data;
    expect(entries.find((e) => e.action === 'staff.invited')).toMatchObject({ actorKind: 'cli', ip: null, objectId: res.json().staffId });
  });

  it('refuses bad arguments with the usage, and an unknown institution', async () => {
    expect((await cli('invite-staff', '--institution', r.h.a.institutionId, '--email', 'x@alpha.example', '--role', 'operator')).code).toBe(2);
    expect((await cli('invite-staff', '--email', 'x@alpha.example', '--role', 'admin')).code).toBe(2);
    const unknown = await cli('invite-staff', '--institution', 'ins_unknown', '--email', 'x@alpha.example', '--role', 'admin');
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toMatch(/institution/i);
    const bad = await cli('invite-staff', '--institution', r.h.a.institutionId, '--email', 'not an address', '--role', 'admin');
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('email');
  });

  it('create-operator prints a single-use sign-in link that opens the portal as an operator', async () => {
    const res = await cli('create-operator', '--email', 'ops@platform.example', '--name', 'Olive');
    expect(res.code, res.stderr).toBe(0);
    const body = res.json();
    expect(body).toMatchObject({ email: 'ops@platform.example', role: 'operator', institutionId: null });
    expect(body.signInUrl).toMatch(/^http:\/\/assay\.test\/portal\/sign-in\/link\/[0-9A-Za-z]{43}$/);
    const b = r.browser();
    expect((await b.useLink(body.signInUrl)).statusCode).toBe(303);
    const account = await b.get('/portal/account');
    expect(account.body).toContain('Operator: runs the platform');
    expect((await r.browser().useLink(body.signInUrl)).statusCode).toBe(410);
    // One operator account per address.
    expect((await cli('create-operator', '--email', 'OPS@platform.example')).code).not.toBe(0);
    const platform = (await listAudit(r.h.pool, { institutionId: null, limit: 50 })).data;
    expect(platform.find((e) => e.action === 'operator.created')).toMatchObject({ actorKind: 'cli', objectId: body.staffId, institutionId: null });
  });
});
