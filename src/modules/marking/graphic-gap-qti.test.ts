import { describe, expect, it } from 'vitest';
import type { AnswerValue } from '../attempts/answer-values.js';
import { markQuestion } from './auto-mark.js';
import { mapItem, type ItemMapping } from '../catalog/interchange/qti-items.js';
import { serialise } from '../catalog/interchange/qti-scoring-import.js';
import { elements, first, parseXml, type XElement } from '../catalog/interchange/xml.js';
import { compileQtiProcessing, runQtiProcessing } from '../catalog/qti-processing/index.js';
import type { Question } from '../catalog/schemas.js';

/**
 * Graphic gap match items (gaps dragged onto an image's hotspots) read as
 * matching questions: the hotspots' labels are the stems, the gaps the
 * choices, each "gap hotspot" pair of the key read the other way round.
 * Every answer is marked as the item's own processing, run by the
 * interpreter over the same placements, scores it.
 */
const NS3 = 'http://www.imsglobal.org/xsd/imsqtiasi_v3p0';
const MAP = '<qti-response-processing template="https://purl.imsglobal.org/spec/qti/v3p0/rptemplates/map_response.xml"/>';
const MATCH = '<qti-response-processing template="https://purl.imsglobal.org/spec/qti/v3p0/rptemplates/match_correct.xml"/>';
const hotspots = (attrs = (id: string) => ` hotspot-label="${({ A: 'North', B: 'East', C: 'South' } as Record<string, string>)[id]}" match-max="1"`) =>
  ['A', 'B', 'C'].map((id, i) => `<qti-associable-hotspot identifier="${id}" shape="rect" coords="${i * 20},0,${i * 20 + 10},10"${attrs(id)}/>`).join('');
const gaps = ['GLA', 'EDI', 'MAN', 'MCH'].map((id) => `<qti-gap-text identifier="${id}" match-max="1"><strong>${id}</strong></qti-gap-text>`).join('');
const item3 = (decl: string, interaction: string, rp: string) =>
  `<qti-assessment-item xmlns="${NS3}" identifier="ggm" title="Airports"><qti-response-declaration identifier="RESPONSE" cardinality="multiple" base-type="directedPair">${decl}</qti-response-declaration>` +
  `<qti-outcome-declaration identifier="SCORE" cardinality="single" base-type="float"/><qti-item-body><p>Label the airports.</p>${interaction}</qti-item-body>${rp}</qti-assessment-item>`;
const interaction = (inner: string, attrs = '') =>
  `<qti-graphic-gap-match-interaction response-identifier="RESPONSE"${attrs}><qti-prompt>Drag each code to its airport.</qti-prompt><img src="map.png" alt="A map of three airports"/>${inner}</qti-graphic-gap-match-interaction>`;
const KEY = '<qti-correct-response><qti-value>GLA A</qti-value><qti-value>EDI B</qti-value><qti-value>MAN C</qti-value></qti-correct-response>';
const EQUAL = '<qti-mapping default-value="0"><qti-map-entry map-key="GLA A" mapped-value="1"/><qti-map-entry map-key="EDI B" mapped-value="1"/><qti-map-entry map-key="MAN C" mapped-value="1"/></qti-mapping>';

const placed = (e: XElement) => (e.name === 'img' || e.name === 'object' ? `![${e.attrs['alt'] ?? ''}](asset:ast_map)` : undefined);
const read = (xml: string): ItemMapping => mapItem(parseXml(xml, 'item.xml'), { imageText: (img) => placed({ name: 'img', attrs: { alt: img.alt }, children: [] })! });
function question(xml: string): Question {
  const mapped = read(xml);
  if (!mapped.ok) throw new Error(mapped.reason);
  return { ...mapped.question, id: 'q' } as Question;
}
const mark = (q: Question, a: AnswerValue) => {
  const m = markQuestion(q, a);
  return m.kind === 'auto' ? m.points : 'manual';
};
/** The item's own processing over the same placements, as QTI gives them: one "gap hotspot" pair per placed gap. */
function qtiScore(xml: string, placements: Record<string, string>): number {
  const item = parseXml(xml, 'item.xml');
  const compiled = compileQtiProcessing({
    declarations: elements(item).filter((e) => e.name.endsWith('-declaration')).map(serialise).join(''),
    responseProcessing: serialise(first(item, 'qti-response-processing')!),
  });
  const pairs = Object.entries(placements).map(([hotspot, gap]) => [gap, hotspot] as [string, string]);
  return runQtiProcessing(compiled, { RESPONSE: pairs.length > 0 ? pairs : null }).score;
}

