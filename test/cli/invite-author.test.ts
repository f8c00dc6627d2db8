import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run-cli.js';
import { createStaffRig, type StaffRig } from '../helpers/staff-rig.js';

/**
 * The author role through the invitation flow: `assay invite-staff --role
 * author` creates the account and mails "as an author"; the link signs the
 * author in, and the portal shows them the Tests page.
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
  return { code, stderr: err.join('\n'), json: () => JSON.parse(out.join('\n')) };
}

describe('inviting an author', () => {
  it('creates the account with the author role and mails the link, which signs them in to a portal with Tests', async () => {
    const res = await cli('invite-staff', '--institution', r.h.a.institutionId, '--email', 'ada@alpha.example', '--role', 'author');
    expect(res.code, res.stderr).toBe(0);
    expect(res.json()).toMatchObject({ email: 'ada@alpha.example', role: 'author', institutionId: r.h.a.institutionId });
    const [link] = await r.mailedLinks('ada@alpha.example');
    expect(r.smtp.to('ada@alpha.example')[0]!.text).toContain('as an author');
    const browser = r.browser();
    expect((await browser.useLink(link!)).statusCode).toBe(303);
    const tests = await browser.get('/portal/tests');
    expect(tests.statusCode).toBe(200);
    expect(tests.body).toContain("Your institution's own tests");
  });

  it('names the author role in the usage when the role is unknown', async () => {
    const res = await cli('invite-staff', '--institution', r.h.a.institutionId, '--email', 'x@alpha.example', '--role', 'writer');
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('admin, author, reviewer or viewer');
  });
});
