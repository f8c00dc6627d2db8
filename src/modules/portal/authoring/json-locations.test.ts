import { describe, expect, it } from 'vitest';
import { checkTestJson } from './check-test-json.js';
import { lineOf, scanJson } from './json-locations.js';

describe('scanJson', () => {
  it('gives the line of every value by its dotted path, keys on their own line', () => {
    const text = '{\n  "a": 1,\n  "list": [\n    { "x": "y" },\n    {\n      "z": [true, null]\n    }\n  ]\n}';
    const scan = scanJson(text);
    expect(scan.ok).toBe(true);
    if (!scan.ok) return;
    expect(scan.lines.get('a')).toBe(2);
    expect(scan.lines.get('list')).toBe(3);
    expect(scan.lines.get('list.0')).toBe(4);
    expect(scan.lines.get('list.0.x')).toBe(4);
    expect(scan.lines.get('list.1')).toBe(5);
    expect(scan.lines.get('list.1.z.1')).toBe(6);
    expect(lineOf(scan.lines, 'list.1.missing')).toBe(5);
    expect(lineOf(scan.lines, 'nowhere')).toBeNull();
  });

  it('agrees with JSON.parse on what is valid, and places each error at its line and column', () => {
    const cases: Array<[string, number, number, RegExp]> = [
      ['{"a": 1,}', 1, 9, /comma cannot come before “}”/],
      ['[1, 2,]', 1, 7, /comma cannot come before “]”/],
      ['{\n  "a": "line\nbreak"\n}', 2, 13, /line break/],
      ['{\n  "a": 1\n  "b": 2\n}', 3, 3, /Expected “,” or “}”/],
      ['{"a": tru}', 1, 7, /Expected a value/],
      ["{'a': 1}", 1, 2, /property name in double quotes/],
      ['{"a": "\\x"}', 1, 9, /Unknown escape/],
      ['{"a": 1} 2', 1, 10, /after the end/],
      ['', 1, 1, /ends where a value/],
      ['{"a": "open', 1, 7, /never closed/],
    ];
    for (const [text, line, column, message] of cases) {
      expect(() => JSON.parse(text), text).toThrow();
      const scan = scanJson(text);
      expect(scan, text).toMatchObject({ ok: false, line, column });
      if (!scan.ok) expect(scan.message, text).toMatch(message);
    }
    for (const text of ['{"a": "\\u00e9\\n", "b": [-0.5e10, 0, true, false, null], "c": {}}', '[]', '"x"', ' 12 ']) {
      expect(scanJson(text).ok, text).toBe(true);
    }
  });
});

describe('checkTestJson', () => {
  it('reports the schema problems of a test on their lines, each once', () => {
    const json = JSON.stringify({ title: '', description: 'd', durationMinutes: 5, proctoring: 'none', marking: 'auto', resultVisibility: 'immediate', questions: [{ type: 'quiz', prompt: 'p', points: 1 }] }, null, 2);
    const checked = checkTestJson(json);
    expect(checked.ok).toBe(false);
    if (checked.ok) return;
    const line = (needle: string) => json.split('\n').findIndex((l) => l.includes(needle)) + 1;
    expect(checked.errors).toContainEqual({ line: line('"title"'), field: 'title', message: expect.stringMatching(/fewer than 1/) });
    expect(checked.errors).toContainEqual({ line: line('"type": "quiz"'), field: 'questions.0.type', message: '"quiz" is not one of the known types' });
    expect(new Set(checked.errors.map((e) => `${e.field} ${e.message}`)).size).toBe(checked.errors.length);
  });
});