describe('graphic gap match as matching', () => {
  it('gap texts onto labelled hotspots, one point per pair: partial credit, marked as the item marks', () => {
    const xml = item3(KEY + EQUAL, interaction(gaps + hotspots()), MAP);
    const mapped = read(xml);
    expect(mapped).toMatchObject({ ok: true, interaction: 'graphic-gap-match-interaction' });
    const q = question(xml);
    expect(q).toEqual({
      id: 'q',
      type: 'matching',
      prompt: 'Label the airports.\n\nDrag each code to its airport.\n\n![A map of three airports](asset:ast_map)',
      points: 3,
      stems: [{ id: 'A', text: 'North' }, { id: 'B', text: 'East' }, { id: 'C', text: 'South' }],
      choices: ['GLA', 'EDI', 'MAN', 'MCH'].map((id) => ({ id, text: id })),
      correct: { A: 'GLA', B: 'EDI', C: 'MAN' },
      partialCredit: true,
    });
    expect(mapped.ok && mapped.notes).toContain("the graphic gap match is asked as a matching of its hotspots' labels to the gaps, with the image shown after the prompt");
    const answers: Array<Record<string, string>> = [{ A: 'GLA', B: 'EDI', C: 'MAN' }, { A: 'GLA', B: 'MCH' }, { A: 'EDI', B: 'GLA', C: 'MAN' }, { C: 'MCH' }, {}];
    for (const answer of answers) {
      expect(mark(q, answer)).toBe(qtiScore(xml, answer));
    }
    expect(mark(q, { A: 'GLA', B: 'MCH' })).toBe(1);
  });

  it('QTI 2 gap images named by their object label or alt, all or nothing', () => {
    const gapImg = (id: string, label: string) => `<gapImg identifier="${id}" matchMax="1"${label}><object type="image/png" data="${id}.png" width="20" height="9">${id} tag</object></gapImg>`;
    const xml =
      `<assessmentItem xmlns="http://www.imsglobal.org/xsd/imsqti_v2p2" identifier="ggm2" title="Tags" adaptive="false" timeDependent="false">` +
      `<responseDeclaration identifier="RESPONSE" cardinality="multiple" baseType="directedPair"><correctResponse><value>G1 H1</value><value>G2 H2</value></correctResponse></responseDeclaration>` +
      `<outcomeDeclaration identifier="SCORE" cardinality="single" baseType="float"/><itemBody><graphicGapMatchInteraction responseIdentifier="RESPONSE"><prompt>Tag the towns.</prompt><object type="image/png" data="towns.png">Two towns</object>` +
      `${gapImg('G1', ' objectLabel="Glasgow"')}${gapImg('G2', '')}${gapImg('G3', ' objectLabel="Leeds"')}` +
      `<associableHotspot identifier="H1" matchMax="1" shape="circle" coords="10,10,5" hotspotLabel="West town"/><associableHotspot identifier="H2" matchMax="1" shape="circle" coords="40,10,5" hotspotLabel="East town"/>` +
      `</graphicGapMatchInteraction></itemBody><responseProcessing template="http://www.imsglobal.org/question/qti_v2p2/rptemplates/match_correct"/></assessmentItem>`;
    const q = question(xml);
    expect(q).toMatchObject({
      type: 'matching',
      points: 1,
      stems: [{ id: 'H1', text: 'West town' }, { id: 'H2', text: 'East town' }],
      // G2 has no object label: its object's own text is its alternative.
      choices: [{ id: 'G1', text: 'Glasgow' }, { id: 'G2', text: 'G2 tag' }, { id: 'G3', text: 'Leeds' }],
      correct: { H1: 'G1', H2: 'G2' },
      partialCredit: false,
    });
    const answers: Array<Record<string, string>> = [{ H1: 'G1', H2: 'G2' }, { H1: 'G1', H2: 'G3' }, { H1: 'G2', H2: 'G1' }];
    for (const answer of answers) expect(mark(q, answer)).toBe(qtiScore(xml, answer));
    expect(mark(q, { H1: 'G1', H2: 'G2' })).toBe(1);
    expect(mark(q, { H1: 'G1' })).toBe(0);
  });

  it('refuses what matching cannot say, with the reason', () => {
    const reason = (xml: string) => {
      const m = read(xml);
      return m.ok ? 'imported' : m.reason;
    };
    expect(reason(item3(KEY + EQUAL, interaction(gaps + hotspots(() => ' match-max="1"')), MAP))).toBe(
      'a graphic gap match whose hotspots have no hotspot-label cannot be expressed: Assay names each place in words, and an unlabelled hotspot has none',
    );
    expect(reason(item3(KEY + EQUAL, interaction(gaps + hotspots((id) => ` hotspot-label="${id}" match-max="${id === 'B' ? 2 : 1}"`)), MAP))).toBe(
      'hotspot "B" takes 2 gaps; a matching question puts one choice on each place',
    );
    const unnamedImg = '<qti-gap-img identifier="X" match-max="1"><img src="x.png" alt=""/></qti-gap-img>';
    expect(reason(item3(KEY + EQUAL, interaction(gaps + unnamedImg + hotspots()), MAP))).toBe(
      'gap image "X" has no text alternative (object-label, or its image\'s alt), so it cannot be a choice in words',
    );
    expect(reason(item3(KEY + EQUAL, interaction(gaps + hotspots(), ' max-associations="2"'), MAP))).toBe(
      'max-associations 2 is fewer than the 3 hotspots, which Assay cannot express (every place takes a gap)',
    );
    // A wrong placement costs a point: matching gives nothing for it, and the processing cannot be kept.
    const penalty = EQUAL.replace('default-value="0"', 'default-value="-1" lower-bound="0"');
    expect(reason(item3(KEY + penalty, interaction(gaps + hotspots()), MAP))).toBe('a mapping that scores or penalises wrong pairs cannot be expressed');
    const custom = `<qti-response-processing><qti-response-condition><qti-response-if><qti-match><qti-variable identifier="RESPONSE"/><qti-correct identifier="RESPONSE"/></qti-match><qti-set-outcome-value identifier="SCORE"><qti-base-value base-type="float">2</qti-base-value></qti-set-outcome-value></qti-response-if><qti-response-else><qti-set-outcome-value identifier="SCORE"><qti-map-response identifier="RESPONSE"/></qti-set-outcome-value></qti-response-else></qti-response-condition></qti-response-processing>`;
    expect(reason(item3(KEY + EQUAL, interaction(gaps + hotspots()), custom))).toMatch(/^a graphic gap match whose processing no matching rule reproduces cannot keep it/);
    expect(reason(item3(KEY, interaction(gaps + hotspots()), MATCH))).toBe('imported');
  });
});
