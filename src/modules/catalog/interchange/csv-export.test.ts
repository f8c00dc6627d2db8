import { describe, expect, it } from 'vitest';
import { AppError } from '../../../platform/errors.js';
import type { Question } from '../schemas.js';
import { exportCsv } from './csv-export.js';
import { importCsv } from './csv-import.js';

const q = (x: Record<string, unknown>) => ({ points: 1, prompt: 'P', ...x }) as unknown as Question;
const refusal = (questions: Question[]) => {
  try {
    exportCsv({ questions });
  } catch (err) {
    if (err instanceof AppError) return { code: err.code, details: err.details };
    throw err;
  }
  return null;
};

describe('CSV export', () => {
  it('writes bars, equals signs, quotes and line breaks so that the import reads the same texts back', () => {
    const questions = [
      q({ id: 'q1', type: 'single_choice', prompt: 'Line one\nline "two", and more', options: [{ id: 'a', text: 'x|y' }, { id: 'b', text: 'z' }], correctOptionId: 'a' }),
      q({ id: 'q2', type: 'matching', stems: [{ id: 's1', text: 'a=b' }, { id: 's2', text: 'c' }], choices: [{ id: 'k', text: 'K' }, { id: 'm', text: 'M|N' }], correct: { s1: 'm', s2: 'k' } }),
      q({ id: 'q3', type: 'fill_blanks', text: 'The {{b1}} and {{b2}}.', blanks: [{ id: 'b1', kind: 'text', acceptedAnswers: ['one|1'], caseSensitive: true }, { id: 'b2', kind: 'choice', options: [{ id: 'o1', text: 'x' }, { id: 'o2', text: 'y' }], correctOptionId: 'o2' }] }),
    ];
    const back = importCsv(exportCsv({ questions }), 'T').input.questions as unknown as Array<Record<string, any>>;
    expect(back[0]).toMatchObject({ id: 'q1', prompt: 'Line one\nline "two", and more', options: [{ text: 'x|y' }, { text: 'z' }], correctOptionId: 'a' });
    expect(back[1]).toMatchObject({ stems: [{ text: 'a=b' }, { text: 'c' }], choices: [{ text: 'K' }, { text: 'M|N' }], correct: { s1: 'b', s2: 'a' } });
    expect(back[2]).toMatchObject({ text: 'The {{b1}} and {{b2}}.', blanks: [{ kind: 'text', acceptedAnswers: ['one|1'], caseSensitive: true }, { kind: 'choice', correctOptionId: 'b' }] });
  });

  it('refuses, naming each question, what a CSV cannot hold rather than writing it differently', () => {
    expect(refusal([q({ id: 'h', type: 'hot_text' })])).toEqual({ code: 'invalid_state', details: [{ field: 'question 1', message: '“P” is a hot_text question, which CSV cannot hold: export the QTI package instead' }] });
    expect(refusal([q({ id: 's', type: 'short_text', acceptedAnswers: [{ text: 'x', points: 0.5 }] })])?.details?.[0]?.message).toMatch(/own points, case rule or pattern/);
    expect(refusal([q({ id: 'n', type: 'numeric', answer: 1, scoring: { declarations: '', responseProcessing: '' } })])?.details?.[0]?.message).toMatch(/QTI response processing/);
    expect(refusal([q({ id: 'o', type: 'ordering', items: [{ id: 'a', text: ' padded' }, { id: 'b', text: 'b' }] })])?.details?.[0]?.message).toMatch(/spaces at an end/);
    expect(refusal([q({ id: 'ok', type: 'essay' })])).toBeNull();
  });

  it('refuses two sections of one title: the CSV tells sections apart by title', () => {
    const sec = (id: string) => ({ id, title: 'Part', shuffleQuestions: false, questions: [q({ id: `q${id}`, type: 'essay' })] });
    expect(() => exportCsv({ sections: [sec('a'), sec('b')] as never })).toThrow(/needs a title of its own/);
  });
});
