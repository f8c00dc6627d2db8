import { describe, expect, it } from 'vitest';
import type { AnswerValue } from '../attempts/answer-values.js';
import { itemXml } from '../catalog/interchange/qti-export-items.js';
import { PLAIN } from '../catalog/interchange/qti-writer.js';
import { scoringProblems } from '../catalog/qti-scoring.js';
import { checkSelectPoint } from '../catalog/question-types/select-point/schema.js';
import type { Question, QuestionInput } from '../catalog/schemas.js';
import { mapItem } from '../catalog/interchange/qti-items.js';
import { parseXml } from '../catalog/interchange/xml.js';
import { base, imported, item, points, set, v, when } from './qti-item-test-kit.js';

/**
 * Items of the hot text, slider, associate and select point interactions
 * whose processing their type's own rule does not reproduce: imported with
 * the processing kept (`scoring`), marked by running it (the marks below
 * are worked out by hand from each item's processing), and exported and
 * imported again to the same question and the same marks.
 */
const MAP_RESPONSE = '<qti-response-processing template="https://purl.imsglobal.org/spec/qti/v3p0/rptemplates/map_response.xml"/>';

/** Exported as a QTI item and imported again: the same question, which marks every answer as before. */
function expectRoundTrip(q: Question, answers: AnswerValue[]) {
  const again = imported(itemXml(q, PLAIN));
  expect(again).toEqual(q);
  for (const a of answers) expect(points(again, a)).toBe(points(q, a));
}

