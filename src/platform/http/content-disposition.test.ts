import { describe, expect, it } from 'vitest';
import { attachment, contentDisposition } from './content-disposition.js';

describe('attachment', () => {
  it('gives an ASCII filename and the exact UTF-8 name as filename*', () => {
    expect(attachment('Énergie « quiz » 2', 'zip')).toBe(`attachment; filename="Energie quiz 2.zip"; filename*=UTF-8''%C3%89nergie%20%C2%AB%20quiz%20%C2%BB%202.zip`);
  });
  it('never lets a quote, a path or a header break out of the value', () => {
    const h = attachment('a"b\r\nSet-Cookie: x/../y', 'csv');
    expect(h).toBe(`attachment; filename="a b Set-Cookie x .. y.csv"; filename*=UTF-8''a%22b%20Set-Cookie%3A%20x%20..%20y.csv`);
    expect(h).not.toMatch(/[\r\n]/);
  });
  it('falls back to a name when nothing of the title is left', () => {
    expect(attachment('日本語', 'csv', 'test')).toBe(`attachment; filename="test.csv"; filename*=UTF-8''%E6%97%A5%E6%9C%AC%E8%AA%9E.csv`);
    expect(attachment('  ', 'zip', 'test')).toBe(`attachment; filename="test.zip"; filename*=UTF-8''test.zip`);
  });
});

describe('contentDisposition', () => {
  it('keeps the extension and the words it can write in ASCII; filename* carries the exact name', () => {
    expect(contentDisposition('Géographie – «Europe» (1).csv')).toBe(
      `attachment; filename="Geographie Europe (1).csv"; filename*=UTF-8''G%C3%A9ographie%20%E2%80%93%20%C2%ABEurope%C2%BB%20%281%29.csv`,
    );
    expect(contentDisposition('数学 - results - 2026-12-02.csv')).toBe(`attachment; filename="results - 2026-12-02.csv"; filename*=UTF-8''%E6%95%B0%E5%AD%A6%20-%20results%20-%202026-12-02.csv`);
  });

  it('keeps quotes, backslashes and percent signs out of the quoted ASCII name', () => {
    expect(contentDisposition(`it's 100% a\\b.csv`)).toBe(`attachment; filename="it's 100 a b.csv"; filename*=UTF-8''it%27s%20100%25%20a%5Cb.csv`);
  });

  it('names a file inline, and falls back when no ASCII is left', () => {
    expect(contentDisposition('sketch.png', 'inline')).toBe(`inline; filename="sketch.png"; filename*=UTF-8''sketch.png`);
    expect(contentDisposition('写真.png', 'inline', 'file')).toBe(`inline; filename="file.png"; filename*=UTF-8''%E5%86%99%E7%9C%9F.png`);
  });
});
