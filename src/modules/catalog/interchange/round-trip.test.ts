import { XMLValidator } from 'fast-xml-parser';
import { unzipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { checkTestInput } from '../authoring.js';
import type { QuestionInput, TestInput } from '../schemas.js';
import { sectionsWithQuestions } from '../sections.js';
import { exportQti3, QTI3_NS, RP_TEMPLATES, type ExportableTest } from './qti-export.js';
import { importQtiPackage } from './qti-package.js';

const opts = (...texts: string[]) => texts.map((text, i) => ({ id: `o${i + 1}`, text }));

/** One question of every type, partial credit on and off, in sections with a pool and shuffling. */
const EVERY_TYPE: TestInput = {
  title: 'Every type & more <round trip>',
  description: '',
  durationMinutes: 45,
  proctoring: 'none',
  marking: 'hybrid',
  resultVisibility: 'after_review',
  sections: [
    {
      id: 'choices',
      title: 'Choices',
      instructions: 'Read each question twice.\n\nThen answer.',
      shuffleQuestions: true,
      questions: [
        { id: 'sc1', type: 'single_choice', prompt: 'Pick "B" & not <A>.', points: 1, options: opts('A', 'B', 'None of these'), correctOptionId: 'o2' },
        { id: 'sc2', type: 'single_choice', prompt: 'Worth two.\nSecond line.', points: 2, options: [...opts('x', 'y'), { id: 'o3', text: 'z', fixed: true }], correctOptionId: 'o1', shuffleOptions: true },
        { id: 'mc1', type: 'multiple_choice', prompt: 'All or nothing', points: 3, options: opts('a', 'b', 'c'), correctOptionIds: ['o1', 'o3'] },
        { id: 'mc2', type: 'multiple_choice', prompt: 'Partial, thirds', points: 2, options: opts('a', 'b', 'c', 'd'), correctOptionIds: ['o1', 'o2', 'o4'], partialCredit: true },
        { id: 'mc3', type: 'multiple_choice', prompt: 'One point, all or nothing', points: 1, options: opts('a', 'b'), correctOptionIds: ['o2'] },
      ],
    },
    {
      id: 'pool',
      title: 'Pool of two',
      draw: 2,
      questions: [
        { id: 'st1', type: 'short_text', prompt: 'Capital of France?', points: 2, acceptedAnswers: ['Paris', 'paris city'] },
        { id: 'st2', type: 'short_text', prompt: 'Symbol of gold?', points: 2, acceptedAnswers: ['Au'], caseSensitive: true },
        { id: 'nu1', type: 'numeric', prompt: 'Pi to two places', points: 2, answer: 3.14, tolerance: 0.005 },
        { id: 'nu2', type: 'numeric', prompt: 'Seven squared', points: 2, answer: 49 },
      ],
    },
    {
      id: 'rest',
      title: 'The rest',
      questions: [
        { id: 'nu3', type: 'numeric', prompt: 'One', points: 1, answer: -0.5 },
        { id: 'es1', type: 'essay', prompt: 'Discuss.', points: 5, rubric: 'Clarity.\n\nEvidence.', maxWords: 300 },
        { id: 'es2', type: 'essay', prompt: 'No rubric', points: 1 },
        { id: 'ma1', type: 'matching', prompt: 'Match, partial', points: 3, stems: opts('France', 'Spain', 'Italy'), choices: [{ id: 'c1', text: 'Paris' }, { id: 'c2', text: 'Madrid' }, { id: 'c3', text: 'Rome' }, { id: 'c4', text: 'Lisbon' }], correct: { o1: 'c1', o2: 'c2', o3: 'c3' } },
        { id: 'ma2', type: 'matching', prompt: 'Match, all or nothing', points: 2, stems: opts('1', '2'), choices: [{ id: 'c1', text: 'one' }, { id: 'c2', text: 'two' }], correct: { o1: 'c1', o2: 'c1' }, partialCredit: false },
        { id: 'or1', type: 'ordering', prompt: 'Order, all or nothing', points: 1, items: opts('first', 'second', 'third') },
        { id: 'or2', type: 'ordering', prompt: 'Order, partial', points: 4, items: opts('w', 'x', 'y', 'z'), partialCredit: true },
        {
          id: 'fb1',
          type: 'fill_blanks',
          prompt: 'Fill in.',
          points: 3,
          text: 'Water is {{b1}} and {{b2}}.\n\nIce is {{b3}}.',
          blanks: [
            { id: 'b1', kind: 'text', acceptedAnswers: ['H2O', 'water'] },
            { id: 'b2', kind: 'choice', options: [{ id: 'w', text: 'wet' }, { id: 'd', text: 'dry' }], correctOptionId: 'w' },
            { id: 'b3', kind: 'text', acceptedAnswers: ['Cold'], caseSensitive: true },
          ],
        },
        { id: 'fb2', type: 'fill_blanks', prompt: 'One blank.', points: 1, text: 'Two and two make {{n}}.', blanks: [{ id: 'n', kind: 'text', acceptedAnswers: ['four', '4'] }] },
        { id: 'fu1', type: 'file_upload', prompt: 'Upload a PDF or image.', points: 10, accept: ['application/pdf', 'image/*'], maxBytes: 5_000_000, rubric: 'Complete.' },
      ],
    },
  ],
};

/** What an operator's read of the test holds, as exportQti3 takes it. */
function asStored(input: TestInput, testId: string): ExportableTest {
  const content = checkTestInput(input);
  return content.sections
    ? { testId, title: input.title, durationMinutes: input.durationMinutes, sections: sectionsWithQuestions(content.sections, content.questions) }
    : { testId, title: input.title, durationMinutes: input.durationMinutes, questions: content.questions };
}

/** The content that must survive: defaults filled in, so an absent false and a false compare equal. */
function normalised(input: TestInput) {
  const content = checkTestInput(input);
  const q = (x: QuestionInput) => ('options' in x ? { shuffleOptions: false, ...x } : x);
  return { sections: content.sections, questions: content.questions.map(q) };
}

const files = (zip: Uint8Array) => Object.fromEntries(Object.entries(unzipSync(zip)).map(([k, v]) => [k, new TextDecoder().decode(v)]));

describe('QTI 3.0 export', () => {
  const zip = exportQti3(asStored(EVERY_TYPE, 'tst_roundtrip'));
  const out = files(zip);

  it('writes a manifest with QTI 3.0 resource types, the test and one item per question', () => {
    expect(Object.keys(out).sort()).toEqual(['assessment-test.xml', 'imsmanifest.xml', ...checkTestInput(EVERY_TYPE).questions.map((q) => `items/${q.id}.xml`)].sort());
    expect(out['imsmanifest.xml']).toContain('type="imsqti_test_xmlv3p0" href="assessment-test.xml"');
    expect(out['imsmanifest.xml']!.match(/type="imsqti_item_xmlv3p0"/g)).toHaveLength(19);
  });

  it('every file is well-formed XML; items and test use the QTI 3.0 namespace and element names', () => {
    for (const [name, xml] of Object.entries(out)) expect([name, XMLValidator.validate(xml)]).toEqual([name, true]);
    for (const [name, xml] of Object.entries(out).filter(([n]) => n !== 'imsmanifest.xml')) {
      expect(xml, name).toContain(`xmlns="${QTI3_NS}"`);
      // QTI 3 element names only: no QTI 2 camelCase element.
      expect(xml.match(/<([a-z]+[A-Z][A-Za-z]*)/g), name).toBeNull();
    }
    const test = out['assessment-test.xml']!;
    expect(test).toContain('<qti-selection select="2"/>');
    expect(test).toContain('<qti-ordering shuffle="true"/>');
    expect(test).toContain('<qti-assessment-section identifier="pool" title="Pool of two" visible="true">');
    expect(out['items/es1.xml']).toContain('<qti-extended-text-interaction response-identifier="RESPONSE" data-max-words="300"/>');
    expect(out['items/or1.xml']).toContain('<qti-order-interaction');
    expect(out['items/ma1.xml']).toContain('base-type="directedPair"');
    expect(out['items/fb1.xml']).toContain('<qti-inline-choice-interaction response-identifier="b2">');
    expect(out['items/fu1.xml']).toContain('<qti-upload-interaction response-identifier="RESPONSE" type="application/pdf image/*"');
  });

  it('uses the standard response-processing template URIs where they give the points exactly', () => {
    expect(out['items/sc1.xml']).toContain(`<qti-response-processing template="${RP_TEMPLATES.match_correct}"/>`);
    expect(out['items/mc3.xml']).toContain(`template="${RP_TEMPLATES.match_correct}"`);
    expect(out['items/sc2.xml']).toContain(`template="${RP_TEMPLATES.map_response}"`);
    expect(out['items/mc2.xml']).toContain(`template="${RP_TEMPLATES.map_response}"`);
    expect(out['items/st1.xml']).toContain(`template="${RP_TEMPLATES.map_response}"`);
    expect(out['items/ma1.xml']).toContain(`template="${RP_TEMPLATES.map_response}"`);
    // Points other than 1, a tolerance: match_correct's own body with the item's points.
    expect(out['items/nu1.xml']).toContain('<qti-equal tolerance-mode="absolute" tolerance="0.005 0.005"');
    expect(out['items/mc1.xml']).toContain('<qti-match><qti-variable identifier="RESPONSE"/><qti-correct identifier="RESPONSE"/></qti-match>');
  });

  it('round trip: importing the export gives an equal test (types, texts, answers, points, sections, pools, shuffles)', async () => {
    const { input, report } = await importQtiPackage(zip);
    expect(report.skipped).toEqual([]);
    expect(report.imported).toBe(19);
    expect(input!.title).toBe(EVERY_TYPE.title);
    expect(input!.durationMinutes).toBe(45);
    expect(normalised(input!)).toEqual(normalised(EVERY_TYPE));
  });

  it('round trip of a flat test stays flat', async () => {
    const flat: TestInput = { ...EVERY_TYPE, sections: undefined, marking: 'auto', resultVisibility: 'immediate', questions: EVERY_TYPE.sections![0]!.questions };
    const { input } = await importQtiPackage(exportQti3(asStored(flat, 'tst_flat')));
    expect(input!.sections).toBeUndefined();
    expect(normalised(input!)).toEqual(normalised(flat));
  });

  it('exports the same bytes for the same test', () => {
    expect(Buffer.from(exportQti3(asStored(EVERY_TYPE, 'tst_roundtrip'))).equals(Buffer.from(zip))).toBe(true);
  });
});
