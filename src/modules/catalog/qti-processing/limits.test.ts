import { describe, expect, it } from 'vitest';
import { compileQtiProcessing, QTI_PROCESSING_LIMITS, QtiProcessingError, runQtiProcessing } from './index.js';

/** Every bound the interpreter keeps, and what it refuses by name. */
const SCORE = '<qti-outcome-declaration identifier="SCORE" cardinality="single" base-type="float"/>';
const set = (expr: string) => `<qti-set-outcome-value identifier="SCORE">${expr}</qti-set-outcome-value>`;
const refusal = (declarations: string, responseProcessing: string): string => {
  try {
    compileQtiProcessing({ declarations, responseProcessing });
  } catch (err) {
    expect(err).toBeInstanceOf(QtiProcessingError);
    return (err as Error).message;
  }
  throw new Error('compiled');
};

describe('compile limits', () => {
  it('refuses 10,000 nested conditions at compile, without a stack overflow', () => {
    const depth = 10_000;
    // A NULL condition keeps each level short, so the text stays under the 1,000,000-character bound and depth is what is refused.
    const open = '<qti-response-condition><qti-response-if><qti-null/>';
    const close = '</qti-response-if></qti-response-condition>';
    const rp = `<qti-response-processing>${open.repeat(depth)}${set('<qti-base-value base-type="float">1</qti-base-value>')}${close.repeat(depth)}</qti-response-processing>`;
    expect(refusal(SCORE, rp)).toMatch(/nests elements more than 100 deep/);
  });
  it('refuses more expressions than the limit', () => {
    const n = QTI_PROCESSING_LIMITS.expressions;
    // Flat (not deep): one sum of n numbers is n + 1 expressions (2.x names, shorter, keep the text under its own bound).
    const one = '<baseValue baseType="float">1</baseValue>';
    const rp = `<qti-response-processing>${set(`<qti-sum>${one.repeat(n)}</qti-sum>`)}</qti-response-processing>`;
    expect(refusal(SCORE, rp)).toMatch(/more than 20,000 expressions/);
    // One fewer compiles and runs.
    const ok = `<qti-response-processing>${set(`<qti-sum>${one.repeat(n - 1)}</qti-sum>`)}</qti-response-processing>`;
    expect(runQtiProcessing(compileQtiProcessing({ declarations: SCORE, responseProcessing: ok }), {}).score).toBe(n - 1);
  });
  it('refuses a string longer than the limit', () => {
    const long = 'x'.repeat(QTI_PROCESSING_LIMITS.stringChars + 1);
    expect(refusal(SCORE, `<qti-response-processing>${set(`<qti-base-value base-type="string">${long}</qti-base-value>`)}</qti-response-processing>`)).toMatch(
      /longer than 10,000 characters/,
    );
    // The whole text has its own bound, checked before any parsing.
    expect(refusal(`${SCORE}<!--${'x'.repeat(QTI_PROCESSING_LIMITS.sourceChars)}-->`, '<qti-response-processing/>')).toMatch(/longer than 1,000,000 characters/);
  });
  it('refuses a DTD and malformed XML, naming the part', () => {
    expect(refusal('<!DOCTYPE x [<!ENTITY a "b">]>', '<qti-response-processing/>')).toMatch(/DTD/);
    expect(refusal(SCORE, '<qti-response-processing><qti-response-condition></qti-response-processing>')).toMatch(/response processing.*not well-formed/);
  });
});

describe('what is not supported is refused by name', () => {
  const decl = `<qti-response-declaration identifier="RESPONSE" cardinality="single" base-type="identifier"/>${SCORE}`;
  const rp = (body: string) => `<qti-response-processing>${body}</qti-response-processing>`;
  it.each([
    ['customOperator', set('<qti-custom-operator class="x.Y"><qti-variable identifier="SCORE"/></qti-custom-operator>'), /customOperator/],
    ['randomInteger', set('<qti-random-integer min="1" max="3"/>'), /randomInteger/],
    ['random', set('<qti-random><qti-multiple><qti-base-value base-type="float">1</qti-base-value></qti-multiple></qti-random>'), /random/],
    ['undeclared variable', set('<qti-variable identifier="NOPE"/>'), /NOPE, which is not declared/],
    ['setting a response', '<qti-set-outcome-value identifier="RESPONSE"><qti-base-value base-type="identifier">A</qti-base-value></qti-set-outcome-value>', /not a declared outcome/],
    ['mapResponse without a mapping', set('<qti-map-response identifier="RESPONSE"/>'), /has no mapping/],
    ['a type mismatch', set('<qti-sum><qti-variable identifier="RESPONSE"/></qti-sum>'), /sum given a identifier value/],
    ['a pattern RE2 cannot run as XSD means it', set('<qti-base-value base-type="float">1</qti-base-value>') + '<qti-response-condition><qti-response-if><qti-pattern-match pattern="[a-z-[aeiou]]"><qti-variable identifier="RESPONSE"/></qti-pattern-match></qti-response-if></qti-response-condition>', /patternMatch whose pattern/],
  ])('%s', (_, body, reason) => {
    expect(refusal(decl, rp(body))).toMatch(reason);
  });
  it('record cardinality and template declarations', () => {
    expect(refusal('<qti-response-declaration identifier="R" cardinality="record"/>', rp(''))).toMatch(/record cardinality/);
    expect(refusal('<qti-template-declaration identifier="T" cardinality="single" base-type="integer"/>', rp(''))).toMatch(/template/);
  });
});

