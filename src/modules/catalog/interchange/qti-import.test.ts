import { compileQtiProcessing, runQtiProcessing, type QtiScoringSource } from '../qti-processing/index.js';
import { describe, expect, it } from 'vitest';
import { fixture, itemsPackage, manifest, packageOf, toQti22, zipOf, type QtiVersion } from '../../../../test/helpers/qti.js';
import { importQtiPackage } from './qti-package.js';

/** Imports one fixture item (QTI 3.0 or its 2.2 form) and returns the question or the skip. */
async function one(name: string, version: QtiVersion, extra: Record<string, string | Uint8Array> = {}) {
  const { input, report } = await importQtiPackage(itemsPackage([name], version, extra));
  return { question: input?.questions?.[0], skipped: report.skipped[0], report, input };
}

const VERSIONS: QtiVersion[] = ['3.0', '2.2'];

describe.each(VERSIONS)('QTI %s items to Assay questions', (version) => {
  it('choice, max-choices 1, match_correct: single_choice worth 1, shuffle and fixed kept, title and identifier kept', async () => {
    const { question, report, input } = await one('choice-single.xml', version);
    // The body's <em> makes it a Markdown test, the emphasis kept as Markdown.
    expect(input?.contentFormat).toBe('markdown');
    expect(question).toEqual({
      id: 'planets-1',
      type: 'single_choice',
      prompt: 'Which planet is the *largest* in the solar system?',
      points: 1,
      options: [
        { id: 'mars', text: 'Mars' },
        { id: 'jupiter', text: 'Jupiter' },
        { id: 'venus', text: 'Venus' },
        { id: 'none', text: 'None of these', fixed: true },
      ],
      correctOptionId: 'jupiter',
      shuffleOptions: true,
    });
    expect(report.items).toEqual([{ file: 'items/choice-single.xml', identifier: 'planets-1', title: 'Largest planet', questionId: 'planets-1', type: 'single_choice' }]);
    // Feedback and stylesheets are harmless: noted, not fatal.
    expect(report.notes).toEqual(expect.arrayContaining(['items/choice-single.xml: feedback is not imported (Assay shows candidates no feedback): 1 modal feedback on FEEDBACK left out', 'items/choice-single.xml: stylesheets are not imported']));
  });

  it('choice with map_response on one option: single_choice worth the mapped value, the interaction prompt as prompt', async () => {
    const { question } = await one('choice-single-mapped.xml', version);
    expect(question).toMatchObject({ type: 'single_choice', prompt: 'Which river is usually given as the longest?', points: 2, correctOptionId: 'nile', shuffleOptions: false });
  });

  it('choice, max-choices 0, match_correct: multiple_choice all or nothing', async () => {
    const { question } = await one('choice-multiple.xml', version);
    expect(question).toMatchObject({ type: 'multiple_choice', points: 1, correctOptionIds: ['n2', 'n3'], partialCredit: false, prompt: 'Select every prime number.' });
  });

  it('choice with map_response +w / −w bounded below by 0: multiple_choice with partial credit', async () => {
    const { question } = await one('choice-multiple-partial.xml', version);
    expect(question).toMatchObject({ type: 'multiple_choice', points: 4, correctOptionIds: ['whale', 'bat'], partialCredit: true });
  });

  it('string text entry with a mapping: short_text with every mapped answer, case sensitivity kept', async () => {
    const { question } = await one('text-entry-string.xml', version);
    expect(question).toEqual({ id: 'capital-5', type: 'short_text', prompt: 'What is the capital of Australia?', points: 1.5, acceptedAnswers: ['Canberra', 'Canberra ACT'], caseSensitive: false });
  });

  it('float text entry with qti-equal absolute tolerance: numeric with that tolerance, points from MAXSCORE', async () => {
    const { question } = await one('text-entry-numeric-absolute.xml', version);
    expect(question).toMatchObject({ type: 'numeric', answer: 9.81, tolerance: 0.05, points: 3, prompt: 'Acceleration due to gravity at the surface, in m/s²?' });
  });

  it('relative tolerance (1 % of 200) converts to the exact absolute tolerance 2', async () => {
    const { question } = await one('text-entry-numeric-relative.xml', version);
    expect(question).toMatchObject({ type: 'numeric', answer: 200, tolerance: 2, points: 2 });
  });

  it('integer text entry with match_correct: numeric, tolerance 0', async () => {
    const { question } = await one('text-entry-integer.xml', version);
    expect(question).toMatchObject({ type: 'numeric', answer: 8, tolerance: 0, points: 1 });
  });

  it('extended text: essay worth MAXSCORE, the scorer rubric kept', async () => {
    const { question } = await one('extended-text.xml', version);
    expect(question).toEqual({ id: 'essay-9', type: 'essay', prompt: 'Explain two causes of the First World War.', points: 5, rubric: 'Two causes, each explained.' });
  });

  it('match with a mapping of equal pairs: matching with partial credit', async () => {
    const { question } = await one('match.xml', version);
    expect(question).toMatchObject({
      type: 'matching',
      points: 3,
      prompt: 'Match each book to its author.',
      stems: [{ id: 'hamlet', text: 'Hamlet' }, { id: 'emma', text: 'Emma' }, { id: 'ulysses', text: 'Ulysses' }],
      correct: { hamlet: 'shakespeare', emma: 'austen', ulysses: 'joyce' },
      partialCredit: true,
    });
    expect((question as { choices: unknown[] }).choices).toHaveLength(4);
  });

  it('order with match_correct: ordering, items in the correct order, all or nothing', async () => {
    const { question } = await one('order.xml', version);
    expect(question).toMatchObject({
      type: 'ordering',
      points: 1,
      items: [{ id: 'rome', text: 'Founding of Rome' }, { id: 'magna', text: 'Magna Carta' }, { id: 'moon', text: 'First Moon landing' }],
      partialCredit: false,
    });
  });

  it('text entry and inline choice summed by mapping: fill_blanks with a text and a choice blank', async () => {
    const { question } = await one('fill-blanks.xml', version);
    expect(question).toEqual({
      id: 'water-12',
      type: 'fill_blanks',
      prompt: 'Complete the sentence.',
      points: 2,
      text: 'Water is made of {{B1}} and {{B2}}.',
      blanks: [
        { id: 'B1', kind: 'text', acceptedAnswers: ['hydrogen', 'H'], caseSensitive: false },
        { id: 'B2', kind: 'choice', options: [{ id: 'o', text: 'oxygen' }, { id: 'n', text: 'nitrogen' }], correctOptionId: 'o' },
      ],
    });
  });

  it('gap match with a mapping: fill_blanks, each gap a choice of the gap texts', async () => {
    const { question } = await one('gap-match.xml', version);
    expect(question).toMatchObject({ type: 'fill_blanks', points: 2, text: 'The sky is {{g1}} and grass is {{g2}}.', prompt: 'Drag a colour into each gap.' });
    const blanks = (question as { blanks: Array<{ correctOptionId: string; options: unknown[] }> }).blanks;
    expect(blanks.map((b) => b.correctOptionId)).toEqual(['blue', 'green']);
    expect(blanks[0]!.options).toHaveLength(3);
  });

  it('hottext with match_correct: hot_text whose phrases stand in its text, the correct one keyed (QTI 2 writes the phrase as a lower-case hottext element)', async () => {
    const { question, skipped } = await one('hottext.xml', version);
    expect(skipped).toBeUndefined();
    expect(question).toMatchObject({ type: 'hot_text', prompt: 'Select the error in the following passage of text.', points: 1, hotspots: [{ phrase: 'who bought' }, { phrase: 'includes' }], maxChoices: 1 });
    const q = question as unknown as { text: string; hotspots: Array<{ id: string }>; correct: string[] };
    expect(q.text).toBe(`Sponsors {{${q.hotspots[0]!.id}}} advertising time {{${q.hotspots[1]!.id}}} a dozen firms.`);
    expect(q.correct).toEqual([q.hotspots[1]!.id]);
  });

  it('upload: file_upload with its accepted type, worth MAXSCORE', async () => {
    const { question } = await one('upload.xml', version);
    expect(question).toMatchObject({ type: 'file_upload', points: 10, accept: ['application/pdf'], prompt: 'Upload your lab report.' });
  });

  it('several interactions whose processing sums one standard rule per response: one composite question, a part per interaction', async () => {
    const { question, report } = await one('composite.xml', version);
    expect(question).toEqual({
      id: 'solar-composite',
      type: 'composite',
      prompt: 'Answer these questions about the Sun.',
      points: 8,
      parts: [
        { id: 'STAR', type: 'single_choice', prompt: 'Is the Sun a star?', points: 1, options: [{ id: 'yes', text: 'Yes' }, { id: 'no', text: 'No' }], correctOptionId: 'yes', shuffleOptions: true },
        { id: 'MINUTES', type: 'numeric', prompt: 'Light from the Sun takes how many minutes to reach the Earth?', points: 3, answer: 8.3, tolerance: 0.2 },
        { id: 'GAS', type: 'short_text', prompt: 'Which gas is the Sun mostly made of?', points: 2, acceptedAnswers: ['hydrogen', 'H'], caseSensitive: false },
        {
          id: 'ORDER',
          type: 'ordering',
          prompt: 'Order these planets from the Sun outwards.',
          points: 2,
          items: [{ id: 'mercury', text: 'Mercury' }, { id: 'venus', text: 'Venus' }, { id: 'earth', text: 'Earth' }],
          partialCredit: false,
        },
      ],
    });
    expect(report.items[0]).toMatchObject({ type: 'composite' });
  });

  it('a numeric text entry with an asymmetric tolerance, which the native numeric cannot hold, keeps its processing and is marked by it', async () => {
    const { input, report } = await importQtiPackage(itemsPackage(['text-entry-asymmetric-tolerance.xml'], version));
    expect(report.skipped).toEqual([]);
    const q = input!.questions![0]!;
    expect(q).toMatchObject({ type: 'numeric', answer: 10, scoring: { format: 'qti', responses: [{ identifier: 'RESPONSE' }] } });
    // equal(RESPONSE, correct) with tolerance="1 2": true when x − 1 ≤ 10 ≤ x + 2 for the answer x (the range is
    // drawn around the first expression), so 8 … 11 is right, 7.9 and 11.1 are not.
    const score = (r: number) => runQtiProcessing(compileQtiProcessing((q as { scoring: QtiScoringSource }).scoring), { RESPONSE: r }).score;
    expect([score(8), score(11), score(7.9), score(11.1)]).toEqual([q.points, q.points, 0, 0]);
  });

  it('several interactions whose processing does not split by part (match_correct reads only RESPONSE): a composite question that keeps its processing', async () => {
    const { question, report } = await one('composite-unsplit.xml', version);
    expect(report.skipped).toEqual([]);
    expect(question).toMatchObject({
      id: 'composite-unsplit',
      type: 'composite',
      prompt: 'Two questions in one.',
      points: 1,
      parts: [
        { id: 'RESPONSE', type: 'single_choice', correctOptionId: 'a' },
        { id: 'RESPONSE2', type: 'single_choice', correctOptionId: 'b' },
      ],
      scoring: { format: 'qti', responses: [{ identifier: 'RESPONSE', partId: 'RESPONSE' }, { identifier: 'RESPONSE2', partId: 'RESPONSE2' }] },
    });
    expect(report.items[0]).toMatchObject({ type: 'composite' });
  });

  const SKIPS: Array<[string, string, RegExp]> = [
    // Hotspot and select point items import now; these fixtures show no image, which both need.
    ['skip-hotspot.xml', 'hotspot-interaction', /the graphic interaction shows no image/],
    ['skip-custom-rp.xml', 'choice-interaction', /^the response processing cannot be run: .*duration/],
    ['skip-unequal-weights.xml', 'choice-interaction', /weights that Assay's partial credit cannot reproduce/],
    ['skip-negative.xml', 'choice-interaction', /negative points/],
    ['skip-image.xml', 'choice-interaction', /^images cannot be stored by this import$/],
    ['skip-image-no-alt.xml', 'choice-interaction', /^image "images\/cat.png" has no alt text, which Assay requires$/],
    ['skip-map-response-point.xml', 'select-point-interaction', /the select point interaction shows no image/],
    ['skip-all-or-nothing-blanks.xml', 'gap-match-interaction', /all-or-nothing scoring across several gaps/],
  ];
  it.each(SKIPS)('%s is skipped, naming the interaction and the reason', async (name, interaction, reason) => {
    const images = { 'items/images/cat.png': new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0]), 'items/images/shape.svg': fixture('shape-with-script.svg') };
    const { question, skipped, report } = await one(name, version, images);
    expect(question).toBeUndefined();
    expect(report.imported).toBe(0);
    expect(skipped).toMatchObject({ file: `items/${name}`, interaction });
    expect(skipped!.reason).toMatch(reason);
  });

  it('an item file the manifest names but the package lacks is skipped as missing', async () => {
    const files = [{ path: 'items/choice-single.xml', xml: fixture('choice-single.xml') }, { path: 'items/gone.xml', xml: '' }];
    const conv = (x: string) => (version === '2.2' ? toQti22(x) : x);
    const pkg = zipOf({ 'imsmanifest.xml': manifest(files, version), 'items/choice-single.xml': conv(fixture('choice-single.xml')) });
    const { report } = await importQtiPackage(pkg);
    expect(report.imported).toBe(1);
    expect(report.skipped).toEqual([{ file: 'items/gone.xml', identifier: 'R1', interaction: '-', reason: 'the file is missing from the package' }]);
  });
});

