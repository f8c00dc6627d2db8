import type { BrowserContext } from 'playwright-core';
import { correctAnswer } from '../../src/modules/sandbox/simulated-answers.js';
import { fullPointsText } from '../../src/modules/catalog/accepted-answers.js';
import type { AnswerValue } from '../../src/modules/attempts/answer-values.js';
import type { Pool } from '../../src/platform/db.js';
import { DEMO_TESTS } from '../../src/demo/demo-tests.js';
import { createApiKey, revokeApiKey } from '../../src/modules/institutions/api-keys.js';
import { createInstitution } from '../../src/modules/institutions/institutions.js';
import { openMarkingItem } from '../../src/modules/marking/reviewer-marking.js';
import type { AuditContext } from '../../src/modules/staff/audit.js';
import { PORTAL_COOKIE, createPortalSession } from '../../src/modules/staff/portal-sessions.js';
import { createOperator, inviteStaff } from '../../src/modules/staff/staff-service.js';
import { createTest, getTest, publishTest } from '../../src/modules/catalog/tests-service.js';
import type { Question } from '../../src/modules/catalog/schemas.js';
import { createEndpoint } from '../../src/modules/webhooks/manage-endpoints.js';
import { createWebhookDispatcher } from '../../src/modules/webhooks/dispatcher.js';
import type { HttpApp } from '../../src/platform/http/create-http.js';
import type { ServerContext } from '../../src/server.js';
import { startReceiver } from '../helpers/webhook-receiver.js';

/**
 * A lived-in institution for the portal's screenshots and page checks:
 * staff of every role, keys (used, unused, revoked), callback domains, two
 * webhook endpoints (one healthy, one failing) with their delivery logs,
 * ~50 assignments in every state, taken through the real student pages,
 * with completions spread over two weeks, and essays waiting for marking.
 * Needs a config with allowInsecureUrls (the receiver is on loopback) and a
 * short webhook retry schedule.
 */
export interface PortalSeed {
  institutionId: string;
  otherInstitutionId: string;
  writingTestId: string;
  algebraTestId: string;
  markingItemId: string;
  completedId: string;
  endpointId: string;
  staff: Record<'admin' | 'reviewer' | 'viewer' | 'operator', { staffId: string; email: string }>;
  /** A browser context signed in as one of the staff. */
  signIn(context: BrowserContext, origin: string, who: keyof PortalSeed['staff']): Promise<void>;
}

const ESSAYS = [
  'Clear writing saves time: readers act on it sooner and ask fewer questions. It also shows respect for the reader.',
  'When instructions are clear, mistakes drop. I once rewrote a checklist and the error rate on our team fell by half.',
  'Good writing at work is short, concrete and ordered. It tells people what to do and why, in that order.',
  'Unclear emails create meetings. A clear one can replace a meeting altogether.',
  'Writing clearly is thinking clearly; the page shows where an argument is weak.',
];

function answerFor(q: Question, i: number): AnswerValue {
  switch (q.type) {
    case 'single_choice':
      return i % 4 === 0 ? q.options[0]!.id : q.correctOptionId;
    case 'multiple_choice':
      return i % 3 === 0 ? [q.options[0]!.id] : q.correctOptionIds;
    case 'short_text':
      return i % 5 === 0 ? 'fiv' : fullPointsText(q);
    case 'numeric':
      return i % 6 === 0 ? '3.2' : String(q.answer);
    case 'essay':
      return ESSAYS[i % ESSAYS.length]!;
    default:
      return correctAnswer(q);
  }
}

