import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createPool } from '../src/platform/db.js';
import { freezeConfig } from '../src/platform/config.js';
import { systemClock } from '../src/platform/clock.js';
import { migrate } from '../src/platform/migrate.js';
import { createApiKey } from '../src/modules/institutions/api-keys.js';
import { createInstitution } from '../src/modules/institutions/institutions.js';
import { createTest, publishTest } from '../src/modules/catalog/tests-service.js';
import { buildServer, serverContext } from '../src/server.js';
import { seatStudent } from './seat-student.js';
import { benchAppConfig } from './bench-database.js';

/**
 * The server side of bench/proctoring-uploads.ts, in its own process so the
 * simulated students do not share its event loop. Seeds one institution and
 * one recorded (proctoring: record) test, then for each student: creates the
 * assignment through the partner API, opens the start link, reads the CSRF
 * token and presses Begin, as a browser would. Files go to the default local
 * storage, in a temporary ASSAY_DATA_DIR removed on exit.
 */
export interface RecorderSeat {
  assignmentId: string;
  cookie: string;
  csrf: string;
}
export interface ProctoringServerReady {
  url: string;
  apiKey: string;
  dataDir: string;
  seats: RecorderSeat[];
}

const [databaseUrl, studentsArg] = process.argv.slice(2);
if (!databaseUrl || !process.send) throw new Error('bench/proctoring-server.ts is started by bench/proctoring-uploads.ts');
const students = Number(studentsArg);

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'assay-bench-proctoring-'));
const pool = createPool(databaseUrl, 10);
await migrate(pool);
const institution = await createInstitution(pool, { name: 'Bench Proctoring College', callbackDomains: ['bench.example'] });
const { apiKey } = await createApiKey(pool, institution.institutionId, 'bench');
const test = await createTest(pool, {
  title: 'Recorded exam under load',
  description: 'Webcam recording in 10-second segments.',
  durationMinutes: 120,
  proctoring: 'record',
  marking: 'auto',
  resultVisibility: 'immediate',
  passPercent: null,
  questions: [{ id: 'answer', type: 'short_text', prompt: 'Type anything', points: 1, acceptedAnswers: ['anything'] }],
});
await publishTest(pool, test.testId, institution.institutionId);

const config = freezeConfig({ ...benchAppConfig(databaseUrl), dataDir });
const app = await buildServer(serverContext({ config, pool, clock: systemClock }));

async function seat(i: number): Promise<RecorderSeat> {
  const { assignmentId, cookie, csrf } = await seatStudent(app, { apiKey, testId: test.testId, externalUserId: `recorder-${i}`, email: `r${i}@bench.example` });
  return { assignmentId, cookie, csrf };
}

const seats: RecorderSeat[] = [];
for (let i = 0; i < students; i += 50) {
  seats.push(...(await Promise.all(Array.from({ length: Math.min(50, students - i) }, (_, j) => seat(i + j)))));
}
const url = await app.listen({ port: 0, host: '127.0.0.1' });
const ready: ProctoringServerReady = { url, apiKey, dataDir, seats };
process.send(ready);
process.on('message', (m) => {
  if (m === 'cpu') process.send!({ cpu: process.cpuUsage() });
});

async function stop() {
  await app.close();
  await pool.end();
  fs.rmSync(dataDir, { recursive: true, force: true });
  process.exit(0);
}
process.on('SIGTERM', () => void stop());
process.on('disconnect', () => void stop());
