import { describe, expect, it } from 'vitest';
import { compileQtiProcessing, runQtiProcessing, type QtiData } from './index.js';

/** Mappings, area mappings, lookup tables and the rules, each expected outcome worked out by hand from QTI 3.0. */
const SCORE = '<qti-outcome-declaration identifier="SCORE" cardinality="single" base-type="float"/>';
const run = (declarations: string, responseProcessing: string, responses: Record<string, QtiData>) =>
  runQtiProcessing(compileQtiProcessing({ declarations, responseProcessing }), responses);
const mapRp = (id = 'RESPONSE', op = 'qti-map-response') =>
  `<qti-response-processing><qti-set-outcome-value identifier="SCORE"><${op} identifier="${id}"/></qti-set-outcome-value></qti-response-processing>`;

describe('mapResponse', () => {
  const decl = (card: string, base: string, mapping: string) =>
    `<qti-response-declaration identifier="RESPONSE" cardinality="${card}" base-type="${base}">${mapping}</qti-response-declaration>${SCORE}`;
  it('maps a single text answer, case-sensitively unless the entry says otherwise (also when it says nothing), else the default', () => {
    const d = decl('single', 'string', `<qti-mapping default-value="-1">
      <qti-map-entry map-key="Paris" mapped-value="2" case-sensitive="false"/>
      <qti-map-entry map-key="PARIS!" mapped-value="5" case-sensitive="true"/>
      <qti-map-entry map-key="Lyon" mapped-value="3"/>
    </qti-mapping>`);
    // "paris" matches the case-insensitive "Paris": 2.
    expect(run(d, mapRp(), { RESPONSE: 'paris' }).score).toBe(2);
    // An entry without case-sensitive compares exactly: "lyon" is not "Lyon" (−1), "Lyon" is (3).
    expect(run(d, mapRp(), { RESPONSE: 'lyon' }).score).toBe(-1);
    expect(run(d, mapRp(), { RESPONSE: 'Lyon' }).score).toBe(3);
    // "paris!" does not match the case-sensitive "PARIS!": the default −1.
    expect(run(d, mapRp(), { RESPONSE: 'paris!' }).score).toBe(-1);
    expect(run(d, mapRp(), { RESPONSE: 'PARIS!' }).score).toBe(5);
  });
  it('sums a multiple response, each key counted once, unknown values the default once each, then clamps to the bounds', () => {
    const d = decl('multiple', 'identifier', `<qti-mapping default-value="-0.5" lower-bound="0" upper-bound="3">
      <qti-map-entry map-key="A" mapped-value="1"/><qti-map-entry map-key="B" mapped-value="1.5"/><qti-map-entry map-key="C" mapped-value="2"/>
    </qti-mapping>`);
    // A + B = 2.5; A repeated counts once.
    expect(run(d, mapRp(), { RESPONSE: ['A', 'B', 'A'] }).score).toBe(2.5);
    // A + B + C = 4.5, clamped to the upper bound 3.
    expect(run(d, mapRp(), { RESPONSE: ['A', 'B', 'C'] }).score).toBe(3);
    // A + X(−0.5) + Y(−0.5) = 0; X alone = −0.5 clamped to 0.
    expect(run(d, mapRp(), { RESPONSE: ['A', 'X', 'Y'] }).score).toBe(0);
    expect(run(d, mapRp(), { RESPONSE: ['X'] }).score).toBe(0);
  });
  it('maps pairs without regard to their order', () => {
    const d = decl('multiple', 'pair', `<qti-mapping default-value="0"><qti-map-entry map-key="A B" mapped-value="1"/></qti-mapping>`);
    expect(run(d, mapRp(), { RESPONSE: [['B', 'A']] }).score).toBe(1);
  });
});

describe('mapResponsePoint', () => {
  const d = `<qti-response-declaration identifier="RESPONSE" cardinality="multiple" base-type="point">
    <qti-area-mapping default-value="-1">
      <qti-area-map-entry shape="rect" coords="0,0,10,10" mapped-value="1"/>
      <qti-area-map-entry shape="circle" coords="50,50,5" mapped-value="2"/>
      <qti-area-map-entry shape="poly" coords="100,0,120,0,110,20" mapped-value="4"/>
      <qti-area-map-entry shape="ellipse" coords="200,200,20,5" mapped-value="8"/>
    </qti-area-mapping></qti-response-declaration>${SCORE}`;
  const rp = mapRp('RESPONSE', 'qti-map-response-point');
  it('scores each area once, edges included, and the default for a point in none', () => {
    // (10,10) on the rect's corner: 1; (53,54): 3²+4² = 25 ≤ 5²: 2; (110,5) inside the triangle: 4; (215,200): (15/20)² ≤ 1: 8.
    expect(run(d, rp, { RESPONSE: [[10, 10], [53, 54], [110, 5], [215, 200]] }).score).toBe(15);
    // Two points in the rect count it once: 1.
    expect(run(d, rp, { RESPONSE: [[1, 1], [2, 2]] }).score).toBe(1);
    // (200,206) is outside the ellipse (6/5 > 1), and (54,54) outside the circle (32 > 25): −1 each.
    expect(run(d, rp, { RESPONSE: [[200, 206], [54, 54]] }).score).toBe(-2);
  });
  it('the default shape holds every point', () => {
    const dd = `<qti-response-declaration identifier="RESPONSE" cardinality="single" base-type="point"><qti-area-mapping default-value="0">
      <qti-area-map-entry shape="rect" coords="0,0,1,1" mapped-value="3"/><qti-area-map-entry shape="default" coords="" mapped-value="0.5"/>
    </qti-area-mapping></qti-response-declaration>${SCORE}`;
    expect(run(dd, rp, { RESPONSE: [500, 500] }).score).toBe(0.5);
    expect(run(dd, rp, { RESPONSE: [1, 0] }).score).toBe(3);
  });
});

