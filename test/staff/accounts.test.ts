import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listAudit, type AuditContext } from '../../src/modules/staff/audit.js';
import { changeStaffRole, inviteStaff, listStaff, removeStaff } from '../../src/modules/staff/staff-service.js';
import { createStaffRig, type StaffRig } from '../helpers/staff-rig.js';

/**
 * The staff service behind the portal's Staff page: role changes and
 * removal with their audit entries, the last-admin rule, and tenancy
 * (another institution's staff member is not found).
 */
let r: StaffRig;
const asAdmin: AuditContext = { actor: { kind: 'staff', staffId: 'stf_admin', email: 'head@alpha.example' }, ip: '198.51.100.1' };

beforeAll(async () => {
  r = await createStaffRig();
});
afterAll(() => r.close());

describe('staff accounts', () => {
  it('changes a role (the next request sees it) and records who did it', async () => {
    const head = await inviteStaff(r.h.ctx, { institutionId: r.h.a.institutionId, email: 'head@alpha.example', role: 'admin' }, asAdmin);
    const val = await inviteStaff(r.h.ctx, { institutionId: r.h.a.institutionId, email: 'val@alpha.example', role: 'viewer' }, asAdmin);
    await r.h.runJobs();
    const b = r.browser();
    expect((await b.signIn('val@alpha.example')).statusCode).toBe(303);
    expect((await b.get('/portal/account')).body).toContain('Viewer: can read');

    const changed = await changeStaffRole(r.h.ctx, { institutionId: r.h.a.institutionId, staffId: val.staffId, role: 'reviewer' }, asAdmin);
    expect(changed.role).toBe('reviewer');
    expect((await b.get('/portal/account')).body).toContain('Reviewer: marking');
    const entry = (await listAudit(r.h.pool, { institutionId: r.h.a.institutionId, limit: 10 })).data.find((e) => e.action === 'staff.role_changed')!;
    expect(entry).toMatchObject({ actorKind: 'staff', actorEmail: 'head@alpha.example', ip: '198.51.100.1', objectId: val.staffId, details: { from: 'viewer', to: 'reviewer' } });
    await expect(changeStaffRole(r.h.ctx, { institutionId: r.h.a.institutionId, staffId: val.staffId, role: 'operator' }, asAdmin)).rejects.toMatchObject({ status: 400 });
    expect(head.role).toBe('admin');
  });

  it('keeps at least one admin: the last one can be neither demoted nor removed', async () => {
    const [head] = (await listStaff(r.h.pool, r.h.a.institutionId)).filter((s) => s.role === 'admin');
    await expect(changeStaffRole(r.h.ctx, { institutionId: r.h.a.institutionId, staffId: head!.staffId, role: 'viewer' }, asAdmin)).rejects.toMatchObject({ code: 'invalid_state' });
    await expect(removeStaff(r.h.ctx, { institutionId: r.h.a.institutionId, staffId: head!.staffId }, asAdmin)).rejects.toMatchObject({ code: 'invalid_state' });
    const second = await inviteStaff(r.h.ctx, { institutionId: r.h.a.institutionId, email: 'deputy@alpha.example', role: 'admin' }, asAdmin);
    await removeStaff(r.h.ctx, { institutionId: r.h.a.institutionId, staffId: head!.staffId }, asAdmin);
    expect((await listStaff(r.h.pool, r.h.a.institutionId)).map((s) => s.email)).not.toContain('head@alpha.example');
    await expect(removeStaff(r.h.ctx, { institutionId: r.h.a.institutionId, staffId: second.staffId }, asAdmin)).rejects.toMatchObject({ code: 'invalid_state' });
    // A removed address can be invited again.
    const again = await inviteStaff(r.h.ctx, { institutionId: r.h.a.institutionId, email: 'HEAD@alpha.example', role: 'viewer' }, asAdmin);
    expect(again.staffId).not.toBe(head!.staffId);
  });

  it("does not reach another institution's staff (404), and writes nothing when refused", async () => {
    const bea = await inviteStaff(r.h.ctx, { institutionId: r.h.b.institutionId, email: 'bea@beta.example', role: 'admin' }, asAdmin);
    const before = (await listAudit(r.h.pool, { institutionId: null, limit: 200 })).data.length;
    await expect(changeStaffRole(r.h.ctx, { institutionId: r.h.a.institutionId, staffId: bea.staffId, role: 'viewer' }, asAdmin)).rejects.toMatchObject({ status: 404 });
    await expect(removeStaff(r.h.ctx, { institutionId: r.h.a.institutionId, staffId: bea.staffId }, asAdmin)).rejects.toMatchObject({ status: 404 });
    await expect(inviteStaff(r.h.ctx, { institutionId: 'ins_nope', email: 'x@y.example', role: 'admin' }, asAdmin)).rejects.toMatchObject({ status: 404 });
    expect((await listAudit(r.h.pool, { institutionId: null, limit: 200 })).data.length).toBe(before);
    expect((await listStaff(r.h.pool, r.h.b.institutionId)).map((s) => [s.email, s.role])).toEqual([['bea@beta.example', 'admin']]);
  });
});
