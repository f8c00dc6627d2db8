import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { AppError } from '../../../platform/errors.js';
import { defineWorkerTask, WorkerTaskError } from '../../../platform/worker-pool/worker-pool.js';
import { workerPool } from '../../../platform/worker-pool/shared-pool.js';
import { textChecks, type KeptTextChecks, type TextCheck } from './text-checks.js';

const CHECK_TEXTS = defineWorkerTask<{ sources: string[] }, TextCheck[]>(new URL('./text-checks-task.js', import.meta.url), 'checkTexts');

/**
 * How much unkept text the event loop checks itself, in characters with 100
 * more per text (a text's parse has a cost of its own): about 1–5 ms of
 * Temml and markdown-it at the 0.5–4.5 µs a character measured for prompts
 * with formulas and for text that is all formulas (docs/performance.md). One
 * edited prompt, or a new question, is far below it; a test the process has
 * not seen, or a pasted section, is above it and goes to the worker pool.
 */
export const INLINE_CHECK_WEIGHT = 3_000;

/**
 * Makes sure every text of `sources` has a kept check before a whole-test
 * check reads them: those the process has not kept are checked here on the
 * loop when they are few, else on a worker-pool thread, and kept. The
 * whole-test check that follows (authoring.ts) then takes about a millisecond
 * for 200 questions. A full pool answers 503 `unavailable` with Retry-After;
 * call this before writing anything, so a refused request changes nothing.
 */
export async function checkTextsOffLoop(sources: Iterable<string>, kept: KeptTextChecks = textChecks): Promise<void> {
  const missing = kept.missing(sources);
  const weight = missing.reduce((n, s) => n + s.length + 100, 0);
  if (weight <= INLINE_CHECK_WEIGHT) {
    // Checked on first read, inline. The schema check before this call and the rules after it are a few
    // milliseconds each for a 500-question test: they run in two turns of the event loop, not in one.
    await yieldToLoop();
    return;
  }
  let checks: TextCheck[];
  try {
    checks = await workerPool().run(CHECK_TEXTS, new Uint8Array(0), { sources: missing });
  } catch (err) {
    if (err instanceof AppError && err.code === 'unavailable') {
      throw new AppError('unavailable', 'The server is busy checking other tests: try again in a few seconds.', undefined, err.headers);
    }
    if (!(err instanceof WorkerTaskError) || err.reason === 'crashed') throw err;
    // The bounds on formulas (math-limits.ts) keep any test's check far below the pool's time and memory limits.
    throw new AppError('invalid_request', "The test's texts take too long or too much memory to check: split the test, or shorten its formulas.", [
      { field: 'body', message: 'could not be checked in time' },
    ]);
  }
  missing.forEach((source, i) => kept.keep(source, checks[i]!));
}
