import { createPool } from '../src/platform/db.js';
import { systemClock } from '../src/platform/clock.js';
import { freezeConfig } from '../src/platform/config.js';
import { migrate } from '../src/platform/migrate.js';
import { createApiKey } from '../src/modules/institutions/api-keys.js';
import { createInstitution } from '../src/modules/institutions/institutions.js';
import { createAiMarkingWorker } from '../src/modules/marking/ai/ai-worker.js';
import { createTest, publishTest } from '../src/modules/catalog/tests-service.js';
import { buildServer, serverContext } from '../src/server.js';
import { seatStudent } from './seat-student.js';
import { benchAppConfig } from './bench-database.js';

/**
 * The server side of bench/ai-marking.ts, in its own process as `npm start`
 * runs it: the real app and the AI marking worker in one process, pointed at
 * the bench's model server. Seeds one institution and one hybrid test whose
 * essay is AI-marked in decide mode, then `seats` students who have begun and
 * saved an essay (not yet submitted), exactly as browsers would. The AI
 * worker starts only when the parent says so ('start-ai'), so the first
 * phase measures the app with AI marking idle.
 */
export interface AiSeat {
  assignmentId: string;
  cookie: string;
  csrf: string;
}
export interface AiServerReady {
  url: string;
  apiKey: string;
  seats: AiSeat[];
}

const [databaseUrl, modelBaseUrl, seatsArg, concurrencyArg] = process.argv.slice(2);
if (!databaseUrl || !modelBaseUrl || !process.send) throw new Error('bench/ai-marking-server.ts is started by bench/ai-marking.ts');

const pool = createPool(databaseUrl, 10);
await migrate(pool);
const institution = await createInstitution(pool, { name: 'Bench College', callbackDomains: ['bench.example'] });
const { apiKey } = await createApiKey(pool, institution.institutionId, 'bench');
const test = await createTest(pool, {
  title: 'Essay load',
  description: 'One essay, marked by the model.',
  durationMinutes: 120,
  proctoring: 'none',
  marking: 'hybrid',
  resultVisibility: 'after_review',
  passPercent: 50,
  questions: [
    {
      id: 'es',
      type: 'essay',
      prompt: 'Explain photosynthesis.',
      points: 10,
      rubric: 'The process and both products, clearly explained.',
      aiMarking: { mode: 'decide', minConfidence: 0.5 },
      criteria: [
        { criterion: 'Process', points: 6, description: 'Light energy becomes chemical energy' },
        { criterion: 'Products', points: 4, description: 'Glucose and oxygen' },
      ],
    },
  ],
});
await publishTest(pool, test.testId, institution.institutionId);

const base = benchAppConfig(databaseUrl);
const config = freezeConfig({
  ...base,
  ai: {
    baseUrl: modelBaseUrl,
    model: 'bench-model',
    apiKey: null,
    timeoutMs: 60_000,
    concurrency: Number(concurrencyArg),
    dailyBudget: 100_000_000,
    retryScheduleMs: [0, 1000, 5000],
  },
});
const ctx = serverContext({ config, pool, clock: systemClock });
const app = await buildServer(ctx);
const ai = createAiMarkingWorker(ctx, databaseUrl);

const ESSAY =
  'Plants capture light with chlorophyll in their chloroplasts. The light energy splits water and drives the Calvin cycle, ' +
  'which fixes carbon dioxide into glucose; oxygen is released as a by-product.';

async function seat(i: number): Promise<AiSeat> {
  const { assignmentId, cookie, csrf } = await seatStudent(app, { apiKey, testId: test.testId, externalUserId: `student-${i}`, email: `s${i}@bench.example` });
  const saved = await app.inject({
    method: 'POST',
    url: `/a/${assignmentId}/answers`,
    headers: { cookie, 'content-type': 'application/json', 'x-csrf-token': csrf },
    payload: { answers: [{ questionId: 'es', value: `${ESSAY} (${i})`, version: 1 }] },
  });
  if (saved.statusCode !== 200) throw new Error(`save: ${saved.body}`);
  return { assignmentId, cookie, csrf };
}

const seats: AiSeat[] = [];
const total = Number(seatsArg);
for (let i = 0; i < total; i += 50) {
  seats.push(...(await Promise.all(Array.from({ length: Math.min(50, total - i) }, (_, j) => seat(i + j)))));
}
const url = await app.listen({ port: 0, host: '127.0.0.1' });
const ready: AiServerReady = { url, apiKey, seats };
process.send(ready);
process.on('message', (m) => {
  if (m === 'start-ai') void ai.start().then(() => process.send!('ai-started'));
});

async function stop() {
  await app.close();
  await ai.stop();
  await pool.end();
  process.exit(0);
}
process.on('SIGTERM', () => void stop());
process.on('disconnect', () => void stop());