describe('rules', () => {
  const decls = `<qti-response-declaration identifier="X" cardinality="single" base-type="float"/>${SCORE}
    <qti-outcome-declaration identifier="GRADE" cardinality="single" base-type="identifier">
      <qti-match-table default-value="none"><qti-match-table-entry source-value="1" target-value="one"/><qti-match-table-entry source-value="2" target-value="two"/></qti-match-table>
    </qti-outcome-declaration>
    <qti-outcome-declaration identifier="BAND" cardinality="single" base-type="integer">
      <qti-interpolation-table default-value="0">
        <qti-interpolation-table-entry source-value="90" target-value="3"/>
        <qti-interpolation-table-entry source-value="50" include-boundary="false" target-value="2"/>
        <qti-interpolation-table-entry source-value="0" target-value="1"/>
      </qti-interpolation-table>
    </qti-outcome-declaration>`;
  it('lookupOutcomeValue: a match table by exact integer, an interpolation table by the first entry at or below (strictly below without the boundary)', () => {
    const rp = `<qti-response-processing>
      <qti-lookup-outcome-value identifier="GRADE"><qti-round><qti-variable identifier="X"/></qti-round></qti-lookup-outcome-value>
      <qti-lookup-outcome-value identifier="BAND"><qti-variable identifier="X"/></qti-lookup-outcome-value>
    </qti-response-processing>`;
    // round(2.2) = 2 → "two"; 2.2 is at or above 0 but not 50 or 90 → 1.
    expect(run(decls, rp, { X: 2.2 }).outcomes).toMatchObject({ GRADE: 'two', BAND: 1 });
    // round(50) = 50 is in no entry → "none"; 50 is not strictly above 50 → falls to the 0 entry: 1.
    expect(run(decls, rp, { X: 50 }).outcomes).toMatchObject({ GRADE: 'none', BAND: 1 });
    // 95 ≥ 90 → 3.
    expect(run(decls, rp, { X: 95 }).outcomes).toMatchObject({ BAND: 3 });
    // NULL looks up nothing: the default values.
    expect(run(decls, rp, {}).outcomes).toMatchObject({ GRADE: 'none', BAND: 0 });
  });

  it('responseElseIf branches are tried in order; exitResponse stops everything after it, also from a fragment', () => {
    const set = (n: number) => `<qti-set-outcome-value identifier="SCORE"><qti-base-value base-type="float">${n}</qti-base-value></qti-set-outcome-value>`;
    const gt = (n: number) => `<qti-gt><qti-variable identifier="X"/><qti-base-value base-type="float">${n}</qti-base-value></qti-gt>`;
    const rp = `<qti-response-processing>
      <qti-response-condition>
        <qti-response-if>${gt(10)}${set(3)}</qti-response-if>
        <qti-response-else-if>${gt(5)}${set(2)}</qti-response-else-if>
        <qti-response-else-if>${gt(0)}${set(1)}<qti-response-processing-fragment><qti-exit-response/></qti-response-processing-fragment></qti-response-else-if>
      </qti-response-condition>
      <qti-set-outcome-value identifier="SCORE"><qti-sum><qti-variable identifier="SCORE"/><qti-base-value base-type="float">100</qti-base-value></qti-sum></qti-set-outcome-value>
    </qti-response-processing>`;
    // 12 > 10: 3, then + 100.
    expect(run(decls, rp, { X: 12 }).score).toBe(103);
    // 7: the first else-if, 2 + 100.
    expect(run(decls, rp, { X: 7 }).score).toBe(102);
    // 1: the second else-if sets 1 and exits; the + 100 never runs.
    expect(run(decls, rp, { X: 1 }).score).toBe(1);
    // −1: no branch; SCORE starts at 0 (numeric, no default), + 100.
    expect(run(decls, rp, { X: -1 }).score).toBe(100);
  });

  it('outcomes start at their default value; a numeric single outcome without one at 0, others at NULL', () => {
    const d = `<qti-outcome-declaration identifier="SCORE" cardinality="single" base-type="float"/>
      <qti-outcome-declaration identifier="MAXSCORE" cardinality="single" base-type="float"><qti-default-value><qti-value>4</qti-value></qti-default-value></qti-outcome-declaration>
      <qti-outcome-declaration identifier="FEEDBACK" cardinality="multiple" base-type="identifier"/>`;
    const r = run(d, '<qti-response-processing/>', {});
    expect(r.outcomes).toEqual({ SCORE: 0, MAXSCORE: 4, FEEDBACK: null });
    expect(r.score).toBe(0);
  });
  it('lets an item set the built-in completionStatus without declaring it, which is no outcome of the score', () => {
    const d = `<qti-response-declaration identifier="RESPONSE" cardinality="single" base-type="identifier"><qti-correct-response><qti-value>A</qti-value></qti-correct-response></qti-response-declaration>${SCORE}`;
    const rp = `<qti-response-processing><qti-set-outcome-value identifier="completionStatus"><qti-base-value base-type="identifier">completed</qti-base-value></qti-set-outcome-value><qti-response-condition><qti-response-if><qti-match><qti-variable identifier="RESPONSE"/><qti-correct identifier="RESPONSE"/></qti-match><qti-set-outcome-value identifier="SCORE"><qti-base-value base-type="float">2</qti-base-value></qti-set-outcome-value></qti-response-if></qti-response-condition></qti-response-processing>`;
    expect(run(d, rp, { RESPONSE: 'A' }).score).toBe(2);
    expect(compileQtiProcessing({ declarations: d, responseProcessing: rp }).outcomes.map((o) => o.identifier)).toEqual(['SCORE']);
  });
});
