import { describe, expect, it } from 'vitest';
import type { AnswerValue } from '../attempts/answer-values.js';
import type { Question } from '../catalog/schemas.js';
import { mapItem } from '../catalog/interchange/qti-items.js';
import { parseXml } from '../catalog/interchange/xml.js';
import { base, imported, item, points, set, v, when } from './qti-item-test-kit.js';

/**
 * Items of the other interactions whose processing Assay keeps: an order
 * item scoring one point per item in place (each position tested with
 * qti-index, the form real banks write, no MAXSCORE), a match item with
 * a bonus for a full match, inline blanks scored together, mapped through
 * the import and marked by running the processing.
 */
const add = (n: number) => set(`<qti-sum>${v('SCORE')}${base('float', n)}</qti-sum>`);


describe('kept QTI processing on order, match and inline items', () => {
  it('order: one point per item in place (not equal to Assay partial credit, whose points are split)', () => {
    const ids = ['dawn', 'noon', 'dusk'];
    const q = imported(
      item(
        'order-custom',
        `<qti-response-declaration identifier="RESPONSE" cardinality="ordered" base-type="identifier"><qti-correct-response>${ids.map((i) => `<qti-value>${i}</qti-value>`).join('')}</qti-correct-response></qti-response-declaration>`,
        `<qti-order-interaction response-identifier="RESPONSE">${ids.map((i) => `<qti-simple-choice identifier="${i}">${i}</qti-simple-choice>`).join('')}</qti-order-interaction>`,
        // The first rule is a bonus Assay's ordering partial credit cannot express: all three in place is worth 4, not 3.
        set(base('float', 0)) +
          ids.map((id, i) => when(`<qti-match><qti-index n="${i + 1}">${v('RESPONSE')}</qti-index>${base('identifier', id)}</qti-match>`, add(1))).join('') +
          when(`<qti-match>${v('RESPONSE')}<qti-correct identifier="RESPONSE"/></qti-match>`, add(1)),
      ),
    );
    expect(q).toMatchObject({ type: 'ordering', points: 4, items: ids.map((id) => ({ id })), scoring: { responses: [{ identifier: 'RESPONSE' }] } });
    expect(points(q, ['dawn', 'noon', 'dusk'])).toBe(4);
    expect(points(q, ['dawn', 'dusk', 'noon'])).toBe(1);
    expect(points(q, ['noon', 'dawn', 'dusk'])).toBe(1);
    expect(points(q, ['dusk', 'dawn', 'noon'])).toBe(0);
    expect(points(q, null)).toBe(0);
  });

  it('match: directed pairs from the two sets, with a bonus for all pairs right', () => {
    const q = imported(
      item(
        'match-custom',
        `<qti-response-declaration identifier="PAIRS" cardinality="multiple" base-type="directedPair"><qti-correct-response><qti-value>fr paris</qti-value><qti-value>de berlin</qti-value></qti-correct-response>` +
          `<qti-mapping default-value="0"><qti-map-entry map-key="fr paris" mapped-value="1"/><qti-map-entry map-key="de berlin" mapped-value="1"/></qti-mapping></qti-response-declaration>`,
        `<qti-match-interaction response-identifier="PAIRS" max-associations="2"><qti-simple-match-set><qti-simple-associable-choice identifier="fr" match-max="1">France</qti-simple-associable-choice><qti-simple-associable-choice identifier="de" match-max="1">Germany</qti-simple-associable-choice></qti-simple-match-set>` +
          `<qti-simple-match-set><qti-simple-associable-choice identifier="paris" match-max="2">Paris</qti-simple-associable-choice><qti-simple-associable-choice identifier="berlin" match-max="2">Berlin</qti-simple-associable-choice></qti-simple-match-set></qti-match-interaction>`,
        set(`<qti-map-response identifier="PAIRS"/>`) + when(`<qti-match>${v('PAIRS')}<qti-correct identifier="PAIRS"/></qti-match>`, add(3)),
      ),
    );
    expect(q).toMatchObject({ type: 'matching', points: 5, correct: { fr: 'paris', de: 'berlin' }, scoring: { responses: [{ identifier: 'PAIRS' }] } });
    expect(points(q, { fr: 'paris', de: 'berlin' })).toBe(5);
    expect(points(q, { fr: 'paris', de: 'paris' })).toBe(1);
    expect(points(q, { fr: 'berlin' })).toBe(0);
    expect(points(q, {})).toBe(0);
  });

  it('inline blanks: one response per blank, both right worth more than the sum of each', () => {
    const both = `<qti-and><qti-string-match case-sensitive="false">${v('gas')}<qti-correct identifier="gas"/></qti-string-match><qti-match>${v('state')}<qti-correct identifier="state"/></qti-match></qti-and>`;
    const q = imported(
      item(
        'blanks-custom',
        `<qti-response-declaration identifier="gas" cardinality="single" base-type="string"><qti-correct-response><qti-value>oxygen</qti-value></qti-correct-response></qti-response-declaration>` +
          `<qti-response-declaration identifier="state" cardinality="single" base-type="identifier"><qti-correct-response><qti-value>g</qti-value></qti-correct-response></qti-response-declaration>`,
        `<p>We breathe <qti-text-entry-interaction response-identifier="gas"/>, a <qti-inline-choice-interaction response-identifier="state"><qti-inline-choice identifier="s">solid</qti-inline-choice><qti-inline-choice identifier="g">gas</qti-inline-choice></qti-inline-choice-interaction>.</p>`,
        `<qti-response-condition><qti-response-if>${both}${set(base('float', 3))}</qti-response-if><qti-response-else-if><qti-or><qti-match>${v('state')}<qti-correct identifier="state"/></qti-match><qti-string-match case-sensitive="false">${v('gas')}<qti-correct identifier="gas"/></qti-string-match></qti-or>${set(base('float', 1))}</qti-response-else-if></qti-response-condition>`,
      ),
    );
    expect(q).toMatchObject({ type: 'fill_blanks', points: 3, scoring: { responses: [{ identifier: 'gas' }, { identifier: 'state' }] } });
    expect(points(q, { gas: 'Oxygen', state: 'g' })).toBe(3);
    expect(points(q, { gas: 'oxygen', state: 's' })).toBe(1);
    expect(points(q, { state: 'g' })).toBe(1);
    expect(points(q, { gas: 'nitrogen', state: 's' })).toBe(0);
  });

  it('an identifier that is not an Assay id skips the item, naming it', () => {
    const mapped = mapItem(
      parseXml(
        item(
          'dotted',
          `<qti-response-declaration identifier="RESPONSE" cardinality="single" base-type="identifier"><qti-correct-response><qti-value>choice.1</qti-value></qti-correct-response></qti-response-declaration>`,
          `<qti-choice-interaction response-identifier="RESPONSE"><qti-simple-choice identifier="choice.1">A</qti-simple-choice><qti-simple-choice identifier="choice.2">B</qti-simple-choice></qti-choice-interaction>`,
          when(`<qti-match>${v('RESPONSE')}<qti-correct identifier="RESPONSE"/></qti-match>`, set(base('float', 2))) + when(`<qti-is-null>${v('RESPONSE')}</qti-is-null>`, set(base('float', 0))),
        ),
        'item.xml',
      ),
    );
    expect(mapped).toMatchObject({ ok: false, reason: expect.stringMatching(/^the identifier "choice\.1" is not an Assay id/) });
  });
});
