import { Value } from '@sinclair/typebox/value';
import { statisticsFrom, type StatisticsInputs, type TestStatistics } from './get-statistics.js';
import { statisticsCsv } from './statistics-csv.js';
import { TestStatisticsSchema } from './schemas.js';

/**
 * The item statistics computed on a worker-pool thread (statistics-on-pool.ts
 * hands them over): the figures from the sums, the operator API's answer and
 * the CSV of the Statistics page, whose plain texts (contentText: Markdown
 * parsed per prompt and option) cost the most. The database reads stay on
 * the loop.
 *
 * Inputs come as JSON text and answers leave as text: the loop then copies
 * one string each way. A structured clone of the inputs of a 500-question
 * test (its questions, the sums) took the loop 3–6 ms to serialise, and one
 * of the figures as many again to read back, against about 2 ms to write the
 * inputs' JSON.
 */
export function statisticsOf(inputsJson: string): TestStatistics {
  return statisticsFrom(JSON.parse(inputsJson) as StatisticsInputs);
}

/** The operator API's answer, exactly the fields of its response schema (what Fastify's serialiser would keep). */
export function computeStatisticsJson(_input: Uint8Array, args: { inputs: string }): string {
  return JSON.stringify(Value.Clean(TestStatisticsSchema, statisticsOf(args.inputs)));
}

export function computeStatisticsCsv(_input: Uint8Array, args: { inputs: string }): string {
  return statisticsCsv(statisticsOf(args.inputs));
}
