import { describe, expect, it } from 'vitest';
import { compileQtiProcessing, runQtiProcessing, type QtiData } from './index.js';

/**
 * Scoring agreement, operator by operator: each case's expected value is
 * worked out by hand from the QTI 3.0 definitions (the comment says how).
 * `value` sets an outcome OUT of the given type to one expression and reads it back.
 */
const R = (id: string, card: string, base: string, inner = '') =>
  `<qti-response-declaration identifier="${id}" cardinality="${card}" base-type="${base}">${inner}</qti-response-declaration>`;
const correct = (...vals: string[]) => `<qti-correct-response>${vals.map((v) => `<qti-value>${v}</qti-value>`).join('')}</qti-correct-response>`;
const bv = (base: string, v: string | number) => `<qti-base-value base-type="${base}">${v}</qti-base-value>`;
const v = (id: string) => `<qti-variable identifier="${id}"/>`;

function value(expr: string, opts: { decls?: string; responses?: Record<string, QtiData>; out?: string; card?: string } = {}): QtiData {
  const compiled = compileQtiProcessing({
    declarations: `${opts.decls ?? ''}<qti-outcome-declaration identifier="OUT" cardinality="${opts.card ?? 'single'}" base-type="${opts.out ?? 'boolean'}"/>`,
    responseProcessing: `<qti-response-processing><qti-set-outcome-value identifier="OUT">${expr}</qti-set-outcome-value></qti-response-processing>`,
  });
  return runQtiProcessing(compiled, opts.responses ?? {}).outcomes['OUT']!;
}

describe('match, member, contains', () => {
  it('match compares singles by value, multiples as multisets, ordered in order; NULL gives NULL', () => {
    const decls = R('M', 'multiple', 'identifier', correct('A', 'B')) + R('O', 'ordered', 'identifier', correct('A', 'B')) + R('P', 'single', 'pair', correct('A B'));
    const m = `<qti-match>${v('M')}<qti-correct identifier="M"/></qti-match>`;
    const o = `<qti-match>${v('O')}<qti-correct identifier="O"/></qti-match>`;
    // {B, A} is the multiset {A, B}: a match.
    expect(value(m, { decls, responses: { M: ['B', 'A'] } })).toBe(true);
    // {A, B, B} holds B twice; the correct response once: no match.
    expect(value(m, { decls, responses: { M: ['A', 'B', 'B'] } })).toBe(false);
    // Ordered (B, A) is not (A, B).
    expect(value(o, { decls, responses: { O: ['B', 'A'] } })).toBe(false);
    expect(value(o, { decls, responses: { O: ['A', 'B'] } })).toBe(true);
    // A pair is unordered: "B A" is the pair "A B".
    expect(value(`<qti-match>${v('P')}<qti-correct identifier="P"/></qti-match>`, { decls, responses: { P: ['B', 'A'] } })).toBe(true);
    // No response: the variable is NULL, so match is NULL (OUT becomes NULL).
    expect(value(m, { decls, responses: {} })).toBeNull();
    // An empty container is NULL too.
    expect(value(m, { decls, responses: { M: [] } })).toBeNull();
  });

  it('member finds a single value in a container; contains needs each value (with repeats), or a consecutive run for ordered', () => {
    const decls = R('X', 'single', 'identifier') + R('M', 'multiple', 'identifier', correct('A', 'B', 'B', 'C')) + R('O', 'ordered', 'identifier', correct('A', 'B', 'C'));
    const member = `<qti-member>${v('X')}<qti-correct identifier="M"/></qti-member>`;
    expect(value(member, { decls, responses: { X: 'C' } })).toBe(true);
    expect(value(member, { decls, responses: { X: 'D' } })).toBe(false);
    expect(value(member, { decls, responses: {} })).toBeNull();
    const contains = `<qti-contains><qti-correct identifier="M"/>${v('M')}</qti-contains>`;
    // {A,B,B,C} holds B twice, so {B,B} is contained; {C,C} is not (one C).
    expect(value(contains, { decls, responses: { M: ['B', 'B'] } })).toBe(true);
    expect(value(contains, { decls, responses: { M: ['C', 'C'] } })).toBe(false);
    const ordered = `<qti-contains><qti-correct identifier="O"/>${v('O')}</qti-contains>`;
    // (B, C) is a consecutive run of (A, B, C); (A, C) is not.
    expect(value(ordered, { decls, responses: { O: ['B', 'C'] } })).toBe(true);
    expect(value(ordered, { decls, responses: { O: ['A', 'C'] } })).toBe(false);
  });
});

