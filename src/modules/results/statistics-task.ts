import { statisticsFrom, type StatisticsInputs, type TestStatistics } from './get-statistics.js';
import { statisticsCsv } from './statistics-csv.js';

/**
 * The item statistics computed on a worker-pool thread (statistics-on-pool.ts
 * hands them over): the figures from the sums, and the CSV of the
 * Statistics page, whose plain texts (contentText: Markdown parsed per
 * prompt and option) cost the most. The database reads stay on the loop.
 */
export function computeStatistics(_input: Uint8Array, inputs: StatisticsInputs): TestStatistics {
  return statisticsFrom(inputs);
}

export function computeStatisticsCsv(_input: Uint8Array, inputs: StatisticsInputs): string {
  return statisticsCsv(statisticsFrom(inputs));
}
