import { standardTemplate } from './templates.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileQtiProcessing, runQtiProcessing, type QtiData } from './index.js';
import { STANDARD_TEMPLATES } from './templates.js';

/**
 * The three standard templates, referenced by URI, against their bodies
 * written out inline (in QTI 2.1 camelCase, as real 2.1 items do): on any
 * response the outcomes must agree. And 2.1 names read as 3.0 names.
 */
const ids = ['A', 'B', 'C', 'D'];
const choiceDecls21 = (card: string) => `<responseDeclaration identifier="RESPONSE" cardinality="${card}" baseType="identifier">
  <correctResponse><value>A</value>${card === 'single' ? '' : '<value>C</value>'}</correctResponse>
  <mapping defaultValue="-0.5" lowerBound="0" upperBound="2"><mapEntry mapKey="A" mappedValue="1"/><mapEntry mapKey="C" mappedValue="1"/><mapEntry mapKey="B" mappedValue="0.25"/></mapping>
</responseDeclaration><outcomeDeclaration identifier="SCORE" cardinality="single" baseType="float"/>`;
const pointDecls21 = `<responseDeclaration identifier="RESPONSE" cardinality="multiple" baseType="point">
  <areaMapping defaultValue="-1" lowerBound="-1"><areaMapEntry shape="rect" coords="0,0,20,20" mappedValue="1"/><areaMapEntry shape="circle" coords="40,40,10" mappedValue="2"/></areaMapping>
</responseDeclaration><outcomeDeclaration identifier="SCORE" cardinality="single" baseType="float"/>`;

const inline21 = {
  match_correct: `<responseProcessing><responseCondition><responseIf><match><variable identifier="RESPONSE"/><correct identifier="RESPONSE"/></match>
    <setOutcomeValue identifier="SCORE"><baseValue baseType="float">1</baseValue></setOutcomeValue></responseIf>
    <responseElse><setOutcomeValue identifier="SCORE"><baseValue baseType="float">0</baseValue></setOutcomeValue></responseElse></responseCondition></responseProcessing>`,
  map_response: `<responseProcessing><responseCondition><responseIf><isNull><variable identifier="RESPONSE"/></isNull>
    <setOutcomeValue identifier="SCORE"><baseValue baseType="float">0.0</baseValue></setOutcomeValue></responseIf>
    <responseElse><setOutcomeValue identifier="SCORE"><mapResponse identifier="RESPONSE"/></setOutcomeValue></responseElse></responseCondition></responseProcessing>`,
  map_response_point: `<responseProcessing><responseCondition><responseIf><isNull><variable identifier="RESPONSE"/></isNull>
    <setOutcomeValue identifier="SCORE"><baseValue baseType="float">0.0</baseValue></setOutcomeValue></responseIf>
    <responseElse><setOutcomeValue identifier="SCORE"><mapResponsePoint identifier="RESPONSE"/></setOutcomeValue></responseElse></responseCondition></responseProcessing>`,
};
const uri21 = (name: string) => `<responseProcessing template="http://www.imsglobal.org/question/qti_v2p1/rptemplates/${name}"/>`;
const uri30 = (name: string) => `<qti-response-processing template="https://purl.imsglobal.org/spec/qti/v3p0/rptemplates/${name}.xml"/>`;

function agree(declarations: string, name: keyof typeof inline21, response: fc.Arbitrary<QtiData>) {
  const byUri21 = compileQtiProcessing({ declarations, responseProcessing: uri21(name) });
  const byUri30 = compileQtiProcessing({ declarations, responseProcessing: uri30(name) });
  const written = compileQtiProcessing({ declarations, responseProcessing: inline21[name] });
  fc.assert(
    fc.property(response, (r) => {
      const expected = runQtiProcessing(written, { RESPONSE: r });
      expect(runQtiProcessing(byUri21, { RESPONSE: r })).toEqual(expected);
      expect(runQtiProcessing(byUri30, { RESPONSE: r })).toEqual(expected);
    }),
    { numRuns: 300 },
  );
}

const maybe = <T,>(a: fc.Arbitrary<T>) => fc.option(a, { nil: null });
const point = fc.tuple(fc.integer({ min: -5, max: 60 }), fc.integer({ min: -5, max: 60 }));

describe('the standard templates', () => {
  it('match_correct agrees with its written-out body on single and multiple choices', () => {
    agree(choiceDecls21('single'), 'match_correct', maybe(fc.constantFrom(...ids)));
    agree(choiceDecls21('multiple'), 'match_correct', maybe(fc.array(fc.constantFrom(...ids), { maxLength: 5 })));
  });
  it('map_response agrees with its written-out body', () => {
    agree(choiceDecls21('single'), 'map_response', maybe(fc.constantFrom(...ids, 'E')));
    agree(choiceDecls21('multiple'), 'map_response', maybe(fc.array(fc.constantFrom(...ids, 'E'), { maxLength: 6 })));
  });
  it('map_response_point agrees with its written-out body', () => {
    agree(pointDecls21, 'map_response_point', maybe(fc.array(point, { maxLength: 5 })));
  });
  it('the written-out body is the template the module expands (same text, 3.0 names)', () => {
    const decls = choiceDecls21('single');
    for (const name of ['match_correct', 'map_response'] as const) {
      const a = compileQtiProcessing({ declarations: decls, responseProcessing: STANDARD_TEMPLATES[name] });
      for (const r of [null, 'A', 'B', 'E']) expect(runQtiProcessing(a, { RESPONSE: r }).score).toBe(runQtiProcessing(compileQtiProcessing({ declarations: decls, responseProcessing: inline21[name] }), { RESPONSE: r }).score);
    }
  });
  it('a template reference of another kind is refused, naming it', () => {
    expect(() => compileQtiProcessing({ declarations: choiceDecls21('single'), responseProcessing: uri21('cc2_match_basic') })).toThrow(/template .*cc2_match_basic/);
  });
});

