import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { countWords } from './schema.js';

const SAMPLES: Array<[string, number]> = [
  ['', 0],
  ['   \n ', 0],
  ['The quick brown fox', 4],
  ["  it's 3.5 well-known  ", 3],
  ['Hello — world', 2],
  // Chinese and Japanese put no spaces between words: each character counts, as word processors count them.
  ['我们今天去学校考试。', 9],
  ['日本語の文章を書きます。', 11],
  ['Hello 世界 again', 4],
  ['नमस्ते दुनिया', 2],
  ['مرحبا بالعالم', 2],
];

describe('countWords', () => {
  it.each(SAMPLES)('%j has %i words', (text, words) => {
    expect(countWords(text)).toBe(words);
  });

  it('the page counts as the server does (student assets/question-fields.js)', () => {
    const source = readFileSync(new URL('../../../student/assets/question-fields.js', import.meta.url), 'utf8');
    const start = source.indexOf('  const EAST_ASIAN');
    const end = source.indexOf('  };', start) + 4;
    expect(start).toBeGreaterThan(0);
    const pageCount = new Function(`${source.slice(start, end)}\nreturn countWords;`)() as (text: string) => number;
    for (const [text, words] of SAMPLES) expect(pageCount(text)).toBe(words);
  });
});
