import { describe, expect, it } from 'vitest';
import { MATH_LIMITS } from './math-limits.js';
import { mathmlText, sanitizeMathml } from './mathml.js';
import { checkContent, contentText, renderContent } from './render-content.js';

const assetUrl = (id: string) => `/files/${id}`;
const md = (source: string) => renderContent(source, 'markdown', { assetUrl }).value;
const EMC2 = '<math><mi>E</mi><mo>=</mo><mi>m</mi><msup><mi>c</mi><mn>2</mn></msup></math>';

describe('MathML in Markdown content', () => {
  it('a <math> element in a Markdown text is shown as MathML (an msup, not "E = m c 2"), the rest still Markdown', () => {
    const out = md(`Energy: ${EMC2} is **famous**`);
    expect(out).toBe(`<p>Energy: ${EMC2.replace('<math>', '<math dir="ltr">')} is <strong>famous</strong></p>\n`);
    expect(contentText(`Energy: ${EMC2}`, 'markdown')).toBe('Energy: E = m c 2');
  });

  it('other raw HTML is still text, and a plain test shows <math> as text', () => {
    expect(md('<b>x</b>')).toBe('<p>&lt;b&gt;x&lt;/b&gt;</p>\n');
    expect(renderContent(EMC2, 'plain', { assetUrl }).value).toContain('&lt;math&gt;');
  });

  it('hostile MathML is sanitised at render: no script, href, javascript:, style, event handler, annotation-xml or mglyph reaches the page', () => {
    const hostile =
      '<math><mi href="javascript:alert(1)" onclick="alert(2)" style="color:red">x</mi><script>alert(3)</script>' +
      '<mtext mathcolor="url(https://evil.example/)">t</mtext><semantics><mn>1</mn><annotation-xml encoding="text/html"><img src="x" onerror="alert(4)"/></annotation-xml>' +
      '<annotation encoding="text/html">&lt;b&gt;</annotation></semantics><mglyph src="https://evil.example/g.png"/></math>';
    const out = md(hostile);
    expect(out).toBe('<p><math dir="ltr"><mi>x</mi><mtext>t</mtext><semantics><mn>1</mn></semantics></math></p>\n');
    for (const bad of ['script', 'href', 'javascript', 'style', 'onclick', 'onerror', 'annotation-xml', 'mglyph', 'url(', 'alert']) expect(out).not.toContain(bad);
  });

  it('an author is told what MathML may not hold, at its line and column', () => {
    expect(checkContent(`Line one\nSee <math><mi onclick="x">a</mi><script>alert(1)</script></math>`, 'markdown')).toEqual([
      { line: 2, column: 5, message: expect.stringMatching(/MathML <math>.* cannot be shown as written: it holds onclick="…", <script>, which MathML in a text may not hold/) },
    ]);
    expect(checkContent(`See ${EMC2}`, 'markdown')).toEqual([]);
  });

  it('deep nesting and oversized MathML are refused with the bound, shown as their source, never rendered', () => {
    const deep = `<math>${'<mrow>'.repeat(40)}<mi>x</mi>${'</mrow>'.repeat(40)}</math>`;
    expect(sanitizeMathml(deep)).toEqual({ ok: false, bound: true, reason: `its elements are nested 42 deep; MathML may nest at most ${MATH_LIMITS.mathmlDepth} deep` });
    expect(md(deep)).toMatch(/^<p><code class="math-error" title="This formula could not be shown">&lt;math&gt;&lt;mrow&gt;/);
    expect(checkContent(deep, 'markdown')[0]).toMatchObject({ line: 1, column: 1, bound: true, message: expect.stringContaining('nested 42 deep') });
    const long = `<math><mtext>${'a'.repeat(MATH_LIMITS.mathmlChars)}</mtext></math>`;
    expect(sanitizeMathml(long)).toMatchObject({ ok: false, bound: true, reason: expect.stringContaining(`MathML holds at most ${MATH_LIMITS.mathmlChars}`) });
  });

  it('a formula reads left to right on a right-to-left page (dir="ltr" on its <math>), unless its MathML says otherwise', () => {
    expect(md('$$x^2$$')).toMatch(/^<div class="math-block"><math display="block" class="tml-display" dir="ltr"><semantics>/);
    expect(md(EMC2)).toBe(`<p>${EMC2.replace('<math>', '<math dir="ltr">')}</p>\n`);
    // Arabic mathematical notation is written right to left: an author's own dir is kept, not doubled.
    const arabic = '<math dir="rtl"><mi>س</mi><mo>+</mo><mn>٢</mn></math>';
    expect(md(arabic)).toBe(`<p>${arabic}</p>\n`);
    // What is stored on import stays as written; the direction is the page's concern.
    expect(sanitizeMathml(EMC2)).toMatchObject({ ok: true, mathml: EMC2 });
  });

  it('MathML that is not one well-formed <math> element is refused', () => {
    expect(sanitizeMathml('<math><mi>x</mi></math><math></math>')).toMatchObject({ ok: false, reason: expect.stringContaining('not well-formed') });
    expect(sanitizeMathml('<math><mi>x</math>')).toMatchObject({ ok: false });
    expect(mathmlText('<math><semantics><mi>x</mi><annotation encoding="application/x-tex">x^2 &lt; 1</annotation></semantics></math>')).toBe('x^2 < 1');
  });
});