export async function seedPortal(app: HttpApp, ctx: ServerContext, pool: Pool): Promise<PortalSeed> {
  const cli: AuditContext = { actor: { kind: 'cli' }, ip: null };
  const inst = await createInstitution(pool, { name: 'Northfield University', callbackDomains: ['lms.northfield.example', '*.courses.northfield.example'] }, cli);
  const other = await createInstitution(pool, { name: 'Riverside College', callbackDomains: ['learn.riverside.example'] }, cli);
  const admin = await inviteStaff(ctx, { institutionId: inst.institutionId, email: 'ada.admin@northfield.example', name: 'Ada Admin', role: 'admin' }, cli);
  const adminAudit: AuditContext = { actor: { kind: 'staff', staffId: admin.staffId, email: admin.email }, ip: '198.51.100.24' };
  const reviewer = await inviteStaff(ctx, { institutionId: inst.institutionId, email: 'jo.reviewer@northfield.example', name: 'Jo Reviewer', role: 'reviewer' }, adminAudit);
  const viewer = await inviteStaff(ctx, { institutionId: inst.institutionId, email: 'sam.viewer@northfield.example', name: 'Sam Viewer', role: 'viewer' }, adminAudit);
  await inviteStaff(ctx, { institutionId: other.institutionId, email: 'ravi@riverside.example', name: 'Ravi Patel', role: 'admin' }, cli);
  const operator = await createOperator(ctx, { email: 'olu.operator@assay.example', name: 'Olu Operator' }, cli);

  const tests = [];
  for (const t of DEMO_TESTS) tests.push(await createTest(pool, t, cli));
  for (const t of tests) await publishTest(pool, t.testId, inst.institutionId, cli);
  await publishTest(pool, tests[0]!.testId, other.institutionId, cli);

  const { apiKey } = await createApiKey(pool, inst.institutionId, 'LMS production', adminAudit);
  await createApiKey(pool, inst.institutionId, 'Staging', adminAudit);
  const old = await createApiKey(pool, inst.institutionId, 'Pilot (2024)', adminAudit);
  await revokeApiKey(pool, inst.institutionId, old.record.keyId, ctx.clock.now(), adminAudit);

  const rx = await startReceiver();
  rx.respond = ({ path }) => (path === '/failing' ? { status: 503, body: '{"error":"maintenance window"}' } : { status: 200, body: '{"received":true}' });
  const healthy = await createEndpoint(ctx, inst.institutionId, { url: rx.url('/assay'), description: 'LMS grade sync', eventTypes: null });
  const failing = await createEndpoint(ctx, inst.institutionId, { url: rx.url('/failing'), description: 'Analytics (old)', eventTypes: ['exam.completed'] });

  const partner = (method: 'GET' | 'POST', url: string, body?: unknown) =>
    app.inject({
      method,
      url: `/api/partner/v1${url}`,
      headers: { authorization: `Bearer ${apiKey}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { payload: JSON.stringify(body) } : {}),
    });

  /** The student's side through the real pages: open the link, begin, answer, submit. */
  async function take(testId: string, who: string, i: number, stop: 'assigned' | 'started' | 'submitted'): Promise<string> {
    const created = await partner('POST', '/assignments', {
      externalUserId: who,
      testId,
      user: { email: `${who}@students.northfield.example` },
      callbackUrl: 'https://lms.northfield.example/assay/return',
      metadata: { course: i % 2 ? 'MATH-101' : 'COMM-201' },
    });
    const { assignmentId, startUrl } = created.json() as { assignmentId: string; startUrl: string };
    if (stop === 'assigned') return assignmentId;
    const opened = await app.inject({ method: 'GET', url: new URL(startUrl).pathname });
    const cookie = String(opened.headers['set-cookie']).split(';')[0]!;
    const csrfOf = async () => /name="csrf" value="([^"]+)"/.exec((await app.inject({ method: 'GET', url: `/a/${assignmentId}`, headers: { cookie } })).body)![1]!;
    const form = (path: string, csrf: string) =>
      app.inject({ method: 'POST', url: `/a/${assignmentId}/${path}`, headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' }, payload: `csrf=${csrf}` });
    await form('begin', await csrfOf());
    const csrf = await csrfOf();
    const test = await getTest(pool, testId);
    await app.inject({
      method: 'POST',
      url: `/a/${assignmentId}/answers`,
      headers: { cookie, 'content-type': 'application/json', 'x-csrf-token': csrf },
      payload: JSON.stringify({ answers: test.questions!.map((q) => ({ questionId: q.id, value: answerFor(q, i), version: 1 })) }),
    });
    if (stop === 'submitted') await form('submit', csrf);
    return assignmentId;
  }

  const [algebra, writing] = tests;
  const completed: string[] = [];
  for (let i = 1; i <= 34; i++) completed.push(await take(algebra!.testId, `student-${String(i).padStart(3, '0')}`, i, 'submitted'));
  const marking: string[] = [];
  for (let i = 1; i <= 5; i++) marking.push(await take(writing!.testId, `writer-${String(i).padStart(3, '0')}`, i, 'submitted'));
  for (let i = 1; i <= 3; i++) await take(algebra!.testId, `late-${String(i).padStart(3, '0')}`, i, 'started');
  for (let i = 1; i <= 7; i++) await take(i % 2 ? algebra!.testId : writing!.testId, `new-${String(i).padStart(3, '0')}`, i, 'assigned');

  // The integration's sandbox: a test key, and test-mode runs played through simulate (one marked at once, one waiting for marking).
  const { apiKey: testKey } = await createApiKey(pool, inst.institutionId, 'LMS staging (test mode)', adminAudit, 'test');
  const sandbox = (method: 'POST', url: string, body: unknown) =>
    app.inject({ method, url: `/api/partner/v1${url}`, headers: { authorization: `Bearer ${testKey}`, 'content-type': 'application/json' }, payload: JSON.stringify(body) });
  for (const [testId, who] of [[algebra!.testId, 'sandbox-001'], [writing!.testId, 'sandbox-002']] as const) {
    const created = await sandbox('POST', '/assignments', { externalUserId: who, testId, user: { email: `${who}@dev.northfield.example` }, callbackUrl: 'https://lms.northfield.example/assay/return' });
    const { assignmentId } = created.json() as { assignmentId: string };
    await sandbox('POST', `/assignments/${assignmentId}/simulate`, { action: 'start' });
    await sandbox('POST', `/assignments/${assignmentId}/simulate`, { action: 'submit', score: 75 });
  }

  // Deliver what the lifecycle queued: the healthy endpoint succeeds, the failing one runs out of retries.
  const dispatcher = createWebhookDispatcher({ connectionString: ctx.config.databaseUrl!, clock: ctx.clock, config: ctx.config });
  await dispatcher.start();
  const settled = async () => (await pool.query<{ n: number }>("SELECT count(*)::int AS n FROM webhook_deliveries WHERE status = 'pending'")).rows[0]!.n === 0;
  for (let waited = 0; !(await settled()) && waited < 30_000; waited += 100) await new Promise((r) => setTimeout(r, 100));
  await dispatcher.stop();
  await rx.close();

  // Test data only: spread the completions over two weeks (and show the endpoints under their public names).
  await pool.query(
    `UPDATE assignments a SET created_at = a.created_at - make_interval(days => d.n::int, hours => 3),
            started_at = a.started_at - make_interval(days => d.n::int), submitted_at = a.submitted_at - make_interval(days => d.n::int),
            completed_at = a.completed_at - make_interval(days => d.n::int)
       FROM (SELECT id, (row_number() OVER (ORDER BY id) * 7) % 13 AS n FROM assignments WHERE id = ANY ($1)) d WHERE a.id = d.id`,
    [completed],
  );
  await pool.query(
    `WITH shifted AS (
       SELECT a.id, a.completed_at - e.created_at AS by FROM assignments a
         JOIN events e ON e.assignment_id = a.id AND e.type = 'exam.completed' WHERE a.id = ANY ($1)),
     ev AS (UPDATE events e SET created_at = e.created_at + s.by FROM shifted s WHERE e.assignment_id = s.id RETURNING e.id, s.by)
     UPDATE webhook_attempts t SET attempted_at = t.attempted_at + ev.by
       FROM webhook_deliveries d JOIN ev ON ev.id = d.event_id WHERE t.delivery_id = d.id`,
    [completed],
  );
  await pool.query("UPDATE webhook_endpoints SET url = 'https://lms.northfield.example/assay/webhooks' WHERE id = $1", [healthy.endpointId]);
  await pool.query(
    `WITH shifted AS (
       SELECT a.id, a.completed_at - e.created_at AS by FROM assignments a
         JOIN events e ON e.assignment_id = a.id AND e.type = 'exam.completed' WHERE a.id = ANY ($1)),
     ev AS (UPDATE events e SET created_at = e.created_at + s.by FROM shifted s WHERE e.assignment_id = s.id RETURNING e.id, s.by)
     UPDATE webhook_attempts t SET attempted_at = t.attempted_at + ev.by
       FROM webhook_deliveries d JOIN ev ON ev.id = d.event_id WHERE t.delivery_id = d.id`,
    [completed],
  );
  await pool.query("UPDATE webhook_endpoints SET url = 'https://analytics.northfield.example/hooks/assay' WHERE id = $1", [failing.endpointId]);
  await pool.query('UPDATE staff SET last_sign_in_at = now() - interval \'2 hours\' WHERE id = ANY ($1)', [[admin.staffId, reviewer.staffId]]);

  await openMarkingItem(ctx, inst.institutionId, marking[0]!, { staffId: reviewer.staffId, label: 'Jo Reviewer' });

  const staff = {
    admin: { staffId: admin.staffId, email: admin.email },
    reviewer: { staffId: reviewer.staffId, email: reviewer.email },
    viewer: { staffId: viewer.staffId, email: viewer.email },
    operator: { staffId: operator.staffId, email: operator.email },
  };
  return {
    institutionId: inst.institutionId,
    otherInstitutionId: other.institutionId,
    algebraTestId: algebra!.testId,
    writingTestId: writing!.testId,
    markingItemId: marking[0]!,
    completedId: completed[1]!,
    endpointId: healthy.endpointId,
    staff,
    async signIn(context, origin, who) {
      const { sessionId } = await createPortalSession(pool, { staffId: staff[who].staffId, method: 'link', now: ctx.clock.now() });
      await context.clearCookies();
      await context.addCookies([{ name: PORTAL_COOKIE, value: sessionId, domain: new URL(origin).hostname, path: '/portal', httpOnly: true, sameSite: 'Strict' }]);
    },
  };
}
