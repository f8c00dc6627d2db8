import { XMLValidator } from 'fast-xml-parser';
import { unzipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { itemsPackage } from '../../../../test/helpers/qti.js';
import { checkTestInput } from '../authoring.js';
import { renderContent } from '../content/render-content.js';
import type { TestInput } from '../schemas.js';
import { MATHML_NS, markdownToXhtml, markdownToXhtmlInline } from './markdown-xhtml.js';
import { sectionsWithQuestions } from '../sections.js';
import { exportQti3, type ExportableTest } from './qti-export.js';
import { importQtiPackage } from './qti-package.js';
import { toMarkdown } from './xhtml-markdown.js';
import { parseXml } from './xml.js';

const wellFormed = (xhtml: string) => XMLValidator.validate(`<r>${xhtml}</r>`);
const read = (xhtml: string) => toMarkdown(parseXml(`<div>${xhtml}</div>`, 'test.xml'));

describe('Markdown to XHTML (export)', () => {
  it('writes formatting as well-formed XHTML: void elements closed, text escaped, formulas as MathML with their TeX', () => {
    const out = markdownToXhtml('Pick **B** & *not* <A>, `a<b`.\\\nThen $x^2$.\n\n- one\n- two\n\n| a | b |\n|:-|-:|\n| 1 | 2 |\n\n---');
    expect(wellFormed(out)).toBe(true);
    expect(out).toContain('<p>Pick <strong>B</strong> &amp; <em>not</em> &lt;A&gt;, <code>a&lt;b</code>.<br />');
    expect(out).toContain(`<math xmlns="${MATHML_NS}"><semantics><msup><mi>x</mi>`);
    expect(out).toContain('<annotation encoding="application/x-tex">x^2</annotation></semantics></math>');
    expect(out).toContain('<ul>\n<li>one</li>\n<li>two</li>\n</ul>');
    expect(out).toContain('<th>a</th>');
    expect(out).not.toContain('style=');
    expect(out).toContain('<hr />');
    expect(out).not.toMatch(/\$|\*\*/);
  });

  it('keeps https links only, strikethrough as a class, images as references for the exporter, and MathML sanitised', () => {
    const out = markdownToXhtml('[ok](https://e.example/?a=1&b=2) [no](javascript:alert(1)) ~~old~~ ![A cat](asset:ast_1) <math><mi onclick="x">y</mi></math>');
    expect(wellFormed(out)).toBe(true);
    expect(out).toBe(`<p><a href="https://e.example/?a=1&amp;b=2">ok</a> no <span class="assay-strikethrough">old</span> ![A cat](asset:ast_1) <math xmlns="${MATHML_NS}"><mi>y</mi></math></p>`);
  });

  it('an option of one paragraph is written without its <p>', () => {
    expect(markdownToXhtmlInline('Just **one**')).toBe('Just <strong>one</strong>');
    expect(markdownToXhtmlInline('One\n\nTwo')).toBe('<p>One</p>\n<p>Two</p>');
  });
});

describe('XHTML and MathML to Markdown (import)', () => {
  it('reads formatting as Markdown, escaping text that Markdown would read as markup', () => {
    expect(read('<p>A <b>bold</b> and <i>slanted</i> <strong> word </strong>; 2*3 costs $5 [x] &lt;b&gt;</p>')).toBe('A **bold** and *slanted* **word** ; 2\\*3 costs \\$5 \\[x\\] \\<b>');
    expect(read('<ol start="3"><li>three</li><li>four <ul><li>nested</li></ul></li></ol>')).toBe('3. three\n4. four\n   - nested');
    expect(read('<pre><code class="language-js">if (a &lt; b) {\n  go();\n}\n</code></pre>')).toBe('```js\nif (a < b) {\n  go();\n}\n```');
    expect(read('<p>H<sub>2</sub>O and x<sup>th</sup></p>')).toBe('H$_{2}$O and x$^{\\text{th}}$');
    expect(read('<table><tr><th>a</th><th>b|c</th></tr><tr><td>1</td><td><em>2</em></td></tr></table>')).toBe('| a | b\\|c |\n| --- | --- |\n| 1 | *2* |');
    expect(read('<p><a href="https://e.example">site</a> <a href="javascript:alert(1)">bad</a></p><h2>Title</h2><blockquote><p>said</p></blockquote>')).toBe(
      '[site](https://e.example) bad\n\n## Title\n\n> said',
    );
    expect(read('<p>- not a list</p>')).toBe('\\- not a list');
  });

  it('MathML with a TeX annotation becomes $…$ ($$…$$ for display); without one it stays MathML, sanitised', () => {
    const ann = (display: string) =>
      `<math xmlns="${MATHML_NS}"${display}><semantics><mi>x</mi><annotation encoding="application/x-tex">\\frac{1}{2}</annotation></semantics></math>`;
    expect(read(`<p>Half: ${ann('')}</p>`)).toBe('Half: $\\frac{1}{2}$');
    expect(read(`<div>${ann(' display="block"')}</div>`)).toBe('$$\\frac{1}{2}$$');
    expect(read('<p><math><msup><mi>c</mi><mn>2</mn></msup></math></p>')).toBe('<math><msup><mi>c</mi><mn>2</mn></msup></math>');
    // A TeX annotation Temml cannot read is not trusted: the MathML is kept.
    expect(read('<p><math><semantics><mi>x</mi><annotation encoding="application/x-tex">\\nosuch{</annotation></semantics></math></p>')).toBe(
      '<math><semantics><mi>x</mi><annotation encoding="application/x-tex">\\nosuch{</annotation></semantics></math>',
    );
  });
});

const files = (zip: Uint8Array) => Object.fromEntries(Object.entries(unzipSync(zip)).map(([k, v]) => [k, new TextDecoder().decode(v)]));

/** A Markdown test with formulas, formatting in every kind of text, and no image. */
const MARKDOWN_TEST: TestInput = {
  title: 'Formulas',
  description: '',
  durationMinutes: 30,
  proctoring: 'none',
  marking: 'hybrid',
  resultVisibility: 'after_review',
  contentFormat: 'markdown',
  sections: [
    {
      id: 'one',
      title: 'One',
      instructions: 'Read **each** question.\n\n- slowly\n- twice',
      shuffleQuestions: false,
      questions: [
        {
          id: 'sc',
          type: 'single_choice',
          prompt: 'What is $\\sqrt{16}$? Use **mental** arithmetic, see `sqrt`.',
          points: 1,
          options: [
            { id: 'a', text: '$4$' },
            { id: 'b', text: '*eight*' },
          ],
          correctOptionId: 'a',
        },
        { id: 'nu', type: 'numeric', prompt: 'Solve $$x^2 = 9$$ for positive $x$.\n\n1. square root\n2. check', points: 2, answer: 3 },
        { id: 'es', type: 'essay', prompt: 'Explain $E = mc^2$.', points: 4, rubric: 'Mentions **mass** and $c$.' },
        { id: 'or', type: 'ordering', prompt: 'Order', points: 1, items: [{ id: 'i1', text: '$1$' }, { id: 'i2', text: '**two**' }] },
        {
          id: 'ma',
          type: 'matching',
          prompt: 'Match',
          points: 2,
          stems: [{ id: 's1', text: '$\\pi$' }, { id: 's2', text: '*e*' }],
          choices: [{ id: 'c1', text: '3.14' }, { id: 'c2', text: '2.72' }],
          correct: { s1: 'c1', s2: 'c2' },
        },
        { id: 'fb', type: 'fill_blanks', prompt: 'Fill **in**.', points: 1, text: 'The square of $3$ is {{n}}.', blanks: [{ id: 'n', kind: 'text', acceptedAnswers: ['9'] }] },
        { id: 'st', type: 'short_text', prompt: 'Plain words only', points: 1, acceptedAnswers: ['yes'] },
      ],
    },
  ],
};

function stored(input: TestInput): ExportableTest {
  const content = checkTestInput(input);
  return { testId: 'tst_fmt', title: input.title, durationMinutes: input.durationMinutes, contentFormat: input.contentFormat, sections: sectionsWithQuestions(content.sections!, content.questions) };
}

describe('QTI export of a Markdown test', () => {
  const out = files(exportQti3(stored(MARKDOWN_TEST)));

  it('its items hold XHTML and MathML, never raw $…$ or **…**, and are well-formed', () => {
    for (const [name, xml] of Object.entries(out)) expect([name, XMLValidator.validate(xml)]).toEqual([name, true]);
    expect(out['items/sc.xml']).toContain('<strong>mental</strong>');
    expect(out['items/sc.xml']).toContain(`<math xmlns="${MATHML_NS}">`);
    expect(out['items/sc.xml']).toContain('<annotation encoding="application/x-tex">\\sqrt{16}</annotation>');
    expect(out['items/sc.xml']).toContain('<qti-item-body class="assay-markdown">');
    expect(out['assessment-test.xml']).toContain('<strong>each</strong>');
    for (const [name, xml] of Object.entries(out)) {
      expect(xml, name).not.toContain('$');
      expect(xml, name).not.toContain('**');
    }
  });

  it('a plain test exports as before: escaped paragraphs, no class', () => {
    const plain = files(exportQti3(stored({ ...MARKDOWN_TEST, contentFormat: 'plain' })));
    expect(plain['items/sc.xml']).toContain('<p>What is $\\sqrt{16}$? Use **mental** arithmetic, see `sqrt`.</p>');
    expect(plain['items/sc.xml']).toContain('<qti-item-body>');
  });

  it('round trip: importing the export gives an equal Markdown test (format, Markdown texts, formulas as TeX)', async () => {
    const { input, report } = await importQtiPackage(exportQti3(stored(MARKDOWN_TEST)));
    expect(report.skipped).toEqual([]);
    expect(input!.contentFormat).toBe('markdown');
    const a = checkTestInput(input!);
    const b = checkTestInput(MARKDOWN_TEST);
    const opts = (q: object) => ('options' in q ? { shuffleOptions: false, ...q } : q);
    expect({ sections: a.sections, questions: a.questions.map(opts) }).toEqual({ sections: b.sections, questions: b.questions.map(opts) });
  });

  it('a Markdown test without any formatting still comes back as Markdown (the item body carries the mark)', async () => {
    const bare: TestInput = { ...MARKDOWN_TEST, sections: undefined, questions: [{ id: 'q', type: 'short_text', prompt: 'Plain words', points: 1, acceptedAnswers: ['x'] }] };
    const { input } = await importQtiPackage(exportQti3({ testId: 'tst_bare', title: 't', durationMinutes: 5, contentFormat: 'markdown', questions: checkTestInput(bare).questions }));
    expect(input!.contentFormat).toBe('markdown');
    const plain = await importQtiPackage(exportQti3({ testId: 'tst_bare', title: 't', durationMinutes: 5, questions: checkTestInput(bare).questions }));
    expect(plain.input!.contentFormat).toBeUndefined();
  });
});

describe('importing MathML', () => {
  it('MathML without TeX (E = mc² with msup) is kept and shown on the student page as an msup, not "E = m c 2"', async () => {
    const { input } = await importQtiPackage(itemsPackage(['math-msup.xml'], '3.0'));
    expect(input!.contentFormat).toBe('markdown');
    const prompt = input!.questions![0]!.prompt;
    expect(prompt).toBe('Who wrote <math><mi>E</mi><mo>=</mo><mi>m</mi><msup><mi>c</mi><mn>2</mn></msup></math>?');
    const html = renderContent(prompt, 'markdown', { assetUrl: (id) => `/a/content-assets/${id}` }).value;
    expect(html).toContain('<msup><mi>c</mi><mn>2</mn></msup>');
    expect(html).not.toContain('E = m c 2');
  });

  it('MathML with a TeX annotation becomes $…$, and formatting becomes Markdown', async () => {
    const { input } = await importQtiPackage(itemsPackage(['math-tex.xml'], '3.0'));
    const q = input!.questions![0]!;
    expect(q.prompt).toBe('In $E = mc^2$, what is **squared**? Water is H$_{2}$O.\n\n- one\n- two `x*y`');
    expect(q.type === 'single_choice' && q.options[1]!.text).toBe('The speed of light, *c*');
    expect(renderContent(q.prompt, 'markdown', { assetUrl: (id) => id }).value).toMatch(/<msup><mi>c<\/mi><mn[^>]*>2<\/mn><\/msup>/);
  });

  it('hostile MathML is sanitised on import, the removals noted; MathML nested too deep skips its item with the reason', async () => {
    const { input, report } = await importQtiPackage(itemsPackage(['math-hostile.xml'], '3.0'));
    const prompt = input!.questions![0]!.prompt;
    expect(prompt).toBe('Solve <math><mi>x</mi><mtext>ok</mtext><semantics><mn>1</mn></semantics></math>.');
    expect(report.notes).toEqual([expect.stringMatching(/^items\/math-hostile\.xml: MathML: href="…", onclick="…", style="…", <script>.*removed/)]);
    const deep = itemsPackage(['math-msup.xml'], '3.0', {});
    const files2 = unzipSync(deep);
    const item = new TextDecoder().decode(files2['items/math-msup.xml']!).replace('<m:mi>E</m:mi>', `${'<m:mrow>'.repeat(40)}<m:mi>E</m:mi>${'</m:mrow>'.repeat(40)}`);
    const { report: r2 } = await importQtiPackage(itemsPackage(['math-msup.xml'], '3.0', { 'items/math-msup.xml': item }));
    expect(r2.skipped).toEqual([
      { file: 'items/math-msup.xml', identifier: 'energy-1', interaction: 'choice-interaction', reason: expect.stringMatching(/^MathML cannot be kept: its elements are nested \d+ deep; MathML may nest at most 32 deep$/) },
    ]);
  });
});
