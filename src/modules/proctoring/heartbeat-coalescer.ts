import type { AppContext } from '../../platform/context.js';
import { withTransaction } from '../../platform/db.js';
import { recordHeartbeatFlush } from '../../platform/telemetry/metrics.js';
import { onStatusChange } from '../lifecycle/status-changes.js';
import { closeInterruption } from './close-interruption.js';
import * as repo from './proctoring-repo.js';

/**
 * The proctored page's idle heartbeat (no signal in it) without a write per
 * beat. Each beat only records, in this process's memory, the attempt's
 * latest time and camera and full-screen state; every `flushMs`
 * (ASSAY_HEARTBEAT_FLUSH_MS, 2 s by default) one statement writes them all
 * (proctoring-repo.ts `flushHeartbeats`). 10,000 candidates beating every
 * 5 s behind two processes: one statement a second from each, instead of
 * 2,000 transactions a second.
 *
 * Why coalesced in memory, not an UNLOGGED table: an UNLOGGED table still
 * pays a row version, its index and vacuum per beat, only not its WAL;
 * coalescing removes the statement itself. What the beat still needs to
 * answer, whether the attempt is open and whether an interruption must be
 * closed, is read once per attempt and kept; it is forgotten when the
 * attempt's status changes (the status NOTIFY, lifecycle/status-changes.ts),
 * when a flush finds the attempt closed or interrupted, and when the
 * interruption sweep of this process flags it, so the next beat reads again.
 * A beat after the attempt closed is therefore refused (409) from the first
 * notification, or at the latest after one flush.
 *
 * What a crash loses: the beats received since the last flush, at most
 * `flushMs` (plus the flush's own time) of last-seen times. Signals are never
 * coalesced: a beat that carries one is written at once, in a transaction
 * (record-heartbeat.ts), and so is the one that ends an interruption. The
 * interruption sweep reads the stored time, which lags the page by up to one
 * flush, or, across a crash, by one lost beat interval and two flushes (5 s +
 * 2 × 4 s at the most the setting allows): under the smallest
 * heartbeatTimeoutSeconds a test may set (15 s), so neither the delay nor a
 * crash makes a silence out of a page that kept reporting.
 */
export interface HeartbeatCoalescer {
  /**
   * Takes an idle beat: true when it is recorded for the next flush; false
   * when the beat must be written now (it ends an interruption). Throws the
   * 409 when the attempt is not open.
   */
  idleBeat(a: { institutionId: string; assignmentId: string }, beat: { now: Date; cameraActive: boolean; fullscreen: boolean | null }): Promise<boolean>;
  /** Writes what is pending now (also the timer's work). */
  flush(): Promise<void>;
  /** Flushes once more and stops (shutdown). */
  stop(): Promise<void>;
}

/** Attempts whose open state is kept: past it, the oldest is forgotten (and read again on its next beat). */
const MAX_KNOWN = 50_000;

/** This process's coalescers, for the interruption sweep when it runs in the same process (npm start). */
const live = new Set<{ forget(assignmentId: string): void }>();

/** The sweep flagged an interruption: the next beat of the attempt must close it, so it reads its state again. */
export function forgetOpenAttempt(assignmentId: string): void {
  for (const c of live) c.forget(assignmentId);
}

interface Pending extends repo.CoalescedBeat {
  /** The first beat since the last flush: when an interruption that the flush finds ended. */
  firstAt: Date;
}

export function createHeartbeatCoalescer(ctx: AppContext, opts: { flushMs: number; notRunning: () => Error; log?: { warn(o: object, m?: string): void } }): HeartbeatCoalescer {
  const pending = new Map<string, Pending>();
  const open = new Map<string, true>();
  let flushing: Promise<void> | null = null;

  const forget = (assignmentId: string | null) => (assignmentId === null ? open.clear() : open.delete(assignmentId));
  const unsubscribe = onStatusChange(forget);
  const handle = { forget };
  live.add(handle);

  function remember(assignmentId: string): void {
    if (open.size >= MAX_KNOWN) open.delete(open.keys().next().value!);
    open.set(assignmentId, true);
  }

  async function write(): Promise<void> {
    if (pending.size === 0) return;
    const batch = [...pending.values()];
    pending.clear();
    let written: Map<string, string | null>;
    try {
      written = await repo.flushHeartbeats(ctx.pool, batch);
      recordHeartbeatFlush(batch.length);
    } catch (err) {
      // The database is away: keep the times for the next flush (a later beat meanwhile wins).
      for (const b of batch) {
        const later = pending.get(b.assignmentId);
        pending.set(b.assignmentId, later ? { ...later, firstAt: b.firstAt } : b);
      }
      opts.log?.warn({ err: (err as Error).message, attempts: batch.length }, 'heartbeat flush failed; retrying');
      return;
    }
    for (const b of batch) {
      if (!written.has(b.assignmentId)) open.delete(b.assignmentId); // closed meanwhile: the next beat gets the 409
      const flagId = written.get(b.assignmentId);
      if (flagId) await endInterruption(b, flagId);
    }
  }

  /** A beat came after the sweep flagged the silence: the flag ends at the first beat of this batch. */
  async function endInterruption(b: Pending, flagId: string): Promise<void> {
    await withTransaction(ctx.pool, async (tx) => {
      if (!(await repo.lockOpenAttempt(tx, b.institutionId, b.assignmentId))) return;
      const session = await repo.lockSession(tx, b.institutionId, b.assignmentId, b.firstAt);
      if (session.interruptedFlagId === flagId) await closeInterruption(tx, b, flagId, b.firstAt);
    }).catch((err: Error) => opts.log?.warn({ err: err.message, assignmentId: b.assignmentId }, 'could not close an interruption; the next beat will'));
  }

  function flush(): Promise<void> {
    // One flush at a time: a slow one delays the next rather than running two over the same attempts.
    flushing ??= write().finally(() => {
      flushing = null;
    });
    return flushing;
  }

  const timer = setInterval(() => void flush(), opts.flushMs);
  timer.unref();

  return {
    async idleBeat(a, beat) {
      if (!open.has(a.assignmentId)) {
        const state = await repo.openAttemptState(ctx.pool, a.institutionId, a.assignmentId);
        if (!state) throw opts.notRunning();
        if (state.interruptedFlagId) return false;
        remember(a.assignmentId);
      }
      const seen = pending.get(a.assignmentId);
      if (seen && seen.seenAt.getTime() > beat.now.getTime()) return true;
      pending.set(a.assignmentId, {
        assignmentId: a.assignmentId,
        institutionId: a.institutionId,
        seenAt: beat.now,
        firstAt: seen?.firstAt ?? beat.now,
        cameraActive: beat.cameraActive,
        fullscreen: beat.fullscreen,
      });
      return true;
    },
    flush,
    async stop() {
      clearInterval(timer);
      unsubscribe();
      live.delete(handle);
      await flushing;
      await flush();
    },
  };
}
