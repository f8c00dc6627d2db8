import { describe, expect, it } from 'vitest';
import { itemFileOf, readItemWith } from '../image-regions/qti-test-kit.js';
import { hotspotType } from './hotspot.js';
import { hotspotQti } from './hotspot-qti.js';
import type { HotspotQuestion } from './hotspot-schema.js';

const map: HotspotQuestion = {
  type: 'hotspot',
  id: 'q_map',
  prompt: 'Which of the marked towns lie on the river?',
  points: 3,
  image: 'asset:ast_map1',
  imageAlt: 'A map of a valley with a river and four towns',
  imageWidth: 400,
  imageHeight: 300,
  regions: [
    { id: 'north', label: 'Northby', shape: 'circle', coords: [120, 60, 20] },
    { id: 'mill', label: 'Millford', shape: 'rect', coords: [180, 120, 240, 170] },
    { id: 'east', label: 'Eastwick', shape: 'poly', coords: [300, 200, 360, 190, 350, 260, 310, 250] },
    { id: 'west', label: 'Westmere', shape: 'circle', coords: [40, 250, 25] },
  ],
  correctRegionIds: ['mill', 'east', 'west'],
};

const marks = (q: Omit<HotspotQuestion, 'id'>, answers: string[][]) => answers.map((a) => (hotspotType.mark!({ ...q, id: 'x' }, a) as { points: number }).points);
const answers = [['mill', 'east', 'west'], ['mill'], ['mill', 'north'], ['north'], ['mill', 'east', 'west', 'north']];

describe('hotspot QTI', () => {
  it('writes the interaction with each region as a hotspot choice in QTI coords, and partial credit as a bounded mapping', () => {
    const xml = itemFileOf(hotspotQti, map);
    expect(xml).toContain('<qti-hotspot-interaction response-identifier="RESPONSE" max-choices="0"><img src="../assets/ast_map1.png" alt="A map of a valley with a river and four towns" width="400" height="300"/>');
    expect(xml).toContain('<qti-hotspot-choice identifier="north" shape="circle" coords="120,60,20" hotspot-label="Northby"/>');
    expect(xml).toContain('<qti-hotspot-choice identifier="mill" shape="rect" coords="180,120,240,170" hotspot-label="Millford"/>');
    expect(xml).toContain('coords="300,200,360,190,350,260,310,250"');
    expect(xml).toContain('<qti-mapping default-value="0" lower-bound="0" upper-bound="3"><qti-map-entry map-key="north" mapped-value="-1"/><qti-map-entry map-key="mill" mapped-value="1"/>');
    expect(xml).toContain('rptemplates/map_response.xml');
  });

  it('round-trips a question with several correct regions, marking alike', () => {
    const { question } = readItemWith(hotspotQti, itemFileOf(hotspotQti, map), 'ast_map1');
    expect(question).toEqual({ ...map, id: undefined });
    expect(marks(question as HotspotQuestion, answers)).toEqual(marks(map, answers));
  });

  it('round-trips one correct region (all or nothing) with maxChoices 1', () => {
    const one = { ...map, points: 2, correctRegionIds: ['mill'], maxChoices: 1 };
    const xml = itemFileOf(hotspotQti, one);
    expect(xml).toContain('cardinality="single"');
    expect(xml).not.toContain('qti-mapping');
    const { question } = readItemWith(hotspotQti, xml, 'ast_map1');
    expect(question).toEqual({ ...one, id: undefined });
  });

  it('writes the rule that adds a part\'s points to SCORE', () => {
    expect(hotspotQti.summed!(map, 'p1')).toEqual(['<qti-set-outcome-value identifier="SCORE"><qti-sum><qti-variable identifier="SCORE"/><qti-map-response identifier="p1"/></qti-sum></qti-set-outcome-value>']);
    expect(hotspotQti.summed!({ ...map, correctRegionIds: ['mill'] }, 'p1')[0]).toContain('<qti-match><qti-variable identifier="p1"/><qti-correct identifier="p1"/></qti-match>');
  });
});

