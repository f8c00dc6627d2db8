import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { purgeStaffSignIns } from '../../src/modules/staff/purge-sign-ins.js';
import { createSoftAuthenticator } from '../helpers/soft-authenticator.js';
import { createStaffRig, csrfOf, type StaffRig } from '../helpers/staff-rig.js';

/**
 * Issue 20, item 6: asking for passkey registration options over and over
 * stores a bounded number of challenges per staff member (the oldest unused
 * ones are replaced), and unused challenges expire and are purged by the
 * hourly purge job.
 */
const ORIGIN = 'http://assay.test';
let r: StaffRig;
let staffId: string;

beforeAll(async () => {
  r = await createStaffRig();
  staffId = await r.invite(r.h.a.institutionId, 'cap@alpha.example', 'admin');
});
afterAll(() => r.close());

const challenges = async () =>
  (await r.h.pool.query(`SELECT count(*)::int AS n FROM webauthn_challenges WHERE staff_id = $1 AND purpose = 'register'`, [staffId])).rows[0].n as number;

describe('passkey registration challenges', () => {
  it('300 option calls keep at most 3 unused challenges; the newest still registers, the replaced ones do not', async () => {
    const b = r.browser();
    expect((await b.signIn('cap@alpha.example')).statusCode).toBe(303);
    const csrf = csrfOf((await b.get('/portal/account')).body);
    const options: Array<Record<string, unknown>> = [];
    for (let i = 0; i < 300; i++) {
      const res = await b.postJson('/portal/account/passkeys/options', {}, { 'x-csrf-token': csrf });
      expect(res.statusCode, res.body).toBe(200);
      options.push(res.json());
    }
    expect(await challenges()).toBe(3);
    const oldAuth = createSoftAuthenticator();
    const stale = await b.postJson('/portal/account/passkeys', { name: 'Old', response: oldAuth.register(options[0] as never, ORIGIN) }, { 'x-csrf-token': csrf });
    expect(stale.statusCode).toBe(400);
    const auth = createSoftAuthenticator();
    const added = await b.postJson('/portal/account/passkeys', { name: 'New', response: auth.register(options[299] as never, ORIGIN) }, { 'x-csrf-token': csrf });
    expect(added.statusCode, added.body).toBe(201);
    expect(await challenges()).toBe(2);
  });

  it('unused challenges expire after 5 minutes and the hourly purge deletes them', async () => {
    expect(await challenges()).toBeGreaterThan(0);
    await purgeStaffSignIns(r.h.pool, new Date(r.clock.now().getTime() + 5 * 60_000 + 1));
    expect(await challenges()).toBe(0);
  });
});