describe('equal with tolerances, equalRounded', () => {
  const decls = R('X', 'single', 'float');
  const eq = (attrs: string, target: number) => `<qti-equal ${attrs}>${bv('float', target)}${v('X')}</qti-equal>`;
  it('exact: only the same number', () => {
    expect(value(eq('tolerance-mode="exact"', 2.5), { decls, responses: { X: 2.5 } })).toBe(true);
    expect(value(eq('', 2.5), { decls, responses: { X: 2.50001 } })).toBe(false);
  });
  it('absolute: within [a − t0, a + t1], ends included unless told otherwise', () => {
    // 10 with tolerance 0.5: [9.5, 10.5]; 10.5 is in, 10.6 out.
    expect(value(eq('tolerance-mode="absolute" tolerance="0.5"', 10), { decls, responses: { X: 10.5 } })).toBe(true);
    expect(value(eq('tolerance-mode="absolute" tolerance="0.5"', 10), { decls, responses: { X: 10.6 } })).toBe(false);
    // Two values: [10 − 1, 10 + 0] = [9, 10]; 10.2 out, 9 in.
    expect(value(eq('tolerance-mode="absolute" tolerance="1 0"', 10), { decls, responses: { X: 10.2 } })).toBe(false);
    expect(value(eq('tolerance-mode="absolute" tolerance="1 0"', 10), { decls, responses: { X: 9 } })).toBe(true);
    // include-upper-bound false: [9.5, 10.5) excludes 10.5.
    expect(value(eq('tolerance-mode="absolute" tolerance="0.5" include-upper-bound="false"', 10), { decls, responses: { X: 10.5 } })).toBe(false);
    expect(value(eq('tolerance-mode="absolute" tolerance="0.5" include-lower-bound="false"', 10), { decls, responses: { X: 9.5 } })).toBe(false);
  });
  it('relative: within [a·(1 − t0/100), a·(1 + t1/100)]', () => {
    // 200 with 5 %: [190, 210]; 209 in, 211 out.
    expect(value(eq('tolerance-mode="relative" tolerance="5"', 200), { decls, responses: { X: 209 } })).toBe(true);
    expect(value(eq('tolerance-mode="relative" tolerance="5"', 200), { decls, responses: { X: 211 } })).toBe(false);
    // NULL response: NULL.
    expect(value(eq('tolerance-mode="relative" tolerance="5"', 200), { decls, responses: {} })).toBeNull();
  });
  it('equalRounded: both sides rounded to significant figures or decimal places, halves away from zero', () => {
    const er = (attrs: string, a: number) => `<qti-equal-rounded ${attrs}>${bv('float', a)}${v('X')}</qti-equal-rounded>`;
    // 3 significant figures: 3.14159 → 3.14 and 3.1449 → 3.14: equal; 3.146 → 3.15: not.
    expect(value(er('rounding-mode="significantFigures" figures="3"', 3.14159), { decls, responses: { X: 3.1449 } })).toBe(true);
    expect(value(er('rounding-mode="significantFigures" figures="3"', 3.14159), { decls, responses: { X: 3.146 } })).toBe(false);
    // 2 decimal places: 1.005 → 1.01 (as written, not its binary neighbour 1.00499…), 1.01 → 1.01.
    expect(value(er('rounding-mode="decimalPlaces" figures="2"', 1.005), { decls, responses: { X: 1.01 } })).toBe(true);
    // 2 significant figures of 12345 is 12000, of 12499 is 12000.
    expect(value(er('figures="2"', 12345), { decls, responses: { X: 12499 } })).toBe(true);
  });
});

