import { buildServer, PARTNER_PREFIX } from '../src/server.js';

type App = Awaited<ReturnType<typeof buildServer>>;

/**
 * One simulated student, seated as a browser would be: the partner creates the
 * assignment, the student opens the start link (session cookie), loads the
 * page (CSRF token) and presses Begin. Shared by the benchmark servers.
 */
export async function seatStudent(
  app: App,
  p: { apiKey: string; testId: string; externalUserId: string; email: string },
): Promise<{ assignmentId: string; cookie: string; csrf: string }> {
  const created = await app.inject({
    method: 'POST',
    url: `${PARTNER_PREFIX}/assignments`,
    headers: { authorization: `Bearer ${p.apiKey}`, 'content-type': 'application/json' },
    payload: { externalUserId: p.externalUserId, testId: p.testId, user: { email: p.email }, callbackUrl: 'https://bench.example/back' },
  });
  if (created.statusCode !== 201) throw new Error(`create: ${created.body}`);
  const { assignmentId, startUrl } = created.json() as { assignmentId: string; startUrl: string };
  const opened = await app.inject({ method: 'GET', url: new URL(startUrl).pathname });
  const cookie = String(opened.headers['set-cookie']).split(';')[0]!;
  const page = await app.inject({ method: 'GET', url: `/a/${assignmentId}`, headers: { cookie } });
  const csrf = /name="csrf" value="([^"]+)"/.exec(page.body)![1]!;
  const begun = await app.inject({
    method: 'POST',
    url: `/a/${assignmentId}/begin`,
    headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
    payload: `csrf=${csrf}`,
  });
  if (begun.statusCode !== 303) throw new Error(`begin: ${begun.statusCode}`);
  return { assignmentId, cookie, csrf };
}
