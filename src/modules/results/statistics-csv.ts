import { stringify } from 'csv-stringify/sync';
import { contentText } from '../catalog/content/render-content.js';
import type { TestStatistics } from './get-statistics.js';
import { safeCell } from './csv-stream.js';
import { attachment } from '../../platform/http/content-disposition.js';

/**
 * The item analysis of the Statistics page as CSV, for a spreadsheet: one
 * row per question (`kind` = `question`), each followed by a row per option of
 * a choice question (`kind` = `option`: the distractor analysis), with the
 * page's figures. Texts are plain (contentText: Markdown's words, a
 * formula as its TeX source, an image as its alt text); facility is a
 * fraction (0–1) as in the API, correlations as they are, numbers written
 * as numbers, a figure that cannot be computed left empty. A UTF-8 byte
 * order mark first, so a spreadsheet reads accents and scripts right; a
 * text that starts like a formula is prefixed with `'` (safeCell).
 */
export const STATISTICS_CSV_COLUMNS = [
  'kind',
  'number',
  'questionId',
  'optionId',
  'section',
  'type',
  'text',
  'correct',
  'points',
  'attempts',
  'chosen',
  'facility',
  'discrimination',
  'pointBiserial',
  'flags',
] as const;

type Cell = string | number | null;
const fig = (v: number | null): Cell => (v === null ? null : Number(v.toFixed(4)));
const text = (v: string): string => safeCell(v);

export function statisticsCsv(stats: TestStatistics): string {
  const plain = (source: string) => contentText(source, stats.contentFormat).replace(/\s+/g, ' ').trim();
  const rows: Cell[][] = [];
  stats.items.forEach((it, i) => {
    const n = i + 1;
    rows.push(['question', n, text(it.questionId), null, text(it.section), it.type, text(plain(it.prompt)), null, it.points, it.attempts, null, fig(it.facility), fig(it.discrimination), null, text(it.flags.join('; '))]);
    for (const o of it.options ?? []) {
      rows.push(['option', n, text(it.questionId), text(o.optionId), text(it.section), it.type, text(plain(o.text)), o.correct ? 'yes' : 'no', null, it.attempts, o.chosen, null, null, fig(o.pointBiserial), null]);
    }
  });
  return `\uFEFF${stringify([[...STATISTICS_CSV_COLUMNS], ...rows])}`;
}

/** The download's `Content-Disposition`: `statistics-<test title>-v<version>[-test-mode].csv`. */
export function statisticsDisposition(title: string, version: number, livemode: boolean): string {
  return attachment(`statistics-${title.replace(/[:*?"<>|\s]+/g, ' ').trim().slice(0, 80) || 'test'}-v${version}${livemode ? '' : '-test-mode'}`, 'csv');
}
