import { defineWorkerTask } from '../../platform/worker-pool/worker-pool.js';
import { runForRequest } from '../../platform/worker-pool/run-for-request.js';
import type { StatisticsInputs, TestStatistics } from './get-statistics.js';

/**
 * A test's statistics computed on the worker pool (statistics-task.ts), from
 * inputs read on the event loop (readStatisticsInputs). A full pool, or a
 * computation past its time, is 503 `unavailable` with Retry-After
 * (runForRequest); nothing was changed, so a retry is all it takes.
 */
const COMPUTE = defineWorkerTask<StatisticsInputs, TestStatistics>(new URL('./statistics-task.js', import.meta.url), 'computeStatistics');
const COMPUTE_CSV = defineWorkerTask<StatisticsInputs, string>(new URL('./statistics-task.js', import.meta.url), 'computeStatisticsCsv');

export function statisticsOnPool(inputs: StatisticsInputs): Promise<TestStatistics> {
  return runForRequest(COMPUTE, inputs);
}

/** The Statistics page's CSV (statistics-csv.ts), UTF-8 with its byte order mark. */
export function statisticsCsvOnPool(inputs: StatisticsInputs): Promise<string> {
  return runForRequest(COMPUTE_CSV, inputs);
}
