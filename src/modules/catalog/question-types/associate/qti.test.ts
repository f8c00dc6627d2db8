import { describe, expect, it } from 'vitest';
import { compileQtiProcessing, runQtiProcessing } from '../../qti-processing/index.js';
import type { Ctx } from '../../interchange/qti-item-context.js';
import { readDeclarations, readProcessing } from '../../interchange/response-processing.js';
import { declXml, PLAIN } from '../../interchange/qti-writer.js';
import { first, parseXml, type XElement } from '../../interchange/xml.js';
import { associateQti } from './qti.js';
import { markAssociate, type AssociateQuestion } from './rules.js';

const SCORE_DECL = '<qti-outcome-declaration identifier="SCORE" cardinality="single" base-type="float"><qti-default-value><qti-value>0</qti-value></qti-default-value></qti-outcome-declaration>';

/** An item file around a declarations / body / processing triple, as the export writes one. */
function itemOf(decls: string, body: string, rp: string): string {
  return `<qti-assessment-item xmlns="http://www.imsglobal.org/xsd/imsqtiasi_v3p0" identifier="x" title="Pairs">${decls}${SCORE_DECL}<qti-item-body>${body}</qti-item-body>${rp}</qti-assessment-item>`;
}

/** The interaction read back as the importer reads an item's only interaction. */
function readBack(xml: string, imageInline: Ctx['imageInline'] = () => undefined): { result: ReturnType<typeof associateQti.read>; notes: string[] } {
  const item = parseXml(xml, 'item.xml');
  const body = first(item, 'qti-item-body')!;
  const decls = readDeclarations(item);
  const rp = readProcessing(item, [...decls.keys()]);
  const ctx: Ctx = { item, body, decls, rp, max: null, title: 'Pairs', notes: [], imageInline, markdown: false, problems: [] };
  const it = body.children.find((c): c is XElement => typeof c !== 'string' && /-associate-interaction$/.test(c.name))!;
  return { result: associateQti.read(ctx, it), notes: ctx.notes };
}

function written(q: AssociateQuestion) {
  const { decls, body, rp } = associateQti.write(q, 'RESPONSE', PLAIN);
  return { xml: itemOf(decls.map(declXml).join(''), body, rp), decls: decls.map(declXml).join('') + SCORE_DECL, rp };
}

const q: AssociateQuestion = {
  type: 'associate',
  id: 'q1',
  prompt: 'Pair each capital with its country.',
  points: 3,
  items: [
    { id: 'paris', text: 'Paris' },
    { id: 'rome', text: 'Rome' },
    { id: 'france', text: 'France' },
    { id: 'italy', text: 'Italy' },
  ],
  pairs: [
    { a: 'paris', b: 'france', points: 2 },
    { a: 'rome', b: 'italy', points: 2 },
    { a: 'paris', b: 'rome', points: 0.5 },
  ],
  maxAssociations: 3,
};

