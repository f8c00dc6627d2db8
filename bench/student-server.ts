import fs from 'node:fs';
import { Session } from 'node:inspector/promises';
import path from 'node:path';
import Fastify from 'fastify';
import { createPool } from '../src/platform/db.js';
import { systemClock } from '../src/platform/clock.js';
import { migrate } from '../src/platform/migrate.js';
import { createApiKey } from '../src/modules/institutions/api-keys.js';
import { createInstitution } from '../src/modules/institutions/institutions.js';
import { createTest, publishTest } from '../src/modules/catalog/tests-service.js';
import { buildServer, serverContext } from '../src/server.js';
import { saveBatchTotals } from '../src/platform/telemetry/metrics.js';
import { allQuestions } from '../src/modules/catalog/sections.js';
import type { Question } from '../src/modules/catalog/schemas.js';
import type { Delivery } from '../src/modules/catalog/delivery.js';
import { seatStudent } from './seat-student.js';
import { benchAppConfig } from './bench-database.js';
import { pooledTest } from './pooled-test.js';
import { buildBatchedBareSave } from './batched-bare-save.js';

/**
 * The server side of bench/student-autosave.ts, in its own process so the
 * simulated students do not share its event loop. Seeds one institution and
 * one test, then for each student: creates the assignment through the
 * partner API, opens the start link, reads the page's CSRF token and
 * presses Begin, exactly as a browser would. Reports the sessions to the
 * parent and serves the real app on a loopback port. With `pooled` on, seats
 * as many students again on the pooled, sectioned test (bench/pooled-test.ts)
 * and reports, for each, the questions drawn for them when they began.
 */
export interface StudentSeat {
  assignmentId: string;
  cookie: string;
  csrf: string;
  /** Pooled test: the autosaved questions drawn for this student (file_upload left out), in shown order. */
  questionIds?: string[];
}
export interface StudentServerReady {
  url: string;
  /** The bare baseline: Fastify and pg, the same upsert, nothing else (see bareSave below). */
  baselineUrl: string;
  /** The same upsert, bare, with the saves of one event-loop turn in one statement (batched-bare-save.ts). */
  batchedBaselineUrl: string;
  questionId: string;
  seats: StudentSeat[];
  /** With `pooled` on: the pooled test's questions and its own students. */
  pooled: { questions: Question[]; seats: StudentSeat[] } | null;
}

const [databaseUrl, studentsArg, poolArg, pooledArg, prefillArg] = process.argv.slice(2);
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

async function seat(testId: string, i: number): Promise<StudentSeat> {
  const { assignmentId, cookie, csrf } = await seatStudent(app, { apiKey, testId, externalUserId: `student-${i}`, email: `s${i}@bench.example` });
  return { assignmentId, cookie, csrf };
}
async function seatAll(testId: string, from: number): Promise<StudentSeat[]> {
  const out: StudentSeat[] = [];
  for (let i = 0; i < students; i += 50) {
    out.push(...(await Promise.all(Array.from({ length: Math.min(50, students - i) }, (_, j) => seat(testId, from + i + j)))));
  }
  return out;
}

const seats = await seatAll(test.testId, 0);
let pooled: StudentServerReady['pooled'] = null;
if (pooledArg === 'on') {
  const view = await createTest(pool, pooledTest());
  await publishTest(pool, view.testId, institution.institutionId);
  const questions = allQuestions(view);
  const uploads = new Set(questions.filter((q) => q.type === 'file_upload').map((q) => q.id));
  const pooledSeats = await seatAll(view.testId, students);
  // The draw was made when each student began; read it back as the page would see it.
  const { rows } = await pool.query<{ assignment_id: string; delivery: Delivery }>(
    'SELECT assignment_id, delivery FROM attempts WHERE assignment_id = ANY($1)',
    [pooledSeats.map((s) => s.assignmentId)],
  );
  const drawn = new Map(rows.map((r) => [r.assignment_id, r.delivery.sections.flatMap((s) => s.questionIds)]));
  for (const s of pooledSeats) s.questionIds = drawn.get(s.assignmentId)!.filter((id) => !uploads.has(id));
  if (prefillArg === 'on') {
    // Every drawn question already holds an (empty) answer, as some minutes into an exam: a short run
    // would otherwise make almost every pooled save the first of its question (an INSERT, where the
    // flat test's saves are UPDATEs of one row), which measures the table, not the save path.
    await pool.query(
      `INSERT INTO answers (assignment_id, institution_id, question_id, value, version, saved_at)
       SELECT x.assignment_id, $1, x.question_id, NULL, 0, now()
         FROM jsonb_to_recordset($2::jsonb) AS x (assignment_id text, question_id text)`,
      [institution.institutionId, JSON.stringify(pooledSeats.flatMap((s) => s.questionIds!.map((q) => ({ assignment_id: s.assignmentId, question_id: q }))))],
    );
  }
  pooled = { questions, seats: pooledSeats };
}
/**
 * The baseline a save is measured against: bare Fastify and pg on its own
 * pool, no session, CSRF, rate limit, validation, input checks or logging,
 * the JSON body parsed by Fastify's default parser and one named statement
 * doing the same versioned upsert into the same table. The app's CPU per
 * save over this one's is the cost of everything a real save must also do.
 */
