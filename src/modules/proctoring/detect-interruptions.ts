import type { AppContext } from '../../platform/context.js';
import { withTransaction } from '../../platform/db.js';
import { newId } from '../../platform/ids.js';
import { loadTestVersion } from '../catalog/test-versions.js';
import { emitViolation } from './record-heartbeat.js';
import * as repo from './proctoring-repo.js';
import { DEFAULT_RULES, resolveRules } from '../catalog/proctoring-rules.js';
import { severityOf } from './rules.js';
import { forgetOpenAttempt } from './heartbeat-coalescer.js';

/**
 * `proctoring_interrupted`: the server's own finding that a proctored
 * attempt's page stopped reporting (script blocked or tampered with, tab
 * killed, machine off) for longer than the test's heartbeatTimeoutSeconds.
 *
 * Why a recurring sweep rather than one job per attempt: a per-attempt job
 * would have to be pushed back on every heartbeat (a write to the jobs table
 * and a NOTIFY every 5 s per student, the hottest path of a proctored exam),
 * while the sweep costs one indexed query over the open attempts every
 * SWEEP_EVERY_MS, and it also catches attempts whose page never sent a single
 * heartbeat (measured from the attempt's start). The price: an interruption
 * is raised up to SWEEP_EVERY_MS after the threshold, not at it.
 *
 * One flag per silence: it stays open (`ongoing`) while the silence lasts and
 * the next heartbeat closes it with its final duration; a later silence gets
 * a flag of its own. A silence that lasts until the attempt is submitted
 * (the tab was closed for good, the deadline submitted it) is closed by the
 * sweep at the submission time.
 *
 * The stored time lags the page by up to one heartbeat flush
 * (ASSAY_HEARTBEAT_FLUSH_MS, heartbeat-coalescer.ts): an API process writes
 * idle beats together every few seconds. So a silence counts only once it
 * has lasted the threshold plus one flush, and a flagged silence is always
 * at least the threshold long, however late the last beat was written.
 */
export const SWEEP_EVERY_MS = 10_000;
const BATCH = 200;

interface Candidate {
  assignment_id: string;
  institution_id: string;
  test_version_id: string;
}

export async function detectInterruptions(ctx: AppContext): Promise<number> {
  const now = ctx.clock.now();
  const flushLagSeconds = ctx.config.heartbeatFlushMs / 1000;
  await closeEndedInterruptions(ctx, now);
  const { rows } = await ctx.pool.query<Candidate>(
    `SELECT a.assignment_id, a.institution_id, a.test_version_id
       FROM attempts a
       JOIN test_versions tv ON tv.id = a.test_version_id
       LEFT JOIN proctoring_sessions s ON s.assignment_id = a.assignment_id
      WHERE a.submitted_at IS NULL AND tv.proctoring <> 'none' AND s.interrupted_flag_id IS NULL
        AND COALESCE(s.last_heartbeat_at, a.started_at)
            < $1::timestamptz - make_interval(secs => COALESCE((tv.proctoring_rules->>'heartbeatTimeoutSeconds')::int, $2) + $4::float8)
        AND COALESCE(s.last_heartbeat_at, a.started_at) < a.deadline_at
      ORDER BY a.started_at LIMIT $3`,
    [now, DEFAULT_RULES.heartbeatTimeoutSeconds, BATCH, flushLagSeconds],
  );
  let raised = 0;
  for (const c of rows) {
    const rules = resolveRules((await loadTestVersion(ctx.pool, c.test_version_id)).proctoringRules);
    const flagged = await withTransaction(ctx.pool, async (tx) => {
      // Re-checked under the locks: a heartbeat or the submission may have come in since the scan.
      const attempt = await repo.lockOpenAttempt(tx, c.institution_id, c.assignment_id);
      if (!attempt) return false;
      const session = await repo.lockSession(tx, c.institution_id, c.assignment_id, now);
      const silentSince = session.lastHeartbeatAt ?? attempt.startedAt;
      const durationSeconds = (now.getTime() - silentSince.getTime()) / 1000;
      if (session.interruptedFlagId || durationSeconds < rules.heartbeatTimeoutSeconds + flushLagSeconds) return false;
      const flag: repo.FlagRow = {
        id: newId('flg'),
        signalId: null,
        kind: 'proctoring_interrupted',
        severity: severityOf({ kind: 'proctoring_interrupted', durationSeconds }, rules),
        startedAt: silentSince,
        durationSeconds,
        ongoing: true,
        occurrence: null,
        evidenceSnapshotId: null,
        violationEventId: null,
        reviewOutcome: null,
        reviewNote: null,
        reviewedBy: null,
        reviewedAt: null,
      };
      await repo.saveFlag(tx, c.institution_id, c.assignment_id, flag, now);
      if (flag.severity === 'critical') {
        flag.violationEventId = await emitViolation(tx, c.assignment_id, flag, now);
        await repo.saveFlag(tx, c.institution_id, c.assignment_id, flag, now);
      }
      await repo.setInterruptedFlag(tx, c.assignment_id, flag.id);
      await repo.refreshSummary(tx, c.institution_id, c.assignment_id);
      return true;
    });
    if (flagged) {
      raised++;
      // An API process in this one (npm start) reads the attempt again on its next beat, which closes the flag at once;
      // another process finds the flag at its next flush.
      forgetOpenAttempt(c.assignment_id);
    }
  }
  return raised;
}

/** Open interruption flags of attempts submitted since: closed at the submission, in one statement. */
async function closeEndedInterruptions(ctx: AppContext, now: Date): Promise<void> {
  await ctx.pool.query(
    `WITH ended AS (
       SELECT s.assignment_id, s.institution_id, s.interrupted_flag_id AS flag_id, a.submitted_at
         FROM proctoring_sessions s JOIN attempts a ON a.assignment_id = s.assignment_id
        WHERE s.interrupted_flag_id IS NOT NULL AND a.submitted_at IS NOT NULL
        FOR UPDATE OF s
     ), closed AS (
       UPDATE proctoring_flags f
          SET ongoing = false, updated_at = $1,
              duration_seconds = GREATEST(f.duration_seconds, extract(epoch FROM e.submitted_at - f.started_at))
         FROM ended e WHERE f.id = e.flag_id AND f.institution_id = e.institution_id
     )
     UPDATE proctoring_sessions s SET interrupted_flag_id = NULL FROM ended e WHERE s.assignment_id = e.assignment_id`,
    [now],
  );
}
