import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listAudit } from '../../src/modules/staff/audit.js';
import { AUTO_TEST, createHarness, type Harness } from '../helpers/harness.js';
import { detailFields, expectError } from '../helpers/expect-error.js';
import { linksIn, startSmtpSink, type SmtpSink } from '../helpers/smtp-sink.js';
import { ALL_TYPES_TEST, Student, assign, createPublishedTest } from '../helpers/student.js';

/**
 * The operator API's staff invitation (docs/portal.md), with the
 * invitation mail received by a real SMTP server, and the audit entry that
 * every operator API change writes.
 */
let h: Harness;
let smtp: SmtpSink;
const A = '/api/admin/v1';

beforeAll(async () => {
  smtp = await startSmtpSink();
  h = await createHarness({ config: { mail: { smtpUrl: smtp.url, from: 'Assay <no-reply@assay.test>' } } });
});
afterAll(async () => {
  await h.close();
  await smtp.close();
});

const staffCount = async () => (await h.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM staff')).rows[0]!.n;
const jobCount = async () => (await h.pool.query<{ n: number }>("SELECT count(*)::int AS n FROM jobs WHERE kind = 'staff.sign_in_mail'")).rows[0]!.n;
const entries = async (institutionId: string | null) => (await listAudit(h.pool, { institutionId, limit: 200 })).data;

describe('POST /api/admin/v1/institutions/{id}/staff', () => {
  it('creates the account (201), emails a sign-in link over SMTP, and writes an audit entry', async () => {
    const res = await h.admin('POST', `${A}/institutions/${h.a.institutionId}/staff`, { email: ' Ada.Admin@Alpha.Example ', name: 'Ada', role: 'admin' });
    expect(res.statusCode, res.body).toBe(201);
    const body = res.json();
    expect(body).toMatchObject({ institutionId: h.a.institutionId, email: 'ada.admin@alpha.example', name: 'Ada', role: 'admin', lastSignInAt: null });
    expect(body.staffId).toMatch(/^stf_[0-9A-Za-z]{22}$/);
    expect(Object.keys(body).sort()).toEqual(['createdAt', 'email', 'institutionId', 'lastSignInAt', 'name', 'role', 'staffId']);

    const before = smtp.messages.length;
    await h.runJobs();
    await smtp.waitFor(before + 1);
    const [mail] = smtp.to('ada.admin@alpha.example');
    expect(mail!.from).toBe('no-reply@assay.test');
    expect(mail!.subject).toBe('You are invited to the Assay portal of Alpha College');
    expect(mail!.text).toContain('the Assay operator invited you');
    const links = linksIn(mail!);
    expect(links).toHaveLength(1);
    expect(links[0]).toMatch(/^http:\/\/assay\.test\/portal\/sign-in\/link\/[0-9A-Za-z]{43}$/);
    // Only the hash is stored.
    const token = links[0]!.split('/').pop()!;
    const stored = await h.pool.query('SELECT token_hash FROM sign_in_links');
    expect(JSON.stringify(stored.rows)).not.toContain(token);

    const [entry] = (await entries(h.a.institutionId)).filter((e) => e.action === 'staff.invited');
    expect(entry).toMatchObject({ actorKind: 'operator_token', objectType: 'staff', objectId: body.staffId, institutionId: h.a.institutionId, details: { email: 'ada.admin@alpha.example', role: 'admin' } });
    expect(entry!.ip).toBe('127.0.0.1');
  });

  it('lists the institution staff, and only theirs', async () => {
    await h.admin('POST', `${A}/institutions/${h.b.institutionId}/staff`, { email: 'bea@beta.example', role: 'viewer' });
    const a = await h.admin('GET', `${A}/institutions/${h.a.institutionId}/staff`);
    expect(a.statusCode).toBe(200);
    expect(a.json().data.map((s: { email: string }) => s.email)).toEqual(['ada.admin@alpha.example']);
    const b = await h.admin('GET', `${A}/institutions/${h.b.institutionId}/staff`);
    expect(b.json().data.map((s: { email: string }) => s.email)).toEqual(['bea@beta.example']);
  });

  it('refuses bad bodies with the 400 envelope and changes nothing', async () => {
    const url = `${A}/institutions/${h.a.institutionId}/staff`;
    const staff = await staffCount();
    const jobs = await jobCount();
    const cases: Array<[unknown, string]> = [
      [{ email: 'x@alpha.example' }, 'role'],
      [{ email: 'x@alpha.example', role: 'operator' }, 'role'],
      [{ email: 'x@alpha.example', role: 'owner' }, 'role'],
      [{ role: 'viewer' }, 'email'],
      [{ email: 'not-an-address', role: 'viewer' }, 'email'],
      [{ email: 'x@alpha.example', role: 'viewer', extra: 1 }, 'extra'],
      [{ email: 'x@alpha.example', role: 'viewer', name: '' }, 'name'],
      // The same address in another case: one account per address and institution.
      [{ email: 'ADA.ADMIN@alpha.example', role: 'viewer' }, 'email'],
    ];
    for (const [body, field] of cases) {
      const res = await h.admin('POST', url, body);
      expectError(res, 400, 'invalid_request');
      expect(detailFields(res).join(' '), JSON.stringify(body)).toContain(field);
    }
    const notJson = await h.app.inject({ method: 'POST', url, headers: { authorization: `Bearer test-admin-token-0123456789abcdef`, 'content-type': 'text/plain' }, payload: 'email=x' });
    expectError(notJson, 415, 'unsupported_media_type');
    expect(await staffCount()).toBe(staff);
    expect(await jobCount()).toBe(jobs);
  });

  it('answers 404 for an unknown institution, and 401 without the operator token', async () => {
    const staff = await staffCount();
    expectError(await h.admin('POST', `${A}/institutions/ins_doesnotexist/staff`, { email: 'x@y.example', role: 'admin' }), 404, 'not_found');
    expectError(await h.admin('GET', `${A}/institutions/ins_doesnotexist/staff`), 404, 'not_found');
    expectError(await h.partner(h.a, 'POST', `${A}/institutions/${h.a.institutionId}/staff`, { email: 'x@y.example', role: 'admin' }), 401, 'unauthenticated');
    expect(await staffCount()).toBe(staff);
  });
});

describe('audit entries for operator API changes', () => {
  it('records institutions, domains, keys, tests, publications and webhook endpoints as the operator token, without secrets', async () => {
    const inst = (await h.admin('POST', `${A}/institutions`, { name: 'Gamma Institute', callbackDomains: ['gamma.example'] })).json();
    const id = inst.institutionId as string;
    expect((await h.admin('PUT', `${A}/institutions/${id}/callback-domains`, { domains: ['lms.gamma.example'] })).statusCode).toBe(200);
    const key = (await h.admin('POST', `${A}/institutions/${id}/api-keys`, { label: 'LMS' })).json();
    expect((await h.admin('DELETE', `${A}/institutions/${id}/api-keys/${key.keyId}`)).statusCode).toBe(204);
    expect((await h.admin('PUT', `${A}/institutions/${id}/status`, { status: 'suspended' })).statusCode).toBe(200);
    expect((await h.admin('PUT', `${A}/institutions/${id}/status`, { status: 'active' })).statusCode).toBe(200);
    const test = (await h.admin('POST', `${A}/tests`, AUTO_TEST)).json();
    expect((await h.admin('PUT', `${A}/tests/${test.testId}`, { ...AUTO_TEST, title: 'Arithmetic II' })).statusCode).toBe(200);
    expect((await h.admin('PUT', `${A}/tests/${test.testId}/publications/${id}`)).statusCode).toBe(204);
    expect((await h.admin('DELETE', `${A}/tests/${test.testId}/publications/${id}`)).statusCode).toBe(204);
    const endpoint = (await h.partner(h.a, 'POST', '/api/partner/v1/webhook-endpoints', { url: 'https://hooks.alpha.example/assay' })).json();
    expect((await h.admin('POST', `${A}/webhook-endpoints/${endpoint.endpointId}/disable`)).statusCode).toBe(200);
    expect((await h.admin('POST', `${A}/webhook-endpoints/${endpoint.endpointId}/enable`)).statusCode).toBe(200);
    // Refused changes write nothing.
    expect((await h.admin('DELETE', `${A}/institutions/${id}/api-keys/key_unknown`)).statusCode).toBe(404);
    expect((await h.admin('PUT', `${A}/tests/tst_unknown/publications/${id}`)).statusCode).toBe(404);

    const mine = (await entries(id)).reverse();
    expect(mine.map((e) => [e.action, e.objectId])).toEqual([
      ['institution.created', id],
      ['callback_domains.replaced', id],
      ['api_key.created', key.keyId],
      ['api_key.revoked', key.keyId],
      ['institution.suspended', id],
      ['institution.reactivated', id],
      ['test.published', test.testId],
      ['test.unpublished', test.testId],
    ]);
    expect(mine.every((e) => e.actorKind === 'operator_token' && e.actorId === null && e.ip === '127.0.0.1')).toBe(true);
    expect(mine[1]!.details).toEqual({ before: ['gamma.example'], after: ['lms.gamma.example'] });
    expect(JSON.stringify(mine)).not.toContain(key.apiKey);

    const platform = await entries(null);
    const testEntries = platform.filter((e) => e.objectId === test.testId && e.institutionId === null).map((e) => e.action);
    expect(testEntries.sort()).toEqual(['test.created', 'test.updated']);
    const endpointEntries = platform.filter((e) => e.objectId === endpoint.endpointId).map((e) => [e.action, e.institutionId]);
    expect(endpointEntries.sort()).toEqual([
      ['webhook_endpoint.disabled', h.a.institutionId],
      ['webhook_endpoint.enabled', h.a.institutionId],
    ]);
  });

  it('records marks sent with the operator token as automation (operator-token:<name>), never as a person', async () => {
    const testId = await createPublishedTest(h, h.a, ALL_TYPES_TEST);
    const a = await assign(h, h.a, { testId, externalUserId: 'marks-audit' });
    const s = new Student(h);
    await s.start(a.startUrl);
    await s.page(a.assignmentId);
    expect((await s.save(a.assignmentId, [{ questionId: 'es', value: 'An essay.', version: 1 }])).statusCode).toBe(200);
    expect((await s.submit(a.assignmentId)).statusCode).toBe(303);

    const url = `${A}/assignments/${a.assignmentId}/marks`;
    const draft = await h.admin('POST', url, { marks: [{ questionId: 'es', points: 4 }], complete: false, markedBy: 'lms-sync' });
    expect(draft.statusCode, draft.body).toBe(200);
    expect(draft.json().items.find((i: { questionId: string }) => i.questionId === 'es').mark.markedBy).toBe('operator-token:lms-sync');
    const done = await h.admin('POST', url, { marks: [{ questionId: 'es', points: 5 }], complete: true });
    expect(done.statusCode, done.body).toBe(200);
    expect(done.json().items.find((i: { questionId: string }) => i.questionId === 'es').mark.markedBy).toBe('operator-token');
    // A refused request (marking is over) records nothing.
    expect((await h.admin('POST', url, { marks: [], complete: true })).statusCode).toBe(409);

    const mine = (await entries(h.a.institutionId)).filter((e) => e.objectId === a.assignmentId).reverse();
    expect(mine.map((e) => [e.action, e.actorKind, e.details.markedBy])).toEqual([
      ['marks.recorded', 'operator_token', 'operator-token:lms-sync'],
      ['marking.completed', 'operator_token', 'operator-token'],
    ]);
    expect(mine[1]!.details.marks).toEqual([{ questionId: 'es', points: 5 }]);
  });

  it('pages the log newest first without repeating or skipping an entry', async () => {
    const all = (await listAudit(h.pool, { institutionId: null, limit: 200 })).data;
    const seen: number[] = [];
    let before: number | null = null;
    do {
      const page: Awaited<ReturnType<typeof listAudit>> = await listAudit(h.pool, { institutionId: null, limit: 3, before });
      seen.push(...page.data.map((e) => e.id));
      before = page.nextBefore;
    } while (before !== null);
    expect(seen).toEqual(all.map((e) => e.id));
  });
});
