import { defineWorkerTask } from '../../platform/worker-pool/worker-pool.js';
import { runForRequest } from '../../platform/worker-pool/run-for-request.js';
import type { StatisticsInputs } from './get-statistics.js';

/**
 * A test's statistics computed on the worker pool (statistics-task.ts), from
 * inputs read on the event loop (readStatisticsInputs) and handed over as
 * JSON text. A full pool, or a computation past its time, is 503
 * `unavailable` with Retry-After (runForRequest); nothing was changed, so a
 * retry is all it takes.
 */
type Args = { inputs: string };
const TASKS = new URL('./statistics-task.js', import.meta.url);
const COMPUTE_JSON = defineWorkerTask<Args, string>(TASKS, 'computeStatisticsJson');
const COMPUTE_CSV = defineWorkerTask<Args, string>(TASKS, 'computeStatisticsCsv');

/** The operator API's answer (TestStatisticsSchema), serialised. */
export function statisticsJsonOnPool(inputs: StatisticsInputs): Promise<string> {
  return runForRequest(COMPUTE_JSON, { inputs: JSON.stringify(inputs) });
}

/** The Statistics page's CSV (statistics-csv.ts), UTF-8 with its byte order mark. */
export function statisticsCsvOnPool(inputs: StatisticsInputs): Promise<string> {
  return runForRequest(COMPUTE_CSV, { inputs: JSON.stringify(inputs) });
}