describe('run limits', () => {
  it('stops past the step limit with QtiProcessingError', () => {
    // contains over two ordered responses of 10,000 values that never match compares up to ~10⁸ pairs: far past the limit.
    const decls = `<qti-response-declaration identifier="A" cardinality="ordered" base-type="integer"/><qti-response-declaration identifier="B" cardinality="ordered" base-type="integer"/>
      <qti-outcome-declaration identifier="HIT" cardinality="single" base-type="boolean"/>`;
    const compiled = compileQtiProcessing({
      declarations: decls,
      responseProcessing: '<qti-response-processing><qti-set-outcome-value identifier="HIT"><qti-contains><qti-variable identifier="A"/><qti-variable identifier="B"/></qti-contains></qti-set-outcome-value></qti-response-processing>',
    });
    const a = Array.from({ length: 10_000 }, () => 1);
    const b = [...Array.from({ length: 5_000 }, () => 1), 2];
    const started = Date.now();
    expect(() => runQtiProcessing(compiled, { A: a, B: b })).toThrow(/took more than 1,000,000 steps/);
    expect(Date.now() - started).toBeLessThan(2_000);
    // Small responses run fine.
    expect(runQtiProcessing(compiled, { A: [1, 2, 3], B: [2, 3] }).outcomes['HIT']).toBe(true);
  });
  it('refuses a response of more values than a container may hold', () => {
    const compiled = compileQtiProcessing({ declarations: `<qti-response-declaration identifier="A" cardinality="multiple" base-type="integer"/>${SCORE}`, responseProcessing: '<qti-response-processing/>' });
    expect(() => runQtiProcessing(compiled, { A: Array.from({ length: 10_001 }, (_, i) => i) })).toThrow(QtiProcessingError);
  });
  it('a pathological pattern runs in linear time on a long answer', () => {
    const compiled = compileQtiProcessing({
      declarations: `<qti-response-declaration identifier="S" cardinality="single" base-type="string"/>${SCORE}`,
      responseProcessing: `<qti-response-processing><qti-response-condition><qti-response-if><qti-pattern-match pattern="(a+)+b"><qti-variable identifier="S"/></qti-pattern-match>
        ${set('<qti-base-value base-type="float">1</qti-base-value>')}</qti-response-if></qti-response-condition></qti-response-processing>`,
    });
    const started = Date.now();
    expect(runQtiProcessing(compiled, { S: 'a'.repeat(9_999) }).score).toBe(0);
    expect(runQtiProcessing(compiled, { S: `${'a'.repeat(9_998)}b` }).score).toBe(1);
    expect(Date.now() - started).toBeLessThan(1_000);
  });
});

describe('speed', () => {
  it('marks a text-entry item with a 20-branch condition 1,000 times in well under a second', () => {
    const branches = Array.from({ length: 20 }, (_, i) => {
      const tag = i === 0 ? 'qti-response-if' : 'qti-response-else-if';
      return `<${tag}><qti-string-match case-sensitive="false"><qti-variable identifier="RESPONSE"/><qti-base-value base-type="string">answer ${i}</qti-base-value></qti-string-match>
        ${set(`<qti-base-value base-type="float">${i / 20}</qti-base-value>`)}</${tag}>`;
    }).join('');
    const source = {
      declarations: `<qti-response-declaration identifier="RESPONSE" cardinality="single" base-type="string"/>${SCORE}`,
      responseProcessing: `<qti-response-processing><qti-response-condition>${branches}</qti-response-condition></qti-response-processing>`,
    };
    compileQtiProcessing(source);
    const started = performance.now();
    let total = 0;
    for (let i = 0; i < 1_000; i++) total += runQtiProcessing(compileQtiProcessing(source), { RESPONSE: `Answer ${i % 25}` }).score;
    const ms = performance.now() - started;
    // Answers 0–19 score i/20 (case ignored), 20–24 match nothing: 40 rounds × (0 + … + 19)/20 = 40 × 9.5.
    expect(total).toBeCloseTo(380);
    expect(ms).toBeLessThan(1_000);
    console.log(`QTI processing: ${(ms / 1_000).toFixed(3)} ms per answer (20-branch text entry, compile cached)`);
  });
});
