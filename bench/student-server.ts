import { createPool } from '../src/platform/db.js';
import { systemClock } from '../src/platform/clock.js';
import { migrate } from '../src/platform/migrate.js';
import { createApiKey } from '../src/modules/institutions/api-keys.js';
import { createInstitution } from '../src/modules/institutions/institutions.js';
import { createTest, publishTest } from '../src/modules/tests/tests-service.js';
import { buildServer, serverContext } from '../src/server.js';
import { seatStudent } from './seat-student.js';
import { benchAppConfig } from './bench-database.js';

/**
 * The server side of bench/student-autosave.ts, in its own process so the
 * simulated students do not share its event loop. Seeds one institution and
 * one test, then for each student: creates the assignment through the
 * partner API, opens the start link, reads the page's CSRF token and
 * presses Begin, exactly as a browser would. Reports the sessions to the
 * parent and serves the real app on a loopback port.
 */
export interface StudentSeat {
  assignmentId: string;
  cookie: string;
  csrf: string;
}
export interface StudentServerReady {
  url: string;
  questionId: string;
  seats: StudentSeat[];
}

const [databaseUrl, studentsArg, poolArg] = process.argv.slice(2);
if (!databaseUrl || !process.send) throw new Error('bench/student-server.ts is started by bench/student-autosave.ts');
const students = Number(studentsArg);

const pool = createPool(databaseUrl, Number(poolArg));
await migrate(pool);
const institution = await createInstitution(pool, { name: 'Bench College', callbackDomains: ['bench.example'] });
const { apiKey } = await createApiKey(pool, institution.institutionId, 'bench');
const test = await createTest(pool, {
  title: 'Autosave load',
  description: 'One written answer, saved over and over.',
  durationMinutes: 60,
  proctoring: 'none',
  marking: 'auto',
  resultVisibility: 'immediate',
  passPercent: null,
  questions: [{ id: 'answer', type: 'short_text', prompt: 'Type anything', points: 1, acceptedAnswers: ['anything'] }],
});
await publishTest(pool, test.testId, institution.institutionId);

const config = benchAppConfig(databaseUrl);
const app = await buildServer(serverContext({ config, pool, clock: systemClock }));
// Time inside the app for each save, from request received to response sent: tells the app's share of the latency from the rest.
const serverMs: number[] = [];
app.addHook('onResponse', async (request, reply) => {
  if (request.method === 'POST' && request.url.endsWith('/answers')) serverMs.push(reply.elapsedTime);
});

async function seat(i: number): Promise<StudentSeat> {
  const { assignmentId, cookie, csrf } = await seatStudent(app, { apiKey, testId: test.testId, externalUserId: `student-${i}`, email: `s${i}@bench.example` });
  return { assignmentId, cookie, csrf };
}

const seats: StudentSeat[] = [];
for (let i = 0; i < students; i += 50) {
  seats.push(...(await Promise.all(Array.from({ length: Math.min(50, students - i) }, (_, j) => seat(i + j)))));
}
const url = await app.listen({ port: 0, host: '127.0.0.1' });
const ready: StudentServerReady = { url, questionId: 'answer', seats };
process.send(ready);
// CPU time of this process on request: CPU per save, unlike latency, barely moves when other work shares the machine.
process.on('message', (m) => {
  if (m === 'cpu') process.send!({ cpu: process.cpuUsage(), serverMs: serverMs.splice(0) });
});

async function stop() {
  await app.close();
  await pool.end();
  process.exit(0);
}
process.on('SIGTERM', () => void stop());
process.on('disconnect', () => void stop());
