import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { AppError } from '../../../platform/errors.js';
import { importCsv, listCell } from './csv-import.js';

const TEMPLATE = fs.readFileSync(path.resolve(import.meta.dirname, '../../../../docs/examples/questions-template.csv'), 'utf8');

function errorsOf(csv: string) {
  try {
    importCsv(csv, 'T');
  } catch (err) {
    expect(err).toBeInstanceOf(AppError);
    return (err as AppError).details;
  }
  throw new Error('expected the CSV to be refused');
}

describe('CSV import', () => {
  it('the template in docs/examples imports every row: all nine types, sections, a pool, shuffles', () => {
    const { input, report } = importCsv(TEMPLATE, 'Template');
    expect(report.imported).toBe(11);
    expect(input.marking).toBe('hybrid');
    expect(input.sections!.map((s) => [s.title, s.draw, s.shuffleQuestions ?? false, s.questions.map((q) => q.type)])).toEqual([
      ['Warm-up', undefined, true, ['single_choice', 'multiple_choice', 'short_text', 'numeric']],
      ['Pool', 2, false, ['numeric', 'numeric', 'ordering']],
      ['Matching and blanks', undefined, false, ['matching', 'fill_blanks']],
      ['Written work', undefined, false, ['essay', 'file_upload']],
    ]);
    const [sc] = input.sections![0]!.questions;
    expect(sc).toMatchObject({ correctOptionId: 'b', shuffleOptions: true });
    expect(input.sections![2]!.questions[0]).toMatchObject({ stems: [{ id: 's1', text: 'France' }, { id: 's2', text: 'Spain' }, { id: 's3', text: 'Italy' }], correct: { s1: 'a', s2: 'b', s3: 'c' } });
    expect(input.sections![3]!.questions[1]).toMatchObject({ accept: ['application/pdf', 'image/png'], rubric: 'Method, results and conclusion.' });
  });

  it('a pool of unequal points in the template would be reported at the row of its section', () => {
    const details = errorsOf(TEMPLATE.replace('Pool,numeric,,What is 9 × 6?,1,', 'Pool,numeric,,What is 9 × 6?,2,'));
    expect(details).toEqual([{ field: 'row 6, draw', message: expect.stringMatching(/equal points/), prompt: 'What is 7 × 8?' }]);
  });

  it('lists are split on | with \\| for a literal bar; empty parts dropped', () => {
    expect(listCell('a | b\\|c || d')).toEqual(['a', 'b|c', 'd']);
  });

  it('reports each problem by row and column: a missing column, bad booleans, a choice blank without its mark, a CSV that does not parse', () => {
    expect(errorsOf('prompt\nHello')).toEqual([{ field: 'row 1, type', message: 'is a required column' }]);
    expect(errorsOf('type,prompt,options,correct,shuffle_options\nsingle_choice,P,A|B,1,maybe')).toEqual([{ field: 'row 2, shuffle_options', message: '"maybe" is not true or false', prompt: 'P' }]);
    expect(errorsOf('type,prompt,text\nfill_blanks,P,"a {{x|*y|*z}} b"')).toEqual([{ field: 'row 2, text', message: 'blank 1 marks 2 choices with *; mark exactly one', prompt: 'P' }]);
    expect(errorsOf('type,prompt\nessay,"unclosed')![0]!.field).toMatch(/^row|body/);
    expect(errorsOf('type,prompt,points\nessay,P,0')).toEqual([{ field: 'row 2, points', message: expect.stringMatching(/must be > 0/), prompt: 'P' }]);
  });
});