describe('comparisons, logic and NULL', () => {
  const decls = R('X', 'single', 'integer') + R('B', 'single', 'boolean');
  it('lt, gt, lte, gte compare numbers; NULL gives NULL', () => {
    const cmp = (op: string) => `<qti-${op}>${v('X')}${bv('integer', 5)}</qti-${op}>`;
    expect([value(cmp('lt'), { decls, responses: { X: 4 } }), value(cmp('gt'), { decls, responses: { X: 4 } })]).toEqual([true, false]);
    expect([value(cmp('lte'), { decls, responses: { X: 5 } }), value(cmp('gte'), { decls, responses: { X: 5 } })]).toEqual([true, true]);
    expect(value(cmp('lt'), { decls, responses: {} })).toBeNull();
  });
  it('and is false if any operand is false, else NULL if any is NULL; or mirrors it; not(NULL) is NULL', () => {
    const t = bv('boolean', 'true');
    const f = bv('boolean', 'false');
    const nul = v('B'); // B unanswered: NULL
    expect(value(`<qti-and>${t}${nul}</qti-and>`, { decls })).toBeNull();
    expect(value(`<qti-and>${f}${nul}</qti-and>`, { decls })).toBe(false);
    expect(value(`<qti-or>${t}${nul}</qti-or>`, { decls })).toBe(true);
    expect(value(`<qti-or>${f}${nul}</qti-or>`, { decls })).toBeNull();
    expect(value(`<qti-not>${nul}</qti-not>`, { decls })).toBeNull();
    expect(value(`<qti-not>${f}</qti-not>`, { decls })).toBe(true);
  });
  it('isNull is true for a missing response, an empty string and an empty container', () => {
    const d = R('S', 'single', 'string') + R('M', 'multiple', 'identifier');
    expect(value(`<qti-is-null>${v('S')}</qti-is-null>`, { decls: d, responses: { S: '' } })).toBe(true);
    expect(value(`<qti-is-null>${v('S')}</qti-is-null>`, { decls: d, responses: { S: 'x' } })).toBe(false);
    expect(value(`<qti-is-null>${v('M')}</qti-is-null>`, { decls: d, responses: { M: [] } })).toBe(true);
  });
  it('a condition that is NULL takes no branch but the else', () => {
    const compiled = compileQtiProcessing({
      declarations: R('B', 'single', 'boolean') + '<qti-outcome-declaration identifier="SCORE" cardinality="single" base-type="float"/>',
      responseProcessing: `<qti-response-processing><qti-response-condition>
        <qti-response-if>${v('B')}<qti-set-outcome-value identifier="SCORE">${bv('float', 1)}</qti-set-outcome-value></qti-response-if>
        <qti-response-else><qti-set-outcome-value identifier="SCORE">${bv('float', 2)}</qti-set-outcome-value></qti-response-else>
      </qti-response-condition></qti-response-processing>`,
    });
    expect(runQtiProcessing(compiled, {}).score).toBe(2);
    expect(runQtiProcessing(compiled, { B: true }).score).toBe(1);
  });
});

