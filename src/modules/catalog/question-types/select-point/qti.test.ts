import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Ctx } from '../../interchange/qti-item-context.js';
import { declXml, PLAIN, QTI3_NS } from '../../interchange/qti-writer.js';
import { maxScore, readDeclarations, readProcessing } from '../../interchange/response-processing.js';
import { first, parseXml, type XElement } from '../../interchange/xml.js';
import { compileQtiProcessing, runQtiProcessing } from '../../qti-processing/index.js';
import { selectPointType } from './select-point.js';
import { heart } from './example-question.js';

/**
 * The item select_point writes, read back by its own mapping, and scored by
 * the QTI processing engine against the native marking. The image stands
 * in the item as the exporter leaves it (`<img>` to the package's file),
 * and the import hands it back as its stored asset.
 */
const qti = selectPointType.qti!;

function itemXml(q = heart): string {
  const { decls, body, rp } = qti.write(q, 'RESPONSE', PLAIN);
  // As the export leaves it: the asset's src pointed at its file in the package.
  const withImg = body.replace(/src="asset:(ast_[A-Za-z0-9_-]+)"/, 'src="../assets/$1.png"');
  return `<qti-assessment-item xmlns="${QTI3_NS}" identifier="${q.id}" title="Heart">\n${decls.map(declXml).join('')}` +
    `  <qti-outcome-declaration identifier="SCORE" cardinality="single" base-type="float"/>\n  <qti-item-body>\n${withImg}  </qti-item-body>\n${rp}</qti-assessment-item>`;
}

function read(xml: string): ReturnType<typeof qti.read> {
  const item = parseXml(xml, 'item.xml');
  const decls = readDeclarations(item);
  const ctx: Ctx = {
    item,
    body: first(item, 'qti-item-body')!,
    decls,
    rp: readProcessing(item, [...decls.keys()]),
    max: maxScore(item),
    title: item.attrs['title'] ?? '',
    notes: [],
    imageInline: (e: XElement) => (e.name === 'img' ? `![${e.attrs['alt']}](asset:${/assets\/(ast_[A-Za-z0-9]+)/.exec(e.attrs['src'] ?? '')?.[1]})` : undefined),
    markdown: false,
    problems: [],
  };
  return qti.read(ctx, first(first(item, 'qti-item-body')!, 'qti-select-point-interaction')!);
}

describe('select_point as QTI', () => {
  it('writes a point response with an area mapping, the map_response_point template and the interaction with its image', () => {
    const xml = itemXml();
    expect(xml).toContain('<qti-response-declaration identifier="RESPONSE" cardinality="multiple" base-type="point">');
    expect(xml).toContain('<qti-area-mapping default-value="0" upper-bound="4"><qti-area-map-entry shape="rect" coords="100,100,200,200" mapped-value="2"/>');
    expect(xml).toContain('<qti-area-map-entry shape="poly" coords="220,150,300,150,260,230" mapped-value="1"/>');
    expect(xml).toContain('<qti-select-point-interaction response-identifier="RESPONSE" max-choices="3"');
    expect(xml).toContain('<img src="../assets/ast_heart.png" alt="A diagram of the heart"/>');
    expect(xml).toContain('template="https://purl.imsglobal.org/spec/qti/v3p0/rptemplates/map_response_point.xml"');
  });

  it('round-trips: read back it is the same question (ids, labels, shapes, points, maxPoints, image)', () => {
    const { id: _id, ...rest } = heart;
    expect(read(itemXml())).toEqual(rest);
    const one = { ...heart, maxPoints: 1, points: 3 };
    const { id: _one, ...oneRest } = one;
    expect(read(itemXml(one))).toEqual(oneRest);
  });

  it('the QTI engine scores the written item as the native marking does, on any points', () => {
    const xml = itemXml();
    const declarations = xml.slice(xml.indexOf('<qti-response-declaration'), xml.indexOf('<qti-item-body>'));
    const compiled = compileQtiProcessing({ declarations, responseProcessing: xml.slice(xml.indexOf('<qti-response-processing'), xml.indexOf('</qti-assessment-item>')) });
    const point = fc.record({ x: fc.integer({ min: 80, max: 320 }), y: fc.integer({ min: 40, max: 260 }) });
    fc.assert(
      fc.property(fc.array(point, { minLength: 1, maxLength: 3 }), (points) => {
        const native = selectPointType.mark!(heart, points);
        const engine = runQtiProcessing(compiled, { RESPONSE: points.map((p) => [p.x, p.y] as [number, number]) }).score;
        expect(native).toEqual({ kind: 'auto', points: engine });
      }),
      { numRuns: 400 },
    );
  });

  it('an item without the area names gets Area 1, Area 2, …; no limit on points means one per area', () => {
    const xml = itemXml().replace(/ data-area-ids="[^"]*"/, '').replace(/ data-area-labels="[^"]*"/, '').replace(' max-choices="3"', ' max-choices="0"');
    const q = read(xml);
    expect(typeof q === 'string' ? q : q.areas.map((a) => [a.id, a.label])).toEqual([['a1', 'Area 1'], ['a2', 'Area 2'], ['a3', 'Area 3'], ['a4', 'Area 4']]);
    expect(typeof q === 'string' ? q : q.maxPoints).toBe(4);
  });

  it('says why an item cannot be read: another processing, a default value, an unknown shape', () => {
    const xml = itemXml();
    expect(read(xml.replace(/<qti-response-processing[^>]*\/>/, ''))).toMatch(/map_response_point template/);
    expect(read(xml.replace('default-value="0"', 'default-value="-1"'))).toMatch(/default value is not 0/);
    expect(read(xml.replace('shape="circle"', 'shape="ellipse"'))).toMatch(/"ellipse" is not rect, circle or poly/);
    expect(read(xml.replace('mapped-value="1"', 'mapped-value="-1"'))).toMatch(/negative/);
  });

  it('as a composite part adds mapResponsePoint to SCORE', () => {
    expect(qti.summed!(heart, 'RESPONSE_2')).toEqual([
      '<qti-set-outcome-value identifier="SCORE"><qti-sum><qti-variable identifier="SCORE"/><qti-map-response-point identifier="RESPONSE_2"/></qti-sum></qti-set-outcome-value>',
    ]);
  });
});
