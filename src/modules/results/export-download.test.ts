import { describe, expect, it } from 'vitest';
import { contentDisposition } from '../../platform/http/content-disposition.js';
import { exportFileName } from './export-download.js';
import { responseCell } from './item-responses.js';

const NOW = new Date('2026-12-02T23:30:00Z');

describe('the export file name', () => {
  it("is the test's title, the kind and the day; without a test, the institution's id", () => {
    expect(exportFileName('results', 'ins_1', 'Algebra 1', NOW)).toBe('Algebra 1 - results - 2026-12-02.csv');
    expect(exportFileName('responses', 'ins_1', null, NOW)).toBe('responses-ins_1-2026-12-02.csv');
    expect(exportFileName('results', 'ins_1', '  \n ', NOW)).toBe('results-ins_1-2026-12-02.csv');
  });

  it('makes path separators, wildcards, quotes and controls safe for a file system', () => {
    expect(exportFileName('results', 'ins_1', 'A/B\\C: "D"?*<>|\tE', NOW)).toBe("A-B-C- 'D'----- E - results - 2026-12-02.csv");
  });

  it('cuts a long title by characters, never through a surrogate pair', () => {
    const name = exportFileName('results', 'ins_1', `${'a'.repeat(119)}😀😀`, NOW);
    expect(name).toBe(`${'a'.repeat(119)}😀 - results - 2026-12-02.csv`);
    expect(() => contentDisposition(name)).not.toThrow();
  });
});

describe('a response cell', () => {
  it('is a number only when the text is exactly how that number prints', () => {
    expect(responseCell('-3')).toBe(-3);
    expect(responseCell('2.5')).toBe(2.5);
    expect(responseCell('007')).toBe('007');
    expect(responseCell('2.50')).toBe('2.50');
    expect(responseCell('1e3')).toBe('1e3');
    expect(responseCell('-1+2')).toBe('-1+2');
    expect(responseCell('Paris')).toBe('Paris');
  });
});