describe('associate: QTI', () => {
  it('writes a pair response with a mapping per keyed pair, capped at the points', () => {
    const { decls, body, rp } = associateQti.write(q, 'RESPONSE', PLAIN);
    expect(decls).toEqual([
      {
        id: 'RESPONSE',
        cardinality: 'multiple',
        baseType: 'pair',
        correct: ['paris france', 'rome italy', 'paris rome'],
        mapping: { entries: [{ key: 'paris france', value: 2 }, { key: 'rome italy', value: 2 }, { key: 'paris rome', value: 0.5 }], lower: 0, upper: 3 },
      },
    ]);
    expect(body).toContain('<qti-associate-interaction response-identifier="RESPONSE" max-associations="3" shuffle="false"><qti-simple-associable-choice identifier="paris" match-max="0">Paris</qti-simple-associable-choice>');
    expect(rp).toContain('map_response.xml');
  });

  it('round-trips: written then read back is the same question', () => {
    const { id: _, ...rest } = q;
    expect(readBack(written(q).xml).result).toEqual(rest);
    // Default shares come back as the default (no points of their own), and no limit as none.
    const plain: AssociateQuestion = { ...q, points: 1, pairs: q.pairs.map(({ a, b }) => ({ a, b })) };
    delete plain.maxAssociations;
    const { id: __, ...plainRest } = plain;
    expect(readBack(written(plain).xml).result).toEqual(plainRest);
  });

  it('the written processing scores every answer as Assay marks it', () => {
    const { decls, rp } = written(q);
    const compiled = compileQtiProcessing({ declarations: decls, responseProcessing: rp });
    const answers: string[][][] = [[], [['paris', 'france']], [['france', 'paris'], ['italy', 'rome']], [['rome', 'italy'], ['paris', 'rome']], [['paris', 'italy'], ['rome', 'france']]];
    for (const answer of answers) {
      const qti = runQtiProcessing(compiled, { RESPONSE: answer.map((p) => p.join(' ')) }).score;
      expect([answer, qti]).toEqual([answer, answer.length === 0 ? 0 : (markAssociate(q, answer) as { points: number }).points]);
    }
  });

  it('reads all or nothing only where it is the same rule: one pair, one association', () => {
    const one = (max: string, correct: string) =>
      itemOf(
        `<qti-response-declaration identifier="RESPONSE" cardinality="multiple" base-type="pair"><qti-correct-response>${correct}</qti-correct-response></qti-response-declaration>`,
        `<p>Which two belong together?</p><qti-associate-interaction response-identifier="RESPONSE" max-associations="${max}"><qti-simple-associable-choice identifier="A" match-max="1">Cat</qti-simple-associable-choice><qti-simple-associable-choice identifier="B" match-max="1">Kitten</qti-simple-associable-choice><qti-simple-associable-choice identifier="C" match-max="1">Dog</qti-simple-associable-choice></qti-associate-interaction>`,
        '<qti-response-processing template="https://purl.imsglobal.org/spec/qti/v3p0/rptemplates/match_correct.xml"/>',
      );
    const read = readBack(one('1', '<qti-value>A B</qti-value>'));
    expect(read.result).toEqual({
      type: 'associate',
      prompt: 'Which two belong together?',
      points: 1,
      items: [{ id: 'A', text: 'Cat' }, { id: 'B', text: 'Kitten' }, { id: 'C', text: 'Dog' }],
      pairs: [{ a: 'A', b: 'B' }],
      maxAssociations: 1,
    });
    expect(readBack(one('2', '<qti-value>A B</qti-value><qti-value>B C</qti-value>')).result).toBe(
      'all-or-nothing scoring of several pairs cannot be expressed: an associate question gives each pair made its own points',
    );
  });

  it('skips what the rule cannot say, with the reason', () => {
    const mapped = (mapping: string, max = '0') =>
      itemOf(
        `<qti-response-declaration identifier="RESPONSE" cardinality="multiple" base-type="pair">${mapping}</qti-response-declaration>`,
        `<qti-associate-interaction response-identifier="RESPONSE" max-associations="${max}"><qti-simple-associable-choice identifier="A" match-max="0">a</qti-simple-associable-choice><qti-simple-associable-choice identifier="B" match-max="0">b</qti-simple-associable-choice><qti-simple-associable-choice identifier="C" match-max="0">c</qti-simple-associable-choice></qti-associate-interaction>`,
        '<qti-response-processing template="https://purl.imsglobal.org/spec/qti/v3p0/rptemplates/map_response.xml"/>',
      );
    expect(readBack(mapped('<qti-mapping default-value="0"><qti-map-entry map-key="A B" mapped-value="1"/><qti-map-entry map-key="B C" mapped-value="-1"/></qti-mapping>')).result).toBe(
      'a mapping that scores or penalises pairs outside the key cannot be expressed',
    );
    expect(readBack(mapped('<qti-mapping default-value="0"><qti-map-entry map-key="A B" mapped-value="1"/><qti-map-entry map-key="B A" mapped-value="1"/></qti-mapping>')).result).toBe(
      'the mapping lists the pair "B A" twice',
    );
    expect(readBack(mapped('<qti-mapping default-value="0"><qti-map-entry map-key="A B" mapped-value="1"/><qti-map-entry map-key="B C" mapped-value="1"/></qti-mapping>', '1')).result).toBe(
      'max-associations 1 is less than the 2 pairs the mapping scores, which Assay cannot express',
    );
    // Unequal values and an upper bound: the points are the bound; 1.5 is kept, 1 is the default share (2 ÷ 2 pairs).
    expect(readBack(mapped('<qti-mapping default-value="0" upper-bound="2"><qti-map-entry map-key="A B" mapped-value="1.5"/><qti-map-entry map-key="B C" mapped-value="1"/></qti-mapping>')).result).toMatchObject({
      points: 2,
      pairs: [{ a: 'A', b: 'B', points: 1.5 }, { a: 'B', b: 'C' }],
    });
    // Over the bound: a pair worth more than the points keeps the points (the cap gives the same mark).
    expect(readBack(mapped('<qti-mapping default-value="0" upper-bound="1"><qti-map-entry map-key="A B" mapped-value="3"/><qti-map-entry map-key="B C" mapped-value="0.25"/></qti-mapping>')).result).toMatchObject({
      points: 1,
      pairs: [{ a: 'A', b: 'B', points: 1 }, { a: 'B', b: 'C', points: 0.25 }],
    });
  });

  it('notes that per-choice match-max is not kept', () => {
    const xml = itemOf(
      '<qti-response-declaration identifier="RESPONSE" cardinality="multiple" base-type="pair"><qti-mapping default-value="0"><qti-map-entry map-key="A B" mapped-value="1"/></qti-mapping></qti-response-declaration>',
      '<qti-associate-interaction response-identifier="RESPONSE" max-associations="0"><qti-simple-associable-choice identifier="A" match-max="1">a</qti-simple-associable-choice><qti-simple-associable-choice identifier="B" match-max="1">b</qti-simple-associable-choice><qti-simple-associable-choice identifier="C" match-max="1">c</qti-simple-associable-choice></qti-associate-interaction>',
      '<qti-response-processing template="https://purl.imsglobal.org/spec/qti/v3p0/rptemplates/map_response.xml"/>',
    );
    const read = readBack(xml);
    expect(read.result).toMatchObject({ points: 1, pairs: [{ a: 'A', b: 'B' }] });
    expect(read.notes).toEqual(["the choices' match-max and min-associations are not kept: an item may be in any number of pairs (the marking of each answer is unchanged)"]);
  });

  it('reads a graphic associate interaction as pairs of its hotspots’ labels, the image after the prompt', () => {
    const graphic = (label: (n: string) => string) =>
      itemOf(
        '<qti-response-declaration identifier="RESPONSE" cardinality="multiple" base-type="pair"><qti-mapping default-value="0" upper-bound="2"><qti-map-entry map-key="H L" mapped-value="1"/><qti-map-entry map-key="L K" mapped-value="1"/></qti-mapping></qti-response-declaration>',
        `<qti-graphic-associate-interaction response-identifier="RESPONSE" max-associations="2"><qti-prompt>Pair the organs that work together.</qti-prompt><img src="body.png" alt="A body with three organs marked" width="200" height="300"/>${['H', 'L', 'K']
          .map((id) => `<qti-associable-hotspot identifier="${id}" shape="circle" coords="50,50,10" match-max="2"${label(id)}/>`)
          .join('')}</qti-graphic-associate-interaction>`,
        '<qti-response-processing template="https://purl.imsglobal.org/spec/qti/v3p0/rptemplates/map_response.xml"/>',
      );
    const names: Record<string, string> = { H: 'Heart', L: 'Lungs', K: 'Kidneys' };
    const read = readBack(graphic((id) => ` hotspot-label="${names[id]}"`), (e) => (e.name === 'img' ? `![${e.attrs['alt']}](asset:ast_body)` : undefined));
    expect(read.result).toEqual({
      type: 'associate',
      prompt: 'Pair the organs that work together.\n\n![A body with three organs marked](asset:ast_body)',
      points: 2,
      items: [{ id: 'H', text: 'Heart' }, { id: 'L', text: 'Lungs' }, { id: 'K', text: 'Kidneys' }],
      pairs: [{ a: 'H', b: 'L' }, { a: 'L', b: 'K' }],
      maxAssociations: 2,
    });
    expect(read.notes).toContain("the graphic associate interaction is asked as pairs of its hotspots' labels, with the image shown after the prompt");
    expect(readBack(graphic(() => '')).result).toBe(
      'a graphic associate interaction whose hotspots have no hotspot-label cannot be expressed: Assay names each item in words, and an unlabelled hotspot has none',
    );
  });
});
