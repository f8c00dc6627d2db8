import { statisticsOf } from '../../results/statistics-task.js';
import { portalTranslator } from '../ui/portal-text.js';
import { statisticsBody, type StatisticsLanguage } from './statistics-body.js';

/**
 * The Statistics page's figures, computed and rendered on a worker-pool
 * thread (statistics-pages.ts hands them over): every prompt and option is
 * rendered (Markdown, formulas as MathML) or cut to plain text, which at 500
 * questions held the event loop for a quarter of a second. The page's words
 * are the portal's (English, as on the loop: portalTranslator).
 */
export interface StatisticsBodyArgs {
  /** The inputs (results/get-statistics.ts readStatisticsInputs) as JSON text: one string to copy. */
  inputs: string;
  livemode: boolean;
  language: StatisticsLanguage | null;
  csvHref: string;
}

export function renderStatisticsBody(_input: Uint8Array, args: StatisticsBodyArgs): string {
  const stats = statisticsOf(args.inputs);
  return String(statisticsBody({ stats, livemode: args.livemode, language: args.language, csvHref: args.csvHref, t: portalTranslator() }));
}
