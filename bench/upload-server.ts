import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createPool } from '../src/platform/db.js';
import { freezeConfig, type StorageConfig } from '../src/platform/config.js';
import { systemClock } from '../src/platform/clock.js';
import { migrate } from '../src/platform/migrate.js';
import { createApiKey } from '../src/modules/institutions/api-keys.js';
import { createInstitution } from '../src/modules/institutions/institutions.js';
import { createTest, publishTest } from '../src/modules/catalog/tests-service.js';
import { UPLOAD_MAX_BYTES } from '../src/modules/catalog/schemas.js';
import { buildServer, serverContext } from '../src/server.js';
import { startByteThread } from '../src/platform/byte-thread.js';
import { settleHeap } from '../src/platform/settle-heap.js';
import { seatStudent } from './seat-student.js';
import { benchAppConfig } from './bench-database.js';
import { traceUploads } from './upload-trace.js';

/**
 * The server side of bench/upload-load.ts, in its own process so the
 * uploading students do not share its event loop. Seeds one institution and
 * one sectioned test with a file_upload question (PDF, up to 20 MB), then
 * seats each student as a browser would (assignment, start link, Begin).
 * Files go to the default local storage, in a temporary ASSAY_DATA_DIR
 * removed on exit, or with a bucket's configuration as the third argument
 * (`--s3`) to that bucket, uploaded directly.
 */
export interface UploadSeat {
  assignmentId: string;
  cookie: string;
  csrf: string;
}
export interface UploadServerReady {
  url: string;
  apiKey: string;
  dataDir: string;
  seats: UploadSeat[];
}

const [databaseUrl, studentsArg, storageArg] = process.argv.slice(2);
if (!databaseUrl || !process.send) throw new Error('bench/upload-server.ts is started by bench/upload-load.ts');
const students = Number(studentsArg);

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'assay-bench-uploads-'));
const pool = createPool(databaseUrl, 10);
await migrate(pool);
const institution = await createInstitution(pool, { name: 'Bench Upload College', callbackDomains: ['bench.example'] });
const { apiKey } = await createApiKey(pool, institution.institutionId, 'bench');
const test = await createTest(pool, {
  title: 'Portfolio exam under load',
  description: 'A written section and a file upload.',
  durationMinutes: 120,
  proctoring: 'none',
  marking: 'hybrid',
  resultVisibility: 'after_review',
  passPercent: null,
  sections: [
    { id: 'written', title: 'Written', questions: [{ id: 'st', type: 'short_text', prompt: 'Type anything', points: 1, acceptedAnswers: ['anything'] }] },
    { id: 'files', title: 'Files', questions: [{ id: 'portfolio', type: 'file_upload', prompt: 'Upload your portfolio', points: 10, accept: ['application/pdf'], maxBytes: UPLOAD_MAX_BYTES }] },
  ],
});
await publishTest(pool, test.testId, institution.institutionId);

// What bench/upload-phases.ts breaks down: each upload's phases, the loop's delay, the pool's waits.
const trace = traceUploads(pool);
// A bucket's configuration as JSON (--s3): answer files go straight to it, presigned; else local files.
const storage = storageArg ? (JSON.parse(storageArg) as StorageConfig) : null;
const config = freezeConfig({ ...benchAppConfig(databaseUrl), dataDir, ...(storage ? { storage } : {}) });
const app = await buildServer(serverContext({ config, pool, clock: systemClock }));
// As main.ts does: the uploads' thread starts with the process, not in the first round.
startByteThread();

const seats: UploadSeat[] = [];
for (let i = 0; i < students; i += 25) {
  seats.push(
    ...(await Promise.all(
      Array.from({ length: Math.min(25, students - i) }, (_, j) =>
        seatStudent(app, { apiKey, testId: test.testId, externalUserId: `uploader-${i + j}`, email: `u${i + j}@bench.example` }),
      ),
    )),
  );
}
// As main.ts does before it listens: the seats' garbage collected before the first request.
settleHeap();
const url = await app.listen({ port: 0, host: '127.0.0.1' });
const ready: UploadServerReady = { url, apiKey, dataDir, seats: seats.map(({ assignmentId, cookie, csrf }) => ({ assignmentId, cookie, csrf })) };
process.send(ready);
process.on('message', (m) => {
  if (m === 'cpu') process.send!({ cpu: process.cpuUsage(), mainThread: mainThreadCpu() });
  if (m === 'trace') process.send!({ trace: trace.take() });
});

/** The event loop's own thread's CPU time in µs (Linux: /proc), apart from the hashing and file-system threads; null elsewhere. */
function mainThreadCpu(): number | null {
  try {
    const fields = fs.readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    // utime and stime, in clock ticks (100 a second on Linux).
    return (Number(fields[11]) + Number(fields[12])) * 10_000;
  } catch {
    return null;
  }
}

async function stop() {
  await app.close();
  await pool.end();
  fs.rmSync(dataDir, { recursive: true, force: true });
  process.exit(0);
}
process.on('SIGTERM', () => void stop());
process.on('disconnect', () => void stop());
