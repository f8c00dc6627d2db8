import { unzipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { packageOf, type QtiVersion } from '../../../test/helpers/qti.js';
import { markQuestion } from './auto-mark.js';
import { checkTestInput } from '../catalog/authoring.js';
import type { Question, TestInput } from '../catalog/schemas.js';
import { exportQti3 } from '../catalog/interchange/qti-export.js';
import { importQtiPackage } from '../catalog/interchange/qti-package.js';

const NS = 'http://www.imsglobal.org/xsd/imsqtiasi_v3p0';
/** A string text-entry item with the given mapping or response processing. */
function item(opts: { correct?: string; mapping?: string; rp: string }): string {
  return `<?xml version="1.0" encoding="UTF-8"?>
<qti-assessment-item xmlns="${NS}" identifier="t1" title="T" adaptive="false" time-dependent="false">
  <qti-response-declaration identifier="RESPONSE" cardinality="single" base-type="string">${opts.correct ? `<qti-correct-response><qti-value>${opts.correct}</qti-value></qti-correct-response>` : ''}${opts.mapping ?? ''}</qti-response-declaration>
  <qti-outcome-declaration identifier="SCORE" cardinality="single" base-type="float"/>
  <qti-item-body><p>Spell it. <qti-text-entry-interaction response-identifier="RESPONSE"/></p></qti-item-body>
  ${opts.rp}
</qti-assessment-item>`;
}
const MAP_RP = '<qti-response-processing template="https://purl.imsglobal.org/spec/qti/v3p0/rptemplates/map_response.xml"/>';
const set = (p: number) => `<qti-set-outcome-value identifier="SCORE"><qti-base-value base-type="float">${p}</qti-base-value></qti-set-outcome-value>`;
const pm = (pattern: string) => `<qti-pattern-match pattern="${pattern}"><qti-variable identifier="RESPONSE"/></qti-pattern-match>`;
const sm = (t: string, cs = true) => `<qti-string-match case-sensitive="${cs}"><qti-variable identifier="RESPONSE"/><qti-base-value base-type="string">${t}</qti-base-value></qti-string-match>`;
const branches = (...b: Array<[string, number]>) =>
  `<qti-response-processing><qti-response-condition>${b.map(([c, p], i) => (i === 0 ? `<qti-response-if>${c}${set(p)}</qti-response-if>` : `<qti-response-else-if>${c}${set(p)}</qti-response-else-if>`)).join('')}</qti-response-condition></qti-response-processing>`;

async function one(xml: string, version: QtiVersion = '3.0') {
  const { input, report } = await importQtiPackage(packageOf([{ path: 'items/t1.xml', xml }], version));
  return { question: input?.questions?.[0] as Question | undefined, reason: report.skipped[0]?.reason };
}

describe('QTI text entry to short_text entries', () => {
  it('an entry without case-sensitive compares exactly (QTI 2.1 requires the attribute; other engines read it as true)', async () => {
    const mapping = '<qti-mapping default-value="0"><qti-map-entry map-key="Paris" mapped-value="2"/></qti-mapping>';
    const { question } = await one(item({ correct: 'Paris', mapping, rp: MAP_RP }));
    expect(markQuestion(question!, 'Paris')).toMatchObject({ kind: 'auto', points: 2 });
    expect(markQuestion(question!, 'paris')).toMatchObject({ kind: 'auto', points: 0 });
  });

  it('a mapping whose earlier, cheaper entry also catches a later key is skipped, naming both (QTI gives the first, Assay the best)', async () => {
    const mapping = '<qti-mapping default-value="0"><qti-map-entry map-key="paris" mapped-value="1" case-sensitive="false"/><qti-map-entry map-key="Paris" mapped-value="2" case-sensitive="true"/></qti-mapping>';
    expect((await one(item({ mapping, rp: MAP_RP }))).reason).toMatch(/lists "paris" \(1\) before "Paris" \(2\), which it also catches/);
  });

  it('a mapping that scores unlisted answers is still skipped', async () => {
    const mapping = '<qti-mapping default-value="0.5"><qti-map-entry map-key="Paris" mapped-value="2" case-sensitive="true"/></qti-mapping>';
    expect((await one(item({ mapping, rp: MAP_RP }))).reason).toMatch(/scores unlisted or wrong answers/);
  });

  it.each(['3.0', '2.2'] as const)('QTI %s: pattern and string branches best first import as entries; a bare patternMatch takes the correct response as its text', async (version) => {
    const ok = await one(item({ correct: 'Colour', rp: branches([pm('[Cc]olou?r'), 3], [sm('hue', false), 2]) }), version);
    expect(ok.reason).toBeUndefined();
    expect(ok.question).toEqual({ id: 't1', type: 'short_text', prompt: 'Spell it.', points: 3, caseSensitive: false, acceptedAnswers: [{ text: 'Colour', pattern: '[Cc]olou?r' }, { text: 'hue', points: 2 }] });
    expect(['color', 'HUE', 'COLOR'].map((v) => markQuestion(ok.question!, v))).toEqual([3, 2, 0].map((points) => ({ kind: 'auto', points })));
  });

  it('a pattern branch no correct response matches has no sample answer for an entry: the item keeps its processing, which marks it', async () => {
    const { question, reason } = await one(item({ correct: 'colour', rp: branches([pm('[Cc]olou?r'), 3], [pm('k[ou]l+r'), 1]) }));
    expect(reason).toBeUndefined();
    expect(question).toMatchObject({ type: 'short_text', points: 3, scoring: { format: 'qti' } });
    const points = (a: string) => (markQuestion(question!, a) as { points: number }).points;
    expect([points('Colour'), points('kulr'), points('color!')]).toEqual([3, 1, 0]);
  });

  it('branches worth more after ones worth less, and a pattern that cannot be run, are skipped with the reason', async () => {
    expect((await one(item({ rp: branches([sm('hue'), 1], [sm('colour'), 2]) }))).reason).toMatch(/worth more after ones worth less/);
    expect((await one(item({ correct: 'a', rp: branches([pm('[a-z-[aeiou]]'), 1]) }))).reason).toMatch(/subtracts a character class/);
  });

  it('an entry with a pattern exports as patternMatch branches that re-import equal, in QTI 3.0 and in its 2.2 form', async () => {
    const test: TestInput = {
      title: 'Patterns',
      description: '',
      durationMinutes: 10,
      proctoring: 'none',
      marking: 'auto',
      resultVisibility: 'immediate',
      questions: [{ id: 'p1', type: 'short_text', prompt: 'Colour?', points: 2, caseSensitive: true, acceptedAnswers: ['Colour', { text: 'colour', points: 1.5, caseSensitive: false }, { text: 'Kolor', points: 1, pattern: '[Kk]olou?r' }] }],
    };
    const { questions } = checkTestInput(test);
    const zip = exportQti3({ testId: 'tst_p', title: test.title, durationMinutes: 10, questions });
    const xml = new TextDecoder().decode(unzipSync(zip)['items/p1.xml']);
    expect(xml).toContain('<qti-correct-response><qti-value>Colour</qti-value></qti-correct-response>');
    for (const version of ['3.0', '2.2'] as const) {
      const { question, reason } = await one(xml, version);
      expect(reason, version).toBeUndefined();
      expect(question, version).toEqual(questions[0]);
    }
  });
});
