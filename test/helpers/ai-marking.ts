import { expect } from 'vitest';
import type { AiConfig } from '../../src/platform/config.js';
import type { Clock } from '../../src/platform/clock.js';
import { createAiMarkingWorker } from '../../src/modules/marking/ai/ai-worker.js';
import type { TestInput } from '../../src/modules/catalog/schemas.js';
import { createHarness, type Harness, type Tenant } from './harness.js';
import { startFakeChatServer, type FakeChatServer } from './fake-chat-server.js';
import { Student, assign, createPublishedTest } from './student.js';

/** Shared set-up for AI marking tests: a harness pointed at a fake Chat Completions server, and an AI job worker to drain. */

export const STUDENT = { externalUserId: 'stu-ext-7f3a9c', user: { email: 'ada.lovelace.secret@student.example', name: 'Ada Secretname' } };

export const criteria = [
  { criterion: 'Process', points: 6, description: 'Light energy becomes chemical energy in the chloroplasts' },
  { criterion: 'Products', points: 4, description: 'Glucose and oxygen are named' },
];

export function aiTest(mode: 'suggest' | 'decide', minConfidence = 0.8, extra: Partial<TestInput> = {}): TestInput {
  return {
    title: `Biology (${mode})`,
    description: 'Photosynthesis',
    durationMinutes: 30,
    proctoring: 'none',
    marking: 'hybrid',
    resultVisibility: 'after_review',
    passPercent: 50,
    questions: [
      { id: 'sc', type: 'single_choice', prompt: 'Where does photosynthesis happen?', points: 2, options: [{ id: 'a', text: 'Chloroplast' }, { id: 'b', text: 'Nucleus' }], correctOptionId: 'a' },
      {
        id: 'es',
        type: 'essay',
        prompt: 'Explain photosynthesis.',
        points: 10,
        rubric: 'Full marks: the process and both products, clearly explained.',
        maxWords: 300,
        aiMarking: { mode, minConfidence },
        criteria,
      },
    ],
    ...extra,
  };
}

/** A reply in the documented shape (docs/ai-marking.md). */
export function reply(process: number, products: number, confidence: number, flags: string[] = []) {
  return {
    criteria: [
      { criterion: 'Process', points: process, rationale: 'Describes light being captured by chlorophyll.' },
      { criterion: 'Products', points: products, rationale: 'Names glucose; oxygen is implied.' },
    ],
    points: process + products,
    confidence,
    flags,
  };
}

export function aiConfig(fake: FakeChatServer, over: Partial<AiConfig> = {}): AiConfig {
  return {
    baseUrl: fake.baseUrl,
    model: 'test-model',
    apiKey: 'sk-test-0123456789abcdef',
    timeoutMs: 2000,
    concurrency: 2,
    dailyBudget: 1000,
    retryScheduleMs: [0, 1000, 2000],
    ...over,
  };
}

export interface AiRig {
  h: Harness;
  fake: FakeChatServer;
  ai: ReturnType<typeof createAiMarkingWorker>;
  close(): Promise<void>;
}

export async function openAiRig(opts: { ai?: Partial<AiConfig>; off?: boolean; clock?: Clock; allowInsecureUrls?: boolean } = {}): Promise<AiRig> {
  const fake = await startFakeChatServer();
  const h = await createHarness({
    ...(opts.clock ? { clock: opts.clock } : {}),
    config: { ai: opts.off ? null : aiConfig(fake, opts.ai), ...(opts.allowInsecureUrls ? { allowInsecureUrls: true } : {}) },
  });
  const ai = createAiMarkingWorker(h.ctx, h.databaseUrl);
  return {
    h,
    fake,
    ai,
    async close() {
      await ai.stop();
      await h.close();
      await fake.close();
    },
  };
}

/** Assigns, answers (sc right; the essay as given) and submits; returns the assignment id. */
export async function submitEssay(h: Harness, tenant: Tenant, testId: string, essay: string, who: { externalUserId: string } = STUDENT): Promise<string> {
  const a = await assign(h, tenant, { testId, ...STUDENT, ...who });
  const s = new Student(h);
  await s.start(a.startUrl);
  await s.page(a.assignmentId);
  const saved = await s.save(a.assignmentId, [
    { questionId: 'sc', value: 'a', version: 1 },
    { questionId: 'es', value: essay, version: 1 },
  ]);
  expect(saved.statusCode).toBe(200);
  expect((await s.submit(a.assignmentId)).statusCode).toBe(303);
  return a.assignmentId;
}

export { createPublishedTest };

export async function markingView(h: Harness, assignmentId: string) {
  const res = await h.admin('GET', `/api/admin/v1/assignments/${assignmentId}`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}

export async function eventTypes(h: Harness, assignmentId: string): Promise<string[]> {
  const { rows } = await h.pool.query('SELECT type FROM events WHERE assignment_id = $1 ORDER BY sequence', [assignmentId]);
  return rows.map((r) => r.type);
}

export const ESSAY = 'Plants capture light with chlorophyll in their chloroplasts and turn water and carbon dioxide into glucose, releasing oxygen.';
