import { describe, expect, it } from 'vitest';
import { compileXsdPattern, translateXsdPattern, xsdPatternProblem } from './xsd-pattern.js';

const matches = (pattern: string, text: string) => compileXsdPattern(pattern).test(text);

describe('XML Schema patterns', () => {
  it('match the whole string, never a part of it', () => {
    expect(matches('[0-9]{3}', '123')).toBe(true);
    expect(matches('[0-9]{3}', '1234')).toBe(false);
    expect(matches('cat', 'a cat')).toBe(false);
  });

  it('read ^ and $ as ordinary characters, and . as any character but a line break', () => {
    expect(matches('a^b$', 'a^b$')).toBe(true);
    expect(matches('a^b', 'ab')).toBe(false);
    expect(matches('a.c', 'abc')).toBe(true);
    expect(matches('a.c', 'a\nc')).toBe(false);
  });

  it('give \\d, \\w, \\s, \\i and \\c their XML Schema meaning, inside and outside classes', () => {
    expect(matches('\\d+', '١٢٣')).toBe(true); // Arabic-Indic digits are Nd
    expect(matches('\\w+', 'héllo')).toBe(true);
    expect(matches('\\w', '!')).toBe(false);
    expect(matches('a\\sb', 'a\tb')).toBe(true);
    expect(matches('\\i\\c*', 'xml-name.1')).toBe(true);
    expect(matches('\\i\\c*', '1abc')).toBe(false);
    expect(matches('[\\d,]+', '1,000')).toBe(true);
    expect(matches('\\p{Lu}\\p{Ll}+', 'Paris')).toBe(true);
    expect(matches('\\p{Lu}\\p{Ll}+', 'paris')).toBe(false);
  });

  it('run a pattern that backtracks catastrophically in a backtracking engine at once', () => {
    const started = performance.now();
    expect(matches('(a+)+b', `${'a'.repeat(5_000)}c`)).toBe(false);
    expect(matches('(a|aa)*c', 'a'.repeat(5_000))).toBe(false);
    expect(performance.now() - started).toBeLessThan(1_000);
  });

  it('refuse what they cannot run with XML Schema meaning, naming it', () => {
    expect(xsdPatternProblem('[a-z-[aeiou]]')).toMatch(/subtracts a character class/);
    expect(xsdPatternProblem('\\p{IsBasicLatin}+')).toMatch(/Unicode block IsBasicLatin/);
    expect(xsdPatternProblem('(?i)abc')).toMatch(/\(\? group/);
    expect(xsdPatternProblem('a+?')).toMatch(/quantifier after a quantifier/);
    expect(xsdPatternProblem('[abc')).toMatch(/not closed/);
    expect(xsdPatternProblem('\\q')).toMatch(/does not define/);
    expect(xsdPatternProblem('x'.repeat(1_001))).toMatch(/longer than 1000/);
    expect(xsdPatternProblem('a{2,1}')).toMatch(/not a valid regular expression/);
    expect(xsdPatternProblem('colou?r')).toBeNull();
    expect(translateXsdPattern('a\\+b')).toBe('a\\+b');
  });
});