describe('arithmetic', () => {
  const decls = R('X', 'single', 'integer') + R('F', 'single', 'float');
  const num = (expr: string, responses: Record<string, QtiData> = {}, out = 'float') => value(expr, { decls, responses, out });
  it('sum, product, subtract, divide; integers stay integers, divide by zero is NULL', () => {
    expect(num(`<qti-sum>${bv('integer', 2)}${v('X')}${bv('float', 0.5)}</qti-sum>`, { X: 3 })).toBe(5.5);
    expect(num(`<qti-product>${bv('integer', 2)}${v('X')}</qti-product>`, { X: 3 }, 'integer')).toBe(6);
    expect(num(`<qti-subtract>${v('X')}${bv('integer', 5)}</qti-subtract>`, { X: 3 }, 'integer')).toBe(-2);
    expect(num(`<qti-divide>${v('X')}${bv('integer', 2)}</qti-divide>`, { X: 3 })).toBe(1.5);
    expect(num(`<qti-divide>${v('X')}${bv('integer', 0)}</qti-divide>`, { X: 3 })).toBeNull();
    // One NULL operand makes the sum NULL.
    expect(num(`<qti-sum>${bv('integer', 2)}${v('X')}</qti-sum>`)).toBeNull();
  });
  it('round halves up, truncate toward zero, integerDivide floors, integerModulus follows it, power, min, max', () => {
    // round(x) = floor(x + 0.5): 6.5 → 7, −6.5 → −6.
    expect(num(`<qti-round>${v('F')}</qti-round>`, { F: 6.5 }, 'integer')).toBe(7);
    expect(num(`<qti-round>${v('F')}</qti-round>`, { F: -6.5 }, 'integer')).toBe(-6);
    expect(num(`<qti-truncate>${v('F')}</qti-truncate>`, { F: -6.7 }, 'integer')).toBe(-6);
    // −7 ÷ 2 = −3.5, floored −4; remainder −7 − 2·(−4) = 1.
    expect(num(`<qti-integer-divide>${v('X')}${bv('integer', 2)}</qti-integer-divide>`, { X: -7 }, 'integer')).toBe(-4);
    expect(num(`<qti-integer-modulus>${v('X')}${bv('integer', 2)}</qti-integer-modulus>`, { X: -7 }, 'integer')).toBe(1);
    expect(num(`<qti-power>${v('X')}${bv('integer', 3)}</qti-power>`, { X: 2 })).toBe(8);
    // 10^400 is not a float: NULL.
    expect(num(`<qti-power>${bv('integer', 10)}${bv('integer', 400)}</qti-power>`)).toBeNull();
    expect(num(`<qti-min>${v('X')}${bv('float', 2.5)}</qti-min>`, { X: 3 })).toBe(2.5);
    expect(num(`<qti-max>${v('X')}${bv('float', 2.5)}</qti-max>`, { X: 3 })).toBe(3);
  });
});

describe('containers', () => {
  const decls = R('O', 'ordered', 'identifier') + R('M', 'multiple', 'identifier');
  it('index picks the nth value (1-based), NULL past the end; containerSize counts, 0 for NULL', () => {
    expect(value(`<qti-index n="2">${v('O')}</qti-index>`, { decls, responses: { O: ['A', 'B', 'C'] }, out: 'identifier' })).toBe('B');
    expect(value(`<qti-index n="4">${v('O')}</qti-index>`, { decls, responses: { O: ['A', 'B', 'C'] }, out: 'identifier' })).toBeNull();
    expect(value(`<qti-container-size>${v('M')}</qti-container-size>`, { decls, responses: { M: ['A', 'B'] }, out: 'integer' })).toBe(2);
    expect(value(`<qti-container-size>${v('M')}</qti-container-size>`, { decls, responses: {}, out: 'integer' })).toBe(0);
  });
  it('multiple and ordered gather values, skipping NULLs', () => {
    const expr = `<qti-multiple>${bv('identifier', 'A')}${v('M')}<qti-null/></qti-multiple>`;
    expect(value(expr, { decls, responses: { M: ['B', 'C'] }, out: 'identifier', card: 'multiple' })).toEqual(['A', 'B', 'C']);
    expect(value(`<qti-ordered>${v('O')}</qti-ordered>`, { decls, responses: {}, out: 'identifier', card: 'ordered' })).toBeNull();
  });
});

describe('strings', () => {
  const decls = R('S', 'single', 'string');
  it('stringMatch: case-sensitive or not, whole or substring', () => {
    const sm = (attrs: string) => `<qti-string-match ${attrs}>${v('S')}${bv('string', 'Paris')}</qti-string-match>`;
    expect(value(sm('case-sensitive="true"'), { decls, responses: { S: 'paris' } })).toBe(false);
    expect(value(sm('case-sensitive="false"'), { decls, responses: { S: 'paris' } })).toBe(true);
    expect(value(sm('case-sensitive="false" substring="true"'), { decls, responses: { S: 'in PARIS, France' } })).toBe(true);
    expect(value(sm('case-sensitive="false"'), { decls, responses: { S: 'in Paris' } })).toBe(false);
  });
  it('patternMatch matches the whole string with XML Schema meaning', () => {
    const pm = `<qti-pattern-match pattern="\\d{3}-[A-Z]+">${v('S')}</qti-pattern-match>`;
    expect(value(pm, { decls, responses: { S: '123-AB' } })).toBe(true);
    expect(value(pm, { decls, responses: { S: 'x123-AB' } })).toBe(false);
    expect(value(pm, { decls, responses: {} })).toBeNull();
  });
});
