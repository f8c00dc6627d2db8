import type { Config } from '../../platform/config.js';
import type { Queryable } from '../../platform/db.js';
import type { EffectiveRelaxations } from '../assignments/accommodations.js';
import { nextSegmentSeq } from './media-repo.js';
import type { TestVersion } from '../catalog/tests-service.js';
import { resolveRules, type ProctoringRules } from '../catalog/proctoring-rules.js';
import type { ProctoredMode } from '../catalog/test-settings.js';

/**
 * What a proctored test's pages give their scripts, as `state.proctoring` in
 * the page's `assay-state` JSON (absent for proctoring none). The thresholds
 * are sent for transparency only: the server applies them to what the page
 * reports and never takes a severity from the page.
 */
export const HEARTBEAT_MS = 5_000;
export const SEGMENT_MS = 10_000;
export const SNAPSHOT_EVERY_MS = 60_000;
export const MODEL_BASE = '/assets/proctoring/models/';

export interface ProctoringPageState {
  mode: ProctoredMode;
  rules: ProctoringRules;
  heartbeatMs: number;
  segmentMs: number;
  snapshotEveryMs: number;
  modelBase: string;
  /** Days after submission when the recording, snapshots and flags are deleted (the consent text says so). */
  retentionDays: number;
  /**
   * This assignment's effective proctoring relaxations (accommodations): the page neither offers full
   * screen nor reports leaving it when it is not required, and does not report copy and paste when allowed.
   * The server ignores those signals for such an assignment whatever the page sends.
   */
  relaxations: EffectiveRelaxations;
  /**
   * Test page only: the first segment number this attempt has not stored, so a page that lost its
   * local count (another device, cleared storage) never reuses a number the server would answer as a duplicate.
   */
  nextSeq?: number;
  /**
   * The service stores files in S3: the page PUTs each segment and snapshot straight to the bucket with a
   * presigned request (direct-uploads.ts) instead of posting the bytes to the API.
   */
  directUploads: boolean;
}

export function proctoringPageState(
  test: Pick<TestVersion, 'proctoring' | 'proctoringRules'>,
  config: Pick<Config, 'proctoringRetentionDays'> & { storage?: Pick<Config['storage'], 'kind'> },
  relaxations: EffectiveRelaxations,
): ProctoringPageState | null {
  if (test.proctoring === 'none') return null;
  return {
    mode: test.proctoring,
    rules: resolveRules(test.proctoringRules),
    heartbeatMs: HEARTBEAT_MS,
    segmentMs: SEGMENT_MS,
    snapshotEveryMs: SNAPSHOT_EVERY_MS,
    modelBase: MODEL_BASE,
    retentionDays: config.proctoringRetentionDays,
    relaxations: { fullscreenRequired: relaxations.fullscreenRequired, copyPasteAllowed: relaxations.copyPasteAllowed },
    directUploads: config.storage?.kind === 's3',
  };
}

/** The test page's state: the test's, plus where the attempt's recording continues. */
export async function attemptProctoringState(
  db: Queryable,
  base: ProctoringPageState | null,
  institutionId: string,
  assignmentId: string,
): Promise<ProctoringPageState | null> {
  if (!base) return null;
  return { ...base, nextSeq: await nextSegmentSeq(db, institutionId, assignmentId) };
}
