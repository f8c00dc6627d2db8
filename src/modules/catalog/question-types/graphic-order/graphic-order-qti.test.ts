import { describe, expect, it } from 'vitest';
import { itemFileOf, readItemWith } from '../image-regions/qti-test-kit.js';
import { graphicOrderType } from './graphic-order.js';
import { graphicOrderQti } from './graphic-order-qti.js';
import type { GraphicOrderQuestion } from './graphic-order-schema.js';
import { route } from './graphic-order-example.js';

const marks = (q: Omit<GraphicOrderQuestion, 'id'>) =>
  [['car', 'mill', 'ford', 'hill'], ['car', 'mill', 'hill', 'ford'], ['hill', 'ford', 'mill', 'car']].map((a) => (graphicOrderType.mark!({ ...q, id: 'x' }, a) as { points: number }).points);

describe('graphic_order QTI', () => {
  it('writes a graphic order interaction with an ordered correct response', () => {
    const xml = itemFileOf(graphicOrderQti, route({ imageWidth: 300, imageHeight: 240 }));
    expect(xml).toContain('<qti-response-declaration identifier="RESPONSE" cardinality="ordered" base-type="identifier"><qti-correct-response><qti-value>car</qti-value><qti-value>mill</qti-value><qti-value>ford</qti-value><qti-value>hill</qti-value></qti-correct-response>');
    expect(xml).toContain('<qti-graphic-order-interaction response-identifier="RESPONSE"><img src="../assets/ast_walk1.png" alt="A map of a circular walk" width="300" height="240"/><qti-hotspot-choice identifier="car" shape="rect" coords="10,10,60,50" hotspot-label="Car park"/>');
  });

  for (const partialCredit of [false, true]) {
    it(`round-trips ${partialCredit ? 'partial credit (a share per position)' : 'all or nothing'}, marking alike`, () => {
      const q = route({ partialCredit, points: 3 });
      const { question } = readItemWith(graphicOrderQti, itemFileOf(graphicOrderQti, q), 'ast_walk1');
      expect(question).toEqual({ ...q, id: undefined });
      expect(marks(question as GraphicOrderQuestion)).toEqual(marks(q));
    });
  }

  it('adds a part\'s points to SCORE by position with partial credit', () => {
    const rules = graphicOrderQti.summed!(route({ partialCredit: true }), 'p2');
    expect(rules).toHaveLength(4);
    expect(rules[1]).toContain('<qti-index n="2"><qti-variable identifier="p2"/></qti-index><qti-base-value base-type="identifier">mill</qti-base-value>');
  });
});

/** A QTI 3 item in the style of the public samples (written for these tests): four planets put in order from the sun. */
const PLANETS = `<?xml version="1.0" encoding="UTF-8"?>
<qti-assessment-item xmlns="http://www.imsglobal.org/xsd/imsqtiasi_v3p0" identifier="planets-order" title="Planets from the sun" adaptive="false" time-dependent="false">
  <qti-response-declaration identifier="RESPONSE" cardinality="ordered" base-type="identifier">
    <qti-correct-response><qti-value>MERCURY</qti-value><qti-value>VENUS</qti-value><qti-value>EARTH</qti-value><qti-value>MARS</qti-value></qti-correct-response>
  </qti-response-declaration>
  <qti-outcome-declaration identifier="SCORE" cardinality="single" base-type="float"/>
  <qti-item-body>
    <qti-graphic-order-interaction response-identifier="RESPONSE">
      <qti-prompt>Order the planets by their distance from the sun, nearest first.</qti-prompt>
      <img src="images/planets.png" alt="Four planets drawn in a row, not to scale" width="480" height="120"/>
      <qti-hotspot-choice identifier="EARTH" shape="circle" coords="60,60,30" hotspot-label="Earth"/>
      <qti-hotspot-choice identifier="MARS" shape="circle" coords="180,60,22" hotspot-label="Mars"/>
      <qti-hotspot-choice identifier="MERCURY" shape="circle" coords="300,60,14" hotspot-label="Mercury"/>
      <qti-hotspot-choice identifier="VENUS" shape="circle" coords="420,60,28" hotspot-label="Venus"/>
    </qti-graphic-order-interaction>
  </qti-item-body>
  <qti-response-processing template="https://purl.imsglobal.org/spec/qti/v3p0/rptemplates/match_correct.xml"/>
</qti-assessment-item>`;

describe('graphic_order QTI import', () => {
  it('reads the regions in the declared correct order, all or nothing for 1 point', () => {
    const { question } = readItemWith(graphicOrderQti, PLANETS, 'ast_planets');
    expect(question).toMatchObject({
      type: 'graphic_order',
      prompt: 'Order the planets by their distance from the sun, nearest first.',
      points: 1,
      image: 'asset:ast_planets',
      imageAlt: 'Four planets drawn in a row, not to scale',
      imageWidth: 480,
      imageHeight: 120,
      partialCredit: false,
    });
    expect((question as GraphicOrderQuestion).regions.map((r) => `${r.id}:${r.label}`)).toEqual(['MERCURY:Mercury', 'VENUS:Venus', 'EARTH:Earth', 'MARS:Mars']);
  });

  it('skips an item whose correct order leaves a hotspot out', () => {
    const short = PLANETS.replace('<qti-value>MARS</qti-value>', '');
    expect(readItemWith(graphicOrderQti, short).question).toBe('the correct order must list every hotspot once');
  });
});