/** A QTI 2.2 item in the style of the public samples (written for these tests): an object image, one correct hotspot, match_correct. */
const QTI22_HOTSPOT = `<?xml version="1.0" encoding="UTF-8"?>
<assessmentItem xmlns="http://www.imsglobal.org/xsd/imsqti_v2p2" identifier="lighthouse" title="Where is the lighthouse?" adaptive="false" timeDependent="false">
  <responseDeclaration identifier="RESPONSE" cardinality="single" baseType="identifier">
    <correctResponse><value>B</value></correctResponse>
  </responseDeclaration>
  <outcomeDeclaration identifier="SCORE" cardinality="single" baseType="float"/>
  <itemBody>
    <p>The harbour has three towers.</p>
    <hotspotInteraction responseIdentifier="RESPONSE" maxChoices="1">
      <prompt>Choose the lighthouse.</prompt>
      <object type="image/png" data="images/harbour.png" width="320" height="240">A harbour with three towers</object>
      <hotspotChoice identifier="A" shape="circle" coords="60,100,18" hotspotLabel="West tower"/>
      <hotspotChoice identifier="B" shape="rect" coords="150,40,180,140"/>
      <hotspotChoice identifier="C" shape="poly" coords="250,90,290,90,280,150,255,150,250,90">East tower</hotspotChoice>
      <hotspotChoice identifier="D" shape="ellipse" coords="10,10,5,3" hotspotLabel="Buoy"/>
    </hotspotInteraction>
  </itemBody>
  <responseProcessing template="http://www.imsglobal.org/question/qti_v2p2/rptemplates/match_correct"/>
</assessmentItem>`;

describe('hotspot QTI import', () => {
  it('skips a hotspot of a shape Assay does not draw, naming it', () => {
    const { question } = readItemWith(hotspotQti, QTI22_HOTSPOT.replace('shape="ellipse"', 'shape="default"'));
    expect(question).toBe('hotspot "D" has shape "default"; Assay draws rect, circle and poly');
  });

  it('draws an ellipse (QTI 2.1) as a 32-sided polygon through its edge, with a note; a bad ellipse is named', () => {
    const { question, notes } = readItemWith(hotspotQti, QTI22_HOTSPOT, 'ast_harbour');
    const buoy = (question as { regions: Array<{ id: string; label: string; shape: string; coords: number[] }> }).regions[3]!;
    expect(buoy).toMatchObject({ id: 'D', label: 'Buoy', shape: 'poly' });
    expect(buoy.coords).toHaveLength(64);
    // Points at 0°, 90°, 180° and 270° round the centre (10, 10) with radii 5 and 3.
    expect([0, 8, 16, 24].map((k) => [buoy.coords[2 * k], buoy.coords[2 * k + 1]])).toEqual([[15, 10], [10, 13], [5, 10], [10, 7]]);
    expect(notes).toContain('ellipse hotspots (a QTI 2.1 shape) are drawn as 32-sided polygons through their edge: a choice is marked by its identifier, so only the outline drawn changes');
    expect(readItemWith(hotspotQti, QTI22_HOTSPOT.replace('coords="10,10,5,3"', 'coords="10,10,5"'), 'ast_harbour').question).toBe(
      'hotspot "D": an ellipse takes 4 numbers: centre x, centre y, horizontal radius, vertical radius',
    );
  });

  it('reads a QTI 2.2 item: the object image with its size, labels from hotspotLabel or the text, unlabelled ones named', () => {
    const { question, notes } = readItemWith(hotspotQti, QTI22_HOTSPOT.replace(/\s*<hotspotChoice identifier="D"[^>]*\/>/, ''), 'ast_harbour');
    expect(question).toEqual({
      type: 'hotspot',
      prompt: 'The harbour has three towers.\n\nChoose the lighthouse.',
      points: 1,
      image: 'asset:ast_harbour',
      imageAlt: 'A harbour with three towers',
      imageWidth: 320,
      imageHeight: 240,
      regions: [
        { id: 'A', label: 'West tower', shape: 'circle', coords: [60, 100, 18] },
        { id: 'B', label: 'Region 2', shape: 'rect', coords: [150, 40, 180, 140] },
        { id: 'C', label: 'East tower', shape: 'poly', coords: [250, 90, 290, 90, 280, 150, 255, 150, 250, 90] },
      ],
      correctRegionIds: ['B'],
      maxChoices: 1,
    });
    expect(notes).toEqual(['hotspots without a label are named Region 1, Region 2, …: name them in the editor']);
  });

  it('refuses all or nothing over several correct hotspots (Assay gives partial credit), and mappings it cannot reproduce', () => {
    const several = itemFileOf(hotspotQti, { ...map, points: 1 }).replace(/<qti-mapping.*<\/qti-mapping>/, '').replace(/<qti-response-processing template="[^"]*"\/>/, '<qti-response-processing template="https://purl.imsglobal.org/spec/qti/v3p0/rptemplates/match_correct.xml"/>');
    expect(readItemWith(hotspotQti, several).question).toBe('all or nothing over several correct hotspots cannot be expressed (Assay gives partial credit for each)');
    const unequal = itemFileOf(hotspotQti, map).replace('map-key="mill" mapped-value="1"', 'map-key="mill" mapped-value="2"');
    expect(readItemWith(hotspotQti, unequal).question).toMatch(/^map_response weights that Assay's partial credit cannot reproduce/);
  });
});