const bare = Fastify({ logger: false });
const barePool = createPool(databaseUrl, Number(poolArg));
bare.post('/a/:assignmentId/answers', async (request) => {
  const { answers } = request.body as { answers: Array<{ questionId: string; value: unknown; version: number }> };
  const { rows } = await barePool.query<{ question_id: string; version: number }>({
    name: 'baseline-save-answers',
    text: `INSERT INTO answers AS s (assignment_id, institution_id, question_id, value, version, saved_at)
           SELECT $1, $2, x.question_id, x.value::jsonb, x.version, now()
             FROM unnest($3::text[], $4::text[], $5::bigint[]) AS x (question_id, value, version)
           ON CONFLICT (assignment_id, question_id) DO UPDATE
              SET value = EXCLUDED.value, version = EXCLUDED.version, saved_at = EXCLUDED.saved_at
            WHERE s.version < EXCLUDED.version
           RETURNING question_id, version`,
    values: [
      (request.params as { assignmentId: string }).assignmentId,
      institution.institutionId,
      answers.map((a) => `baseline-${a.questionId}`),
      answers.map((a) => JSON.stringify(a.value)),
      answers.map((a) => a.version),
    ],
  });
  const stored = new Map(rows.map((r) => [r.question_id, Number(r.version)]));
  return { results: answers.map((a) => ({ questionId: a.questionId, version: stored.get(`baseline-${a.questionId}`) ?? a.version, saved: stored.has(`baseline-${a.questionId}`) })) };
});

const url = await app.listen({ port: 0, host: '127.0.0.1' });
const baselineUrl = await bare.listen({ port: 0, host: '127.0.0.1' });
const batchedPool = createPool(databaseUrl, Number(poolArg));
const batchedBare = buildBatchedBareSave(batchedPool, institution.institutionId);
const batchedBaselineUrl = await batchedBare.listen({ port: 0, host: '127.0.0.1' });
const ready: StudentServerReady = { url, baselineUrl, batchedBaselineUrl, questionId: 'answer', seats, pooled };
process.send(ready);
// CPU time of this process on request: CPU per save, unlike latency, barely moves when other work shares the machine.
// BENCH_PROFILE_DIR: a V8 CPU profile of this process per round (`<round>.cpuprofile`), seeding left out.
const profileDir = process.env.BENCH_PROFILE_DIR;
const profiler = profileDir ? new Session() : null;
profiler?.connect();
process.on('message', (m: unknown) => {
  if (m === 'cpu') void saveBatchTotals().then((batches) => process.send!({ cpu: process.cpuUsage(), serverMs: serverMs.splice(0), batches }));
  if (typeof m === 'object' && m !== null && 'profile' in m) void profileStep(m as { profile: 'start' | 'stop'; name?: string }).then(() => process.send!({ profiled: true }));
});
async function profileStep(m: { profile: 'start' | 'stop'; name?: string }): Promise<void> {
  if (!profiler || !profileDir) return;
  if (m.profile === 'start') {
    await profiler.post('Profiler.enable');
    await profiler.post('Profiler.start');
    return;
  }
  const { profile } = await profiler.post('Profiler.stop');
  fs.mkdirSync(profileDir, { recursive: true });
  fs.writeFileSync(path.join(profileDir, `${m.name}.cpuprofile`), JSON.stringify(profile));
}

async function stop() {
  await app.close();
  await bare.close();
  await batchedBare.close();
  await pool.end();
  await barePool.end();
  await batchedPool.end();
  process.exit(0);
}
process.on('SIGTERM', () => void stop());
process.on('disconnect', () => void stop());