describe('hand-written QTI 2.2 items', () => {
  it('a 2.2 choice with map_response +1/−1 bounded by 0 is multiple_choice with partial credit, shuffle and fixed kept', async () => {
    const { question } = await one('v22-choice.xml', '3.0');
    expect(question).toMatchObject({
      id: 'v22-oceans',
      type: 'multiple_choice',
      points: 2,
      correctOptionIds: ['pacific', 'atlantic'],
      partialCredit: true,
      shuffleOptions: true,
      options: [{ id: 'pacific', text: 'Pacific' }, { id: 'baltic', text: 'Baltic' }, { id: 'atlantic', text: 'Atlantic', fixed: true }],
    });
  });

  it('a 2.2 text entry with a case-sensitive mapping (2.1 template URI) is short_text, case-sensitive', async () => {
    const { question } = await one('v22-text-entry.xml', '3.0');
    expect(question).toMatchObject({ type: 'short_text', points: 2, acceptedAnswers: ['Au'], caseSensitive: true, prompt: 'The chemical symbol for gold is .' });
  });
});

describe('assessment test: sections, pools, ordering', () => {
  const TEST = `<?xml version="1.0" encoding="UTF-8"?>
<qti-assessment-test xmlns="http://www.imsglobal.org/xsd/imsqtiasi_v3p0" identifier="quiz" title="Science quiz">
  <qti-time-limits max-time="1800"/>
  <qti-test-part identifier="p1" navigation-mode="nonlinear" submission-mode="simultaneous">
    <qti-assessment-section identifier="warmup" title="Warm-up" visible="true">
      <qti-ordering shuffle="true"/>
      <qti-rubric-block view="candidate"><qti-content-body><p>Answer quickly.</p></qti-content-body></qti-rubric-block>
      <qti-assessment-item-ref identifier="i1" href="../items/choice-single.xml"/>
      <qti-assessment-item-ref identifier="i2" href="../items/choice-multiple.xml"/>
    </qti-assessment-section>
    <qti-assessment-section identifier="pool" title="Pool" visible="true">
      <qti-selection select="1"/>
      <qti-assessment-item-ref identifier="i3" href="../items/order.xml"/>
      <qti-assessment-item-ref identifier="i4" href="../items/skip-hotspot.xml"/>
      <qti-assessment-item-ref identifier="i5" href="../items/text-entry-integer.xml"/>
    </qti-assessment-section>
    <qti-assessment-section identifier="uneven" title="Uneven pool" visible="true">
      <qti-selection select="1"/>
      <qti-assessment-item-ref identifier="i6" href="../items/text-entry-numeric-relative.xml"/>
      <qti-assessment-item-ref identifier="i7" href="../items/match.xml"/>
    </qti-assessment-section>
  </qti-test-part>
</qti-assessment-test>`;
  const NAMES = ['choice-single.xml', 'choice-multiple.xml', 'order.xml', 'skip-hotspot.xml', 'text-entry-integer.xml', 'text-entry-numeric-relative.xml', 'match.xml', 'essay-unused.xml'];

  it.each(VERSIONS)('QTI %s: sections with titles, instructions, shuffle and draw; duration from max-time; a pool of unequal points skipped whole', async (version) => {
    const files = NAMES.map((n) => ({ path: `items/${n}`, xml: n === 'essay-unused.xml' ? fixture('extended-text.xml') : fixture(n) }));
    const zip = packageOf([{ path: 'tests/quiz.xml', xml: TEST, kind: 'test' }, ...files], version);
    const { input, report } = await importQtiPackage(zip);
    expect(input).toMatchObject({ title: 'Science quiz', durationMinutes: 30, marking: 'auto', resultVisibility: 'immediate' });
    expect(input!.questions).toBeUndefined();
    expect(input!.sections!.map((s) => ({ id: s.id, title: s.title, instructions: s.instructions, shuffle: s.shuffleQuestions, draw: s.draw, ids: s.questions.map((q) => q.id) }))).toEqual([
      { id: 'warmup', title: 'Warm-up', instructions: 'Answer quickly.', shuffle: true, draw: undefined, ids: ['planets-1', 'primes-3'] },
      { id: 'pool', title: 'Pool', instructions: undefined, shuffle: false, draw: 1, ids: ['history-11', 'legs-8'] },
    ]);
    expect(report.imported).toBe(4);
    const reasons = Object.fromEntries(report.skipped.map((s) => [s.identifier, s.reason]));
    expect(Object.keys(reasons).sort()).toEqual(['R8', 'authors-10', 'boil-7', 'skip-hotspot']);
    expect(reasons['authors-10']).toMatch(/unequal points/);
    expect(reasons['R8']).toBe('not used by the assessment test');
    expect(report.notes).toContain('section "Pool": the pool draws from the imported items only');
  });
});