describe('kept QTI processing on hot text, slider, associate and select point items', () => {
  it('slider: 2 points for the exact value, 1 within a band around it', () => {
    const exact = `<qti-match>${v('RESPONSE')}<qti-correct identifier="RESPONSE"/></qti-match>`;
    const band = `<qti-and><qti-gte>${v('RESPONSE')}${base('integer', 35)}</qti-gte><qti-lte>${v('RESPONSE')}${base('integer', 39)}</qti-lte></qti-and>`;
    const q = imported(
      item(
        'slider-band',
        '<qti-response-declaration identifier="RESPONSE" cardinality="single" base-type="integer"><qti-correct-response><qti-value>37</qti-value></qti-correct-response></qti-response-declaration>',
        '<p>How many bones are in the human hand and wrist, give or take?</p><qti-slider-interaction response-identifier="RESPONSE" lower-bound="0" upper-bound="60" step="1"/>',
        set(base('float', 0)) + `<qti-response-condition><qti-response-if>${exact}${set(base('float', 2))}</qti-response-if><qti-response-else-if>${band}${set(base('float', 1))}</qti-response-else-if></qti-response-condition>`,
      ),
    );
    expect(q).toMatchObject({ type: 'slider', points: 2, min: 0, max: 60, step: 1, correct: 37, scoring: { responses: [{ identifier: 'RESPONSE' }] } });
    expect(points(q, 37)).toBe(2);
    expect(points(q, 36)).toBe(1);
    expect(points(q, 39)).toBe(1);
    expect(points(q, 35)).toBe(1);
    expect(points(q, 40)).toBe(0);
    expect(points(q, 0)).toBe(0);
    expect(points(q, null)).toBe(0);
    expectRoundTrip(q, [37, 36, 40, null]);
  });

  it('hot text: a mapping with unequal and negative entries, bounded below by 0', () => {
    const spots = ['h1', 'h2', 'h3', 'h4'];
    const q = imported(
      item(
        'hot-mapped',
        '<qti-response-declaration identifier="RESPONSE" cardinality="multiple" base-type="identifier"><qti-correct-response><qti-value>h1</qti-value><qti-value>h2</qti-value></qti-correct-response>' +
          '<qti-mapping default-value="0" lower-bound="0"><qti-map-entry map-key="h1" mapped-value="2"/><qti-map-entry map-key="h2" mapped-value="1"/><qti-map-entry map-key="h3" mapped-value="-1"/><qti-map-entry map-key="h4" mapped-value="-0.5"/></qti-mapping></qti-response-declaration>',
        `<qti-hottext-interaction response-identifier="RESPONSE" max-choices="0"><qti-prompt>Choose the verbs.</qti-prompt><p>${spots.map((s, i) => `<qti-hottext identifier="${s}">${['ran', 'sang', 'blue', 'dog'][i]}</qti-hottext>`).join(' ')}</p></qti-hottext-interaction>`,
        '',
      ).replace('<qti-response-processing></qti-response-processing>', MAP_RESPONSE),
    );
    // Assay's own rule gives each correct hottext the same weight: 2 and 1 keep the processing.
    expect(q).toMatchObject({ type: 'hot_text', points: 3, correct: ['h1', 'h2'], hotspots: spots.map((id) => ({ id })), scoring: { responses: [{ identifier: 'RESPONSE' }] } });
    expect(q).not.toHaveProperty('maxChoices');
    expect(points(q, ['h1', 'h2'])).toBe(3);
    expect(points(q, ['h1', 'h3'])).toBe(1);
    expect(points(q, ['h2', 'h4'])).toBe(0.5);
    expect(points(q, ['h3'])).toBe(0);
    expect(points(q, ['h1', 'h2', 'h3', 'h4'])).toBe(1.5);
    expect(points(q, null)).toBe(0);
    expectRoundTrip(q, [['h1', 'h2'], ['h2', 'h4'], ['h3'], null]);
  });

  it('hot text: a single response gets the one hottext chosen, and allows one pick', () => {
    const q = imported(
      item(
        'hot-single',
        '<qti-response-declaration identifier="PICK" cardinality="single" base-type="identifier"><qti-correct-response><qti-value>b</qti-value></qti-correct-response></qti-response-declaration>',
        '<qti-hottext-interaction response-identifier="PICK" max-choices="1"><p>The <qti-hottext identifier="a">cat</qti-hottext> <qti-hottext identifier="b">slept</qti-hottext> <qti-hottext identifier="c">soundly</qti-hottext>.</p></qti-hottext-interaction>',
        // The verb is worth 2, the adverb 0.5: no all-or-nothing rule.
        when(`<qti-match>${v('PICK')}<qti-correct identifier="PICK"/></qti-match>`, set(base('float', 2))) +
          when(`<qti-match>${v('PICK')}${base('identifier', 'c')}</qti-match>`, set(base('float', 0.5))),
      ),
    );
    expect(q).toMatchObject({ type: 'hot_text', points: 2, correct: ['b'], maxChoices: 1 });
    expect(points(q, ['b'])).toBe(2);
    expect(points(q, ['c'])).toBe(0.5);
    expect(points(q, ['a'])).toBe(0);
    expectRoundTrip(q, [['b'], ['c'], ['a'], null]);
  });

  it('associate: pairs either way round, with a bonus for the whole key', () => {
    const q = imported(
      item(
        'assoc-bonus',
        '<qti-response-declaration identifier="PAIRS" cardinality="multiple" base-type="pair"><qti-correct-response><qti-value>A B</qti-value><qti-value>C D</qti-value></qti-correct-response>' +
          '<qti-mapping default-value="0"><qti-map-entry map-key="A B" mapped-value="1"/><qti-map-entry map-key="C D" mapped-value="1"/><qti-map-entry map-key="A C" mapped-value="-1"/></qti-mapping></qti-response-declaration>',
        '<qti-associate-interaction response-identifier="PAIRS" max-associations="2"><qti-prompt>Pair each animal with its young.</qti-prompt><qti-simple-associable-choice identifier="A" match-max="1">Cat</qti-simple-associable-choice><qti-simple-associable-choice identifier="B" match-max="1">Kitten</qti-simple-associable-choice><qti-simple-associable-choice identifier="C" match-max="1">Dog</qti-simple-associable-choice><qti-simple-associable-choice identifier="D" match-max="1">Puppy</qti-simple-associable-choice></qti-associate-interaction>',
        set(`<qti-map-response identifier="PAIRS"/>`) + when(`<qti-match>${v('PAIRS')}<qti-correct identifier="PAIRS"/></qti-match>`, set(`<qti-sum>${v('SCORE')}${base('float', 2)}</qti-sum>`)),
      ),
    );
    expect(q).toMatchObject({ type: 'associate', points: 4, pairs: [{ a: 'A', b: 'B' }, { a: 'C', b: 'D' }], maxAssociations: 2, scoring: { responses: [{ identifier: 'PAIRS' }] } });
    expect(points(q, [['A', 'B'], ['C', 'D']])).toBe(4);
    // A pair is unordered: [D, C] is the pair C D, and the whole key still matches.
    expect(points(q, [['B', 'A'], ['D', 'C']])).toBe(4);
    expect(points(q, [['A', 'B']])).toBe(1);
    // No lower bound: the −1 of A C cancels A B.
    expect(points(q, [['A', 'B'], ['A', 'C']])).toBe(0);
    expect(points(q, [['B', 'D']])).toBe(0);
    expect(points(q, null)).toBe(0);
    expectRoundTrip(q, [[['A', 'B'], ['C', 'D']], [['A', 'B']], [['A', 'C']], null]);
  });

  it('select point: the area mapping plus a bonus for a point in both areas', () => {
    const q = imported(
      item(
        'point-bonus',
        '<qti-response-declaration identifier="RESPONSE" cardinality="multiple" base-type="point"><qti-correct-response><qti-value>5 5</qti-value><qti-value>50 50</qti-value></qti-correct-response>' +
          '<qti-area-mapping default-value="0"><qti-area-map-entry shape="rect" coords="0,0,10,10" mapped-value="1"/><qti-area-map-entry shape="circle" coords="50,50,5" mapped-value="2"/></qti-area-mapping></qti-response-declaration>',
        '<qti-select-point-interaction response-identifier="RESPONSE" max-choices="2"><qti-prompt>Mark the two towns.</qti-prompt><img src="asset:ast_map1" alt="A map"/></qti-select-point-interaction>',
        set(`<qti-map-response-point identifier="RESPONSE"/>`) + when(`<qti-gte>${v('SCORE')}${base('float', 3)}</qti-gte>`, set(`<qti-sum>${v('SCORE')}${base('float', 1)}</qti-sum>`)),
      ),
    );
    expect(q).toMatchObject({
      type: 'select_point',
      points: 4,
      image: 'asset:ast_map1',
      maxPoints: 2,
      areas: [{ shape: 'rect', points: 1 }, { shape: 'circle', points: 2 }],
      scoring: { responses: [{ identifier: 'RESPONSE' }] },
    });
    expect(points(q, [{ x: 5, y: 5 }, { x: 51, y: 49 }])).toBe(4);
    expect(points(q, [{ x: 50, y: 50 }])).toBe(2);
    expect(points(q, [{ x: 2, y: 8 }, { x: 90, y: 90 }])).toBe(1);
    expect(points(q, [{ x: 90, y: 90 }])).toBe(0);
    expect(points(q, null)).toBe(0);
    expectRoundTrip(q, [[{ x: 5, y: 5 }, { x: 51, y: 49 }], [{ x: 50, y: 50 }], null]);
  });

  it('refuses what cannot be kept, with the reason', () => {
    const noMapping = mapItem(
      parseXml(
        item(
          'point-nomap',
          '<qti-response-declaration identifier="RESPONSE" cardinality="single" base-type="point"><qti-correct-response><qti-value>5 5</qti-value></qti-correct-response></qti-response-declaration>',
          '<qti-select-point-interaction response-identifier="RESPONSE" max-choices="1"><img src="asset:ast_map1" alt="A map"/></qti-select-point-interaction>',
          when(`<qti-match>${v('RESPONSE')}<qti-correct identifier="RESPONSE"/></qti-match>`, set(base('float', 1))) + when(`<qti-is-null>${v('RESPONSE')}</qti-is-null>`, set(base('float', 0))),
        ),
        'item.xml',
      ),
    );
    expect(noMapping).toMatchObject({ ok: false, reason: "a select point item that keeps its processing needs an area mapping: its areas are the question's" });
    const dotted = mapItem(
      parseXml(
        item(
          'hot-dotted',
          '<qti-response-declaration identifier="RESPONSE" cardinality="single" base-type="identifier"><qti-correct-response><qti-value>w.1</qti-value></qti-correct-response></qti-response-declaration>',
          '<qti-hottext-interaction response-identifier="RESPONSE"><p><qti-hottext identifier="w.1">one</qti-hottext> <qti-hottext identifier="w.2">two</qti-hottext></p></qti-hottext-interaction>',
          when(`<qti-match>${v('RESPONSE')}<qti-correct identifier="RESPONSE"/></qti-match>`, set(base('float', 2))) + when(`<qti-is-null>${v('RESPONSE')}</qti-is-null>`, set(base('float', 0))),
        ),
        'item.xml',
      ),
    );
    expect(dotted).toMatchObject({ ok: false, reason: expect.stringMatching(/^the identifier "w\.1" is not an Assay id/) });
    const noKey = mapItem(
      parseXml(
        item(
          'slider-nokey',
          '<qti-response-declaration identifier="RESPONSE" cardinality="single" base-type="integer"/>',
          '<qti-slider-interaction response-identifier="RESPONSE" lower-bound="0" upper-bound="10"/>',
          when(`<qti-gte>${v('RESPONSE')}${base('integer', 5)}</qti-gte>`, set(base('float', 1))),
        ),
        'item.xml',
      ),
    );
    expect(noKey).toMatchObject({ ok: false, reason: 'the item declares no numeric correct response' });
  });

  it('authoring holds each response to the shape the answer gives: one pick fills a single or a multiple response, several only a multiple one', () => {
    const declared = (cardinality: string, baseType: string) => ({
      format: 'qti' as const,
      declarations: `<qti-response-declaration identifier="R" cardinality="${cardinality}" base-type="${baseType}"/><qti-outcome-declaration identifier="SCORE" cardinality="single" base-type="float"/>`,
      responseProcessing: `<qti-response-processing><qti-set-outcome-value identifier="SCORE"><qti-base-value base-type="float">1</qti-base-value></qti-set-outcome-value></qti-response-processing>`,
      responses: [{ identifier: 'R' }],
    });
    const assoc = (maxAssociations: number, cardinality: string) =>
      ({ type: 'associate', prompt: 'p', points: 1, items: [{ id: 'a', text: 'a' }, { id: 'b', text: 'b' }], pairs: [{ a: 'a', b: 'b' }], maxAssociations, scoring: declared(cardinality, 'pair') }) as QuestionInput;
    expect(scoringProblems(assoc(1, 'single'), 'q')).toEqual([]);
    expect(scoringProblems(assoc(1, 'multiple'), 'q')).toEqual([]);
    expect(scoringProblems(assoc(2, 'single'), 'q')).toEqual([
      { field: 'q.scoring.responses.0.identifier', message: '"R" is declared single pair, but a associate answer gives a set of unordered pairs of item ids (multiple pair)' },
    ]);
    const slider = { type: 'slider', prompt: 'p', points: 1, min: 0, max: 10, step: 1, correct: 5, scoring: declared('single', 'string') } as QuestionInput;
    expect(scoringProblems(slider, 'q')).toEqual([{ field: 'q.scoring.responses.0.identifier', message: '"R" is declared single string, but a slider answer gives one number (single float or integer)' }]);
    const point = { type: 'select_point', prompt: 'p', points: 1, image: 'asset:ast_a', imageAlt: 'a', areas: [], maxPoints: 1, scoring: declared('multiple', 'point') } as unknown as QuestionInput;
    expect(scoringProblems(point, 'q')).toEqual([]);
    // Kept processing may give more than the areas (the bonus above): the points are then not held to the areas' best.
    const areas = [{ id: 'a1', label: 'A', shape: 'rect' as const, coords: [0, 0, 10, 10], points: 1 }];
    const sp = { type: 'select_point' as const, prompt: 'p', points: 4, image: 'asset:ast_a', imageAlt: 'a', areas, maxPoints: 1 };
    const problems: Array<{ field: string; message: string }> = [];
    checkSelectPoint(sp, 'q', problems);
    expect(problems.map((p) => p.field)).toEqual(['q.points']);
    problems.length = 0;
    checkSelectPoint({ ...sp, scoring: declared('single', 'point') }, 'q', problems);
    expect(problems).toEqual([]);
  });
});
