import type { TestVersion } from '../../src/modules/catalog/tests-service.js';
import { deliver, type DeliveredTest } from '../../src/modules/catalog/delivery.js';
import type { ProctoringPageState } from '../../src/modules/student/pages/proctoring-parts.js';

/**
 * Fixtures for the student pages' markup tests (no database): a one-question
 * test version of the given proctoring mode, and the proctoring state a page
 * renders from.
 */
export function pageTestVersion(proctoring: TestVersion['proctoring'], title = 'Exam'): DeliveredTest {
  return deliver({
    testVersionId: 'tv_1',
    testId: 'tst_1',
    version: 1,
    title,
    description: '',
    durationMinutes: 30,
    proctoring,
    marking: 'auto',
    resultVisibility: 'immediate',
    passPercent: null,
    proctoringRules: null,
    questions: [{ id: 'q1', type: 'short_text', prompt: 'Name?', points: 1, acceptedAnswers: ['x'] }],
    sections: null,
    createdAt: new Date(),
  } as TestVersion, null);
}

export function pageProctoringState(overrides: Partial<ProctoringPageState> = {}): ProctoringPageState {
  return {
    mode: 'live_ai',
    rules: { noFaceSeconds: 10 },
    heartbeatMs: 5000,
    segmentMs: 10000,
    snapshotEveryMs: 60000,
    modelBase: '/assets/proctoring/models/',
    retentionDays: 30,
    ...overrides,
  };
}
