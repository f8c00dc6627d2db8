import { unzipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { riverPackage, poemPackage, fixtureText } from '../../../../test/helpers/qti-passages.js';
import { toQti22, zipOf } from '../../../../test/helpers/qti.js';
import { checkTestInput } from '../authoring.js';
import type { TestInput } from '../schemas.js';
import { exportQti3 } from './qti-export.js';
import { importQtiPackage } from './qti-package.js';

const RIVER = { id: 'river-text', title: 'The flood', text: 'The river rose for three days.\n\nOn the fourth, the bridge closed.' };
const PNG = Uint8Array.from(Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=', 'base64'));

describe('QTI shared stimuli to passages', () => {
  it('QTI 3.0: a stimulus referenced by two items becomes one passage named by both questions', async () => {
    const { input, report } = await importQtiPackage(riverPackage());
    expect(report.skipped).toEqual([]);
    expect(input?.passages).toEqual([RIVER]);
    expect(input?.questions?.map((q) => [q.id, q.passageId, q.prompt])).toEqual([
      ['river-1', 'river-text', 'Question 1 about the river'],
      ['river-2', 'river-text', 'Question 2 about the river'],
    ]);
    // What the import produces passes the authoring rules (the reference resolves).
    expect(() => checkTestInput(input!)).not.toThrow();
  });

  it('QTI 2.1: an item body\'s <object> naming a shared XHTML page becomes a passage, titled by the page, left out of the prompt', async () => {
    const { input, report } = await importQtiPackage(poemPackage());
    expect(report.skipped).toEqual([]);
    expect(input?.passages).toEqual([{ id: 'passage1', title: 'A short poem', text: 'Roses are red,\nviolets are blue.' }]);
    expect(input?.questions?.map((q) => [q.passageId, q.prompt])).toEqual([
      ['passage1', 'What colour are the roses?'],
      ['passage1', 'What colour are the violets?'],
    ]);
  });

  it('QTI 2.2: assessmentStimulusRef and an assessmentStimulus file import the same passage', async () => {
    const files = unzipSync(riverPackage());
    const v22 = Object.fromEntries(Object.entries(files).map(([k, v]) => [k, k === 'imsmanifest.xml' ? v : toQti22(new TextDecoder().decode(v))]));
    expect(String(v22['items/river-1.xml'])).toContain('<assessmentStimulusRef identifier="river-text"');
    expect(String(v22['stimuli/river.xml'])).toContain('<stimulusBody>');
    const { input, report } = await importQtiPackage(zipOf(v22 as Record<string, string | Uint8Array>));
    expect(report.skipped).toEqual([]);
    expect(input?.passages).toEqual([RIVER]);
  });

  it('an object that is not an HTML page (an image, an XML file) is no passage', async () => {
    const item = fixtureText('v21-item-poem.xml').replace('<object data="../shared/poem.html" type="text/html">The poem</object>', '<object data="../shared/data.xml" type="application/xml">A data file</object>');
    const { input } = await importQtiPackage(poemPackage({ 'items/poem-1.xml': item }));
    expect(input?.questions?.[0]).not.toHaveProperty('passageId');
    expect(input?.questions?.[1]).toMatchObject({ passageId: 'passage1' });
  });

  it('a missing stimulus file skips the items that name it, with the reason', async () => {
    const files = unzipSync(riverPackage());
    delete files['stimuli/river.xml'];
    const { input, report } = await importQtiPackage(zipOf(files));
    expect(report.skipped.map((s) => [s.identifier, s.reason])).toEqual([
      ['river-1', 'its stimulus "../stimuli/river.xml" is missing from the package'],
      ['river-2', 'its stimulus "../stimuli/river.xml" is missing from the package'],
    ]);
    expect(input).toBeNull();
  });

  it('an image in a stimulus goes the way of item images: stored, shown as Markdown, the test made Markdown', async () => {
    const stimulus = fixtureText('stimulus-river.xml').replace('<p>On the fourth', '<p><img src="map.png" alt="A map of the river"/></p><p>On the fourth');
    const stored: string[] = [];
    const { input } = await importQtiPackage(riverPackage('manifest-qti3.xml', { 'stimuli/river.xml': stimulus, 'stimuli/map.png': PNG }), {
      assets: { store: async (img) => (stored.push(img.path), { assetId: 'ast_map1' }) },
    });
    expect(stored).toEqual(['stimuli/map.png']);
    expect(input?.passages?.[0]?.text).toContain('![A map of the river](asset:ast_map1)');
    expect(input?.contentFormat).toBe('markdown');
    // Without alt text the stimulus is refused as an item image is, so its items are skipped.
    const noAlt = stimulus.replace(' alt="A map of the river"', '');
    const { report } = await importQtiPackage(riverPackage('manifest-qti3.xml', { 'stimuli/river.xml': noAlt, 'stimuli/map.png': PNG }), { dryRun: true });
    expect(report.skipped[0]?.reason).toBe('its stimulus "../stimuli/river.xml": image "map.png" has no alt text, which Assay requires');
  });
});

describe('tolerant packages: a resource whose manifest type does not match its content', () => {
  it('a stimulus labelled as a test is skipped with that reason, and the items import with their passage', async () => {
    const { input, report } = await importQtiPackage(riverPackage('manifest-mislabelled.xml'));
    expect(report.skipped).toEqual([
      {
        file: 'stimuli/river.xml',
        identifier: 'river-text',
        interaction: '-',
        reason: 'the manifest labels it a test (imsqti_test_xmlv3p0), but the file holds <qti-assessment-stimulus>; it is not imported as the test',
      },
    ]);
    expect(report.imported).toBe(2);
    expect(input?.passages).toEqual([RIVER]);
  });

  it('an item labelled as a test is skipped as the test; a stimulus labelled as an item is skipped as an item', async () => {
    const manifest = fixtureText('manifest-qti3.xml')
      .replace('identifier="river-text" type="imsqti_stimulus_xmlv3p0"', 'identifier="river-text" type="imsqti_item_xmlv3p0"')
      .replace('identifier="river-2" type="imsqti_item_xmlv3p0"', 'identifier="river-2" type="imsqti_test_xmlv3p0"');
    const { input, report } = await importQtiPackage(zipOf({ ...unzipSync(riverPackage()), 'imsmanifest.xml': manifest }));
    expect(report.skipped.map((s) => [s.file, s.reason])).toEqual([
      ['items/river-2.xml', 'the manifest labels it a test (imsqti_test_xmlv3p0), but the file holds <qti-assessment-item>; it is not imported as the test'],
      ['stimuli/river.xml', 'the file is a shared stimulus, not an assessment item (items that reference it show it as their passage)'],
    ]);
    expect(input?.questions?.map((q) => [q.id, q.passageId])).toEqual([['river-1', 'river-text']]);
  });
});

describe('passages exported and imported again', () => {
  const test: TestInput = {
    title: 'Reading',
    description: '',
    durationMinutes: 20,
    proctoring: 'none',
    marking: 'auto',
    resultVisibility: 'immediate',
    passages: [
      { id: 'river', title: 'The flood & after', text: 'The river rose.\nIt rose again.\n\nThe bridge closed.' },
      { id: 'poem', text: 'Roses are red.' },
    ],
    questions: [
      { id: 'q1', type: 'single_choice', prompt: 'One?', points: 1, options: [{ id: 'a', text: 'A' }, { id: 'b', text: 'B' }], correctOptionId: 'a', passageId: 'river' },
      { id: 'q2', type: 'short_text', prompt: 'Two?', points: 1, acceptedAnswers: ['x'], passageId: 'river' },
      { id: 'q3', type: 'numeric', prompt: 'Three?', points: 1, answer: 3, passageId: 'poem' },
      { id: 'q4', type: 'numeric', prompt: 'Four?', points: 1, answer: 4 },
    ],
  };
  const zip = exportQti3({ testId: 'tst_r', title: test.title, durationMinutes: 20, questions: checkTestInput(test).questions, passages: test.passages });
  const files = unzipSync(zip);
  const text = (path: string) => new TextDecoder().decode(files[path]);

  it('writes each passage as a qti-assessment-stimulus, referenced by its items before their body, listed in the manifest and as their dependency', () => {
    expect(text('passages/river.xml')).toMatch(/<qti-assessment-stimulus xmlns="http:\/\/www.imsglobal.org\/xsd\/imsqtiasi_v3p0"[^>]* identifier="river" title="The flood &amp; after">\n  <qti-stimulus-body><p>The river rose.<br\/>It rose again.<\/p><p>The bridge closed.<\/p><\/qti-stimulus-body>/);
    expect(text('items/q1.xml')).toMatch(/<qti-assessment-stimulus-ref identifier="river" href="..\/passages\/river.xml" title="The flood &amp; after"\/>\n  <qti-item-body>/);
    expect(text('items/q4.xml')).not.toContain('stimulus');
    const manifest = text('imsmanifest.xml');
    expect(manifest).toContain('<resource identifier="STIMULUS-river" type="imsqti_stimulus_xmlv3p0" href="passages/river.xml">');
    expect(manifest).toMatch(/<resource identifier="q2" type="imsqti_item_xmlv3p0" href="items\/q2.xml">\n {6}<file href="items\/q2.xml"\/>\n {6}<dependency identifierref="STIMULUS-river"\/>/);
  });

  it('a round trip gives equal passages and references; a passage no question names is written but not imported again', async () => {
    const { input } = await importQtiPackage(zip);
    expect(input?.passages).toEqual(test.passages);
    expect(input?.questions?.map((q) => q.passageId ?? null)).toEqual(['river', 'river', 'poem', null]);
    const unused = exportQti3({ testId: 'tst_u', title: 't', durationMinutes: 5, questions: checkTestInput(test).questions.slice(3), passages: test.passages });
    expect((await importQtiPackage(unused)).input?.passages).toBeUndefined();
  });

  it('a Markdown test’s passage goes out as XHTML and comes back as the same Markdown', async () => {
    const md = { id: 'river', title: 'The flood', text: 'The river **rose** by $x^2$ metres.\n\n- first\n- second' };
    const questions = checkTestInput({ ...test, contentFormat: 'markdown', passages: [md], questions: test.questions!.slice(0, 2) }).questions;
    const out = exportQti3({ testId: 'tst_m', title: 't', durationMinutes: 5, contentFormat: 'markdown', questions, passages: [md] });
    const stimulus = new TextDecoder().decode(unzipSync(out)['passages/river.xml']);
    expect(stimulus).toContain('<strong>rose</strong>');
    expect(stimulus).toContain('<math');
    const { input } = await importQtiPackage(out);
    expect(input?.contentFormat).toBe('markdown');
    expect(input?.passages).toEqual([md]);
  });
});
