import type { AppContext } from '../../platform/context.js';
import { withTransaction, type Tx } from '../../platform/db.js';
import { AppError, type ErrorDetail } from '../../platform/errors.js';
import { newId } from '../../platform/ids.js';
import type { StudentSession } from '../assignments/student-sessions.js';
import { recordViolation } from './record-violation.js';
import { closeInterruption } from './close-interruption.js';
import type { HeartbeatCoalescer } from './heartbeat-coalescer.js';
import { attemptRelaxations } from './attempt-relaxations.js';
import { proctoredAttemptOf, type ProctoredAttempt } from './proctored-attempt.js';
import * as repo from './proctoring-repo.js';
import { acceptsSignal, becomesViolation, escalate, RELAXABLE_KINDS, relaxedAway, severityOf, type Severity, type SignalKind } from './rules.js';

/**
 * The page's heartbeat: every `heartbeatMs`, and at once when a signal starts
 * or ends. Each signal (the page's id, kind, start, duration so far, whether
 * it goes on) becomes one flag, upserted by the signal id; the rules decide
 * its severity, which only ever rises. The first time a flag is critical,
 * `violation.detected` is appended in the same transaction, so exactly once.
 * Every heartbeat records the time (the interruption sweep watches it) and
 * closes the interruption flag of a silence that has just ended. A beat with
 * no signal only records the time: through the process's heartbeat
 * coalescer, which writes the times of all attempts every few seconds in
 * one statement (heartbeat-coalescer.ts); without one (test mode's simulated
 * signals), at once.
 */
export interface SignalInput {
  id: string;
  kind: SignalKind;
  startedAt: string;
  durationSeconds: number;
  ongoing: boolean;
}

export interface HeartbeatInput {
  signals: SignalInput[];
  cameraActive: boolean;
  fullscreen: boolean | null;
}

export interface HeartbeatFlag {
  signalId: string;
  flagId: string;
  severity: Severity;
  needsEvidence: boolean;
}

/** A page clock a few minutes off must not put a signal before the attempt or in the future. */
function clampStart(startedAt: Date, attemptStart: Date, now: Date): Date {
  return new Date(Math.min(now.getTime(), Math.max(attemptStart.getTime(), startedAt.getTime())));
}

export async function recordHeartbeat(
  ctx: AppContext,
  session: StudentSession,
  assignmentId: string,
  input: HeartbeatInput,
  coalescer?: HeartbeatCoalescer,
): Promise<{ flags: HeartbeatFlag[] }> {
  const attempt = await proctoredAttemptOf(ctx, session, assignmentId);
  const now = ctx.clock.now();
  // Face analysis signals from a record test's page are ignored (contract): they have no meaning there.
  let signals = input.signals.filter((s) => acceptsSignal(attempt.mode, s.kind));
  // So are the signals this assignment's accommodations relax (whatever an old or altered page sends);
  // the accommodations are read only when such a signal is present.
  if (signals.some((s) => RELAXABLE_KINDS.has(s.kind))) {
    const relaxations = await attemptRelaxations(ctx.pool, attempt.institutionId, assignmentId, now);
    signals = signals.filter((s) => !relaxedAway(s.kind, relaxations));
  }

  // The common case: nothing to flag, only the time to record, at the next flush (no statement when the
  // attempt is known open). A beat that ends an interruption is written now.
  if (signals.length === 0 && coalescer && (await coalescer.idleBeat(attempt, { now, cameraActive: input.cameraActive, fullscreen: input.fullscreen }))) {
    return { flags: [] };
  }
  return withTransaction(ctx.pool, async (tx) => {
    if (!(await repo.lockOpenAttempt(tx, attempt.institutionId, assignmentId))) throw notRunning();
    const state = await repo.lockSession(tx, attempt.institutionId, assignmentId, now);
    await repo.recordHeartbeatTime(tx, assignmentId, { now, cameraActive: input.cameraActive, fullscreen: input.fullscreen });
    if (state.interruptedFlagId) await closeInterruption(tx, attempt, state.interruptedFlagId, now);
    const flags = await applySignals(tx, attempt, signals, input.signals, now);
    await repo.refreshSummary(tx, attempt.institutionId, assignmentId);
    return { flags };
  });
}

export function notRunning(): AppError {
  return new AppError('invalid_state', 'This test is not running: proctoring reports are accepted only while it is.');
}