describe('QTI 2.1 names', () => {
  it('read the same as QTI 3.0 names: a text-entry item with a tolerance, a pattern and a lookup', () => {
    const v21 = {
      declarations: `<responseDeclaration identifier="RESPONSE" cardinality="single" baseType="float"><correctResponse><value>9.81</value></correctResponse></responseDeclaration>
        <responseDeclaration identifier="UNIT" cardinality="single" baseType="string"/>
        <outcomeDeclaration identifier="SCORE" cardinality="single" baseType="float"/>
        <outcomeDeclaration identifier="BAND" cardinality="single" baseType="identifier"><matchTable defaultValue="low"><matchTableEntry sourceValue="2" targetValue="high"/></matchTable></outcomeDeclaration>`,
      responseProcessing: `<responseProcessing><responseCondition><responseIf>
          <and><equal toleranceMode="relative" tolerance="1" includeUpperBound="false"><correct identifier="RESPONSE"/><variable identifier="RESPONSE"/></equal>
          <patternMatch pattern="m/s\\^?2"><variable identifier="UNIT"/></patternMatch></and>
          <setOutcomeValue identifier="SCORE"><baseValue baseType="float">2</baseValue></setOutcomeValue></responseIf>
        <responseElseIf><stringMatch caseSensitive="false"><variable identifier="UNIT"/><baseValue baseType="string">M/S2</baseValue></stringMatch>
          <setOutcomeValue identifier="SCORE"><baseValue baseType="float">0.5</baseValue></setOutcomeValue></responseElseIf></responseCondition>
        <lookupOutcomeValue identifier="BAND"><truncate><variable identifier="SCORE"/></truncate></lookupOutcomeValue></responseProcessing>`,
    };
    const v30 = {
      declarations: `<qti-response-declaration identifier="RESPONSE" cardinality="single" base-type="float"><qti-correct-response><qti-value>9.81</qti-value></qti-correct-response></qti-response-declaration>
        <qti-response-declaration identifier="UNIT" cardinality="single" base-type="string"/>
        <qti-outcome-declaration identifier="SCORE" cardinality="single" base-type="float"/>
        <qti-outcome-declaration identifier="BAND" cardinality="single" base-type="identifier"><qti-match-table default-value="low"><qti-match-table-entry source-value="2" target-value="high"/></qti-match-table></qti-outcome-declaration>`,
      responseProcessing: `<qti-response-processing><qti-response-condition><qti-response-if>
          <qti-and><qti-equal tolerance-mode="relative" tolerance="1" include-upper-bound="false"><qti-correct identifier="RESPONSE"/><qti-variable identifier="RESPONSE"/></qti-equal>
          <qti-pattern-match pattern="m/s\\^?2"><qti-variable identifier="UNIT"/></qti-pattern-match></qti-and>
          <qti-set-outcome-value identifier="SCORE"><qti-base-value base-type="float">2</qti-base-value></qti-set-outcome-value></qti-response-if>
        <qti-response-else-if><qti-string-match case-sensitive="false"><qti-variable identifier="UNIT"/><qti-base-value base-type="string">M/S2</qti-base-value></qti-string-match>
          <qti-set-outcome-value identifier="SCORE"><qti-base-value base-type="float">0.5</qti-base-value></qti-set-outcome-value></qti-response-else-if></qti-response-condition>
        <qti-lookup-outcome-value identifier="BAND"><qti-truncate><qti-variable identifier="SCORE"/></qti-truncate></qti-lookup-outcome-value></qti-response-processing>`,
    };
    const a = compileQtiProcessing(v21);
    const b = compileQtiProcessing(v30);
    expect(a).toEqual(b);
    // 9.81 ± 1 %: [9.7119, 9.9081); 9.9 with "m/s^2" (matches the pattern): 2 → BAND truncate(2) = 2 → high.
    // 9.95 is above the range, but "m/s2" equals "M/S2" ignoring case: the else-if, 0.5 → truncate 0 → low.
    // 9.95 with "m/s^2": neither branch, SCORE stays 0.
    const cases: Array<[Record<string, QtiData>, number, string]> = [
      [{ RESPONSE: 9.9, UNIT: 'm/s^2' }, 2, 'high'],
      [{ RESPONSE: 9.95, UNIT: 'm/s2' }, 0.5, 'low'],
      [{ RESPONSE: 9.95, UNIT: 'm/s^2' }, 0, 'low'],
      [{ RESPONSE: 1, UNIT: 'm/s2' }, 0.5, 'low'],
      [{}, 0, 'low'],
    ];
    for (const [responses, score, band] of cases) {
      expect(runQtiProcessing(a, responses)).toEqual({ outcomes: { SCORE: score, BAND: band }, score });
      expect(runQtiProcessing(b, responses)).toEqual(runQtiProcessing(a, responses));
    }
  });
  it("reads Common Cartridge's CC2_match and CC2_map_response as the standard templates they equal, and not CC2_match_basic (SCORE = MAXSCORE)", () => {
    expect(standardTemplate('https://www.imsglobal.org/question/qti_v3p0/rptemplates/CC2_match.xml')).toBe('match_correct');
    expect(standardTemplate('https://www.imsglobal.org/question/qti_v3p0/rptemplates/CC2_map_response.xml')).toBe('map_response');
    expect(standardTemplate('https://www.imsglobal.org/question/qti_v3p0/rptemplates/CC2_match_basic.xml')).toBeNull();
  });
});
