import { describe, expect, it } from 'vitest';
import { evaluate, expressionProblem, ExpressionError, parseExpression, variablesOf } from './expression.js';

const value = (src: string, values: Record<string, number> = {}) => evaluate(parseExpression(src), values);
const problem = (src: string) => {
  try {
    parseExpression(src);
    return null;
  } catch (err) {
    expect(err).toBeInstanceOf(ExpressionError);
    return (err as Error).message;
  }
};

describe('expression arithmetic', () => {
  it('follows the usual precedence, with ^ right associative and above unary minus', () => {
    expect(value('1 + 2 * 3')).toBe(7);
    expect(value('(1 + 2) * 3')).toBe(9);
    expect(value('2 ^ 3 ^ 2')).toBe(512);
    expect(value('-2 ^ 2')).toBe(-4);
    expect(value('2 ^ -1')).toBe(0.5);
    expect(value('10 - 4 - 3')).toBe(3);
    expect(value('12 / 3 / 2')).toBe(2);
    expect(value('--3')).toBe(3);
    expect(value('+3')).toBe(3);
  });

  it('reads the typographic signs and numbers in every written form', () => {
    expect(value('6 × 7 − 2 ÷ 4')).toBe(41.5);
    expect(value('.5 + 1.25e2 + 2E-1 + 3.')).toBeCloseTo(128.7);
  });

  it('has the listed functions and constants', () => {
    expect(value('sqrt(16) + abs(-2) + floor(2.7) + ceil(2.1)')).toBe(11);
    expect(value('round(2.675, 2)')).toBe(2.68);
    expect(value('round(-2.5)')).toBe(-3);
    expect(value('min(3, 1, 2) + max(3, 1, 2)')).toBe(4);
    expect(value('log(e) + log10(1000) + exp(0)')).toBeCloseTo(5);
    expect(value('sin(pi / 2) + cos(0) + tan(0)')).toBeCloseTo(2);
    expect(value('asin(1) + acos(1) + atan(1)')).toBeCloseTo(Math.PI / 2 + Math.PI / 4);
  });

  it('reads variables by name', () => {
    expect(value('a * b + c', { a: 2, b: 3, c: 4 })).toBe(10);
    expect([...variablesOf(parseExpression('a + b * a + sqrt(c)')).keys()]).toEqual(['a', 'b', 'c']);
  });

  it('gives NaN or Infinity where the arithmetic has no value, for the caller to refuse', () => {
    expect(value('1 / 0')).toBe(Infinity);
    expect(value('sqrt(-1)')).toBeNaN();
  });
});

describe('expression logic for constraints', () => {
  it('compares and joins with and / or / not', () => {
    expect(value('a < b and b <= 3', { a: 1, b: 3 })).toBe(1);
    expect(value('a > b or not (a = 1)', { a: 1, b: 3 })).toBe(0);
    expect(value('a != b && a <> 2 || 0', { a: 1, b: 3 })).toBe(1);
    expect(value('0.1 + 0.2 = 0.3')).toBe(1);
    expect(value('a >= 2', { a: 2 })).toBe(1);
  });

  it('short-circuits, so a guard protects what follows it', () => {
    expect(value('a != 0 and 1 / a > 2', { a: 0 })).toBe(0);
    expect(() => value('a = 0 or q > 1', { a: 0 })).not.toThrow();
  });

  it('refuses chained comparisons rather than guessing', () => {
    expect(problem('1 < a < 3')).toBe('comparisons do not chain: join them with `and` at 7');
  });
});

describe('expression errors name the position', () => {
  it('an unknown variable, function or sign', () => {
    expect(expressionProblem('2 * p + q', ['p'])).toBe('unknown variable `q` at 9');
    expect(expressionProblem('2 * p', ['p'])).toBeNull();
    expect(problem('foo(1)')).toBe('unknown function `foo` at 1');
    expect(problem('1 + $')).toBe('unexpected `$` at 5');
    expect(() => value('a + 1', {})).toThrow('unknown variable `a` at 1');
  });

  it('wrong arguments, missing brackets, trailing and empty input', () => {
    expect(problem('sqrt(1, 2)')).toBe('`sqrt` takes 1 argument, not 2 at 1');
    expect(problem('round()')).toBe('`round` takes 1 to 2 arguments, not 0 at 1');
    expect(problem('(1 + 2')).toBe('expected `)` but found the end at 7');
    expect(problem('1 2')).toBe('unexpected `2` at 3');
    expect(problem('1 +')).toBe('the expression ends too soon at 4');
    expect(problem('   ')).toBe('the expression is empty at 1');
    expect(problem('')).toBe('the expression is empty at 1');
  });
});

describe('hostile expressions', () => {
  it('never reach JavaScript: property names and code are unknown names or stray signs', () => {
    expect(expressionProblem('constructor', [])).toBe('unknown variable `constructor` at 1');
    expect(() => value('constructor', {})).toThrow(ExpressionError);
    expect(() => value('__proto__ + toString', {})).toThrow('unknown variable `__proto__` at 1');
    expect(problem('constructor("return process")()')).toBe('unexpected `"` at 13');
    expect(problem('constructor(1)')).toBe('unknown function `constructor` at 1');
    expect(problem('toString(1)')).toBe('unknown function `toString` at 1');
    expect(problem('hasOwnProperty')).toBeNull();
    expect(problem('a.b')).toBe('unexpected `.` at 2');
    expect(problem('x = 1; process.exit()')).toBe('unexpected `;` at 6');
    expect(problem('`1`')).toBe('unexpected ``` at 1');
  });

  it('are bounded in length, nesting and size', () => {
    expect(problem('1+'.repeat(500) + '1')).toBe('an expression is at most 1000 characters at 1001');
    expect(problem('('.repeat(60) + '1' + ')'.repeat(60))).toMatch(/^an expression nests at most 50 deep at \d+$/);
    expect(problem('-'.repeat(80) + '1')).toMatch(/nests at most 50 deep/);
    expect(problem('2^'.repeat(60) + '2')).toMatch(/nests at most 50 deep/);
    expect(problem('1+'.repeat(300) + '1')).toMatch(/^an expression has at most 500 parts at \d+$/);
    expect(problem('9'.repeat(400))).toMatch(/is too large at 1$/);
    // Within every bound, a large formula still parses and evaluates.
    expect(value('(((' + '1+'.repeat(200) + '1)))')).toBe(201);
  });

  it('a long run of one sign does not hang the tokenizer', () => {
    const started = Date.now();
    expect(problem('1' + 'e'.repeat(999))).toBe('a name is at most 64 characters at 2');
    expect(problem('1'.repeat(999))).toMatch(/too large/);
    expect(Date.now() - started).toBeLessThan(1000);
  });
});