async function applySignals(tx: Tx, attempt: ProctoredAttempt, input: SignalInput[], sent: SignalInput[], now: Date): Promise<HeartbeatFlag[]> {
  if (input.length === 0) return [];
  // One report per signal id: if a call repeats an id, the longest report of it counts.
  const byId = new Map<string, SignalInput>();
  for (const s of input) {
    const seen = byId.get(s.id);
    if (!seen || s.durationSeconds > seen.durationSeconds || (!s.ongoing && seen.ongoing)) byId.set(s.id, s);
  }
  const signals = [...byId.values()].sort((a, b) => Date.parse(a.startedAt) - Date.parse(b.startedAt));
  const existing = await repo.flagsBySignal(tx, attempt.institutionId, attempt.assignmentId, [...byId.keys()]);

  const details: ErrorDetail[] = [];
  signals.forEach((s) => {
    const flag = existing.get(s.id);
    if (flag && flag.kind !== s.kind) {
      details.push({ field: `signals.${sent.indexOf(s)}.kind`, message: `does not match the earlier report of signal "${s.id}" (${flag.kind})` });
    }
  });
  if (details.length > 0) throw new AppError('invalid_request', `${details[0]!.field}: ${details[0]!.message}`, details);

  let leftTestCount: number | null = null;
  const out = new Map<string, HeartbeatFlag>();
  for (const s of signals) {
    const before = existing.get(s.id) ?? null;
    let occurrence = before?.occurrence ?? null;
    if (!before && s.kind === 'left_test') {
      leftTestCount ??= await repo.countFlagsOfKind(tx, attempt.institutionId, attempt.assignmentId, 'left_test');
      occurrence = ++leftTestCount;
    }
    const durationSeconds = Math.max(before?.durationSeconds ?? 0, s.durationSeconds);
    const severity = escalate(before?.severity ?? null, severityOf({ kind: s.kind, durationSeconds, occurrence }, attempt.rules));
    const flag: repo.FlagRow = before
      ? { ...before, severity, durationSeconds, ongoing: before.ongoing && s.ongoing }
      : {
          id: newId('flg'),
          signalId: s.id,
          kind: s.kind,
          severity,
          startedAt: clampStart(new Date(s.startedAt), attempt.startedAt, now),
          durationSeconds,
          ongoing: s.ongoing,
          occurrence,
          evidenceSnapshotId: null,
          violationEventId: null,
          reviewOutcome: null,
          reviewNote: null,
          reviewedBy: null,
          reviewedAt: null,
        };
    const changed = !before || before.severity !== flag.severity || before.durationSeconds !== flag.durationSeconds || before.ongoing !== flag.ongoing;
    if (becomesViolation(before?.severity ?? null, flag.severity, flag.violationEventId !== null)) {
      // The flag row first: the event names it, and a partner may fetch it as soon as the event arrives.
      await repo.saveFlag(tx, attempt.institutionId, attempt.assignmentId, flag, now);
      flag.violationEventId = await emitViolation(tx, attempt.assignmentId, flag, now);
      await repo.saveFlag(tx, attempt.institutionId, attempt.assignmentId, flag, now);
    } else if (changed) {
      await repo.saveFlag(tx, attempt.institutionId, attempt.assignmentId, flag, now);
    }
    out.set(s.id, { signalId: s.id, flagId: flag.id, severity: flag.severity, needsEvidence: flag.severity === 'critical' && !flag.evidenceSnapshotId });
  }
  // Answered in the order the page sent them (processed in start order, for the left_test count).
  return [...byId.keys()].map((id) => out.get(id)!);
}

/** Appends the flag's one violation.detected; returns the event id stored on the flag. */
export async function emitViolation(tx: Tx, assignmentId: string, flag: repo.FlagRow, now: Date): Promise<string> {
  const outcome = await recordViolation(
    tx,
    assignmentId,
    {
      id: flag.id,
      kind: flag.kind,
      severity: 'critical',
      startedAt: flag.startedAt,
      durationSeconds: flag.durationSeconds,
      evidence: { snapshot: flag.evidenceSnapshotId !== null },
    },
    now,
  );
  // The attempt is locked open by the caller, so the assignment exists and has an attempt.
  if (!outcome.ok) throw new Error(`violation.detected refused for ${assignmentId}: ${outcome.reason}`);
  return outcome.event.id;
}
