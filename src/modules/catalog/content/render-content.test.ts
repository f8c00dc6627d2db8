import { describe, expect, it } from 'vitest';
import { escapeHtml } from '../../../platform/web/html.js';
import { createContentCache } from './content-cache.js';
import { checkContent, contentAssetIds, contentText, renderContent } from './render-content.js';

const assetUrl = (id: string) => `/files/${id}`;
const md = (source: string, inline = false) => renderContent(source, 'markdown', { assetUrl, inline }).value;

describe('renderContent: plain', () => {
  it('is the escaped text, line breaks kept, as the pages printed prompts before', () => {
    const source = 'Is 2 < 3 & "yes"?\nSecond line with $x$ and *stars*';
    expect(renderContent(source, 'plain', { assetUrl }).value).toBe(escapeHtml(source));
  });
});

describe('renderContent: markdown', () => {
  it('renders inline math as a MathML element', () => {
    const out = md('Area: $\\pi r^2$.');
    expect(out).toMatch(/^<p>Area: <math dir="ltr">.*<mi>π<\/mi>.*<\/math>\.<\/p>/);
    expect(out).not.toContain('display="block"');
    expect(out).toContain('<annotation encoding="application/x-tex">\\pi r^2</annotation>');
  });

  it('renders display math, in a paragraph or as a block, with display="block"', () => {
    expect(md('$$\\frac{a}{b}$$')).toMatch(/^<div class="math-block"><math display="block"[^>]*>.*<mfrac>/);
    expect(md('$$x$$')).not.toContain('style=');
    const block = md('Before\n\n$$\n\\sum_i x_i\n$$\n\nAfter');
    expect(block).toMatch(/<p>Before<\/p>\n<div class="math-block"><math display="block"/);
    expect(block).toContain('<p>After</p>');
    expect(md('Then $$x^2$$ inline')).toMatch(/<p>Then <math display="block"/);
  });

  it('shows invalid LaTeX as its source in a code element marked as a formula that could not be shown, never throwing', () => {
    const out = md('Bad $\\frac{1$ and $\\nosuchcommand$ then $x$');
    expect(out).toContain('<code class="math-error" title="This formula could not be shown">$\\frac{1$</code>');
    expect(out).toContain('<code class="math-error" title="This formula could not be shown">$\\nosuchcommand$</code>');
    expect(out).toContain('<math dir="ltr"><semantics><mi>x</mi>');
  });

  it('refuses formulas that reach outside (\\href) without throwing', () => {
    expect(md('$\\href{javascript:alert(1)}{x}$')).toContain('class="math-error"');
  });

  it('shows raw HTML as text', () => {
    const out = md('<script>alert(1)</script>\n\n<img src=x onerror=alert(1)> and <b>bold</b>');
    expect(out).not.toMatch(/<script|<img|<b>/);
    expect(out).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(out).toContain('&lt;img src=x onerror=alert(1)&gt;');
  });

  it('links only to https: javascript:, http: and data: links are their text', () => {
    const out = md('[a](javascript:alert(1)) [b](http://example.com) [c](data:text/html,hi) [d](https://example.com/x) <javascript:alert(2)>');
    expect(out).toBe(
      '<p>a b c <a href="https://example.com/x" target="_blank" rel="noopener noreferrer">d</a> javascript:alert(2)</p>\n',
    );
  });

  it('shows an image of an asset with its alt text, and no image without alt or from elsewhere', () => {
    expect(md('![A right triangle](asset:ast_abc123)')).toBe('<p><img src="/files/ast_abc123" alt="A right triangle"></p>\n');
    expect(md('![](asset:ast_abc123)')).toBe('<p></p>\n');
    expect(md('![Logo](https://example.com/logo.png)')).toBe('<p>Logo</p>\n');
  });

  it('renders tables, code, lists and emphasis', () => {
    expect(md('| x | x² |\n|---|---|\n| 2 | $4$ |')).toMatch(/<table>\n<thead>\n<tr>\n<th>x<\/th>[\s\S]*<td><math dir="ltr">/);
    expect(md('```js\nif (a < b) {}\n```')).toBe('<pre><code class="language-js">if (a &lt; b) {}\n</code></pre>\n');
    expect(md('Use `$x$` here')).toBe('<p>Use <code>$x$</code> here</p>\n');
    expect(md('- *one*\n- **two**')).toBe('<ul>\n<li><em>one</em></li>\n<li><strong>two</strong></li>\n</ul>\n');
  });

  it('leaves fill-in-the-blank placeholders as they are, for the page to put its inputs there', () => {
    expect(md('The **capital** is {{b1}}, and {{ b2 }}.')).toBe('<p>The <strong>capital</strong> is {{b1}}, and {{ b2 }}.</p>\n');
  });

  it('inline mode gives phrasing content only (for labels)', () => {
    expect(md('**B** is $b$', true)).toMatch(/^<strong>B<\/strong> is <math dir="ltr">.*<\/math>$/);
  });
});

describe('dollar signs', () => {
  it('keeps prices in prose as text (opening $ before a space or closing $ before a digit is no formula)', () => {
    expect(md('It costs $5 and $10.')).toBe('<p>It costs $5 and $10.</p>\n');
    expect(md('Between $ 5 and 6 $ here')).toBe('<p>Between $ 5 and 6 $ here</p>\n');
    expect(md('A $x$5 bill')).toBe('<p>A $x$5 bill</p>\n');
  });

  it('takes \\$ as a literal dollar, also inside a formula', () => {
    expect(md('Pay \\$x$ now')).toBe('<p>Pay $x$ now</p>\n');
    expect(md('$a\\$b$')).toContain('<math dir="ltr">');
  });
});

describe('checkContent', () => {
  it('finds nothing wrong with plain text or good Markdown', () => {
    expect(checkContent('$\\frac{1$ ![](x) [a](javascript:x)', 'plain')).toEqual([]);
    expect(checkContent('Area $\\pi r^2$\n\n![Circle](asset:ast_1) [docs](https://example.com)', 'markdown')).toEqual([]);
  });

  it('reports every problem with its line, column and the parser message', () => {
    const source = 'Intro\n\nBad $\\frac{1$ and [l](http://x.test)\n![](asset:ast_1) ![Logo](logo.png)\n\n$$\\nosuch$$';
    expect(checkContent(source, 'markdown')).toEqual([
      { line: 3, column: 5, message: "formula $\\frac{1$ cannot be shown: Unexpected end of input in a macro argument, expected '}'" },
      { line: 3, column: 23, message: 'link "http://x.test" is not allowed: links must start with https://' },
      { line: 4, column: 1, message: 'image has no alt text: describe it between the brackets, ![description](asset:ast_…)' },
      { line: 4, column: 18, message: 'image "logo.png" must be an uploaded asset, written ![description](asset:ast_…)' },
      { line: 6, column: 1, message: 'formula $$\\nosuch$$ cannot be shown: Unsupported function name: \\nosuch' },
    ]);
  });

  it('reports javascript: links', () => {
    expect(checkContent('[x](javascript:alert(1))', 'markdown')).toEqual([
      { line: 1, column: 5, message: 'link "javascript:alert(1)" is not allowed: links must start with https://' },
    ]);
  });
});

describe('contentAssetIds and contentText', () => {
  it('lists the assets the images name, each once', () => {
    expect(contentAssetIds('![a](asset:ast_1) ![b](asset:ast_2)\n\n![a again](asset:ast_1) ![c](https://x)', 'markdown')).toEqual(['ast_1', 'ast_2']);
    expect(contentAssetIds('![a](asset:ast_1)', 'plain')).toEqual([]);
  });

  it('gives words, formulas as TeX and images as their alt text', () => {
    expect(contentText('**Hi** $x^2$, see ![a graph](asset:ast_z)', 'markdown')).toBe('Hi x^2, see a graph');
    expect(contentText('**raw**', 'plain')).toBe('**raw**');
  });
});

describe('content cache', () => {
  it('renders a field once per version and evicts the least recently used version', () => {
    const cache = createContentCache({ assetUrl, maxVersions: 2 });
    const v1 = { testVersionId: 'tv_1', contentFormat: 'markdown' as const };
    const first = cache.render(v1, 'q1.prompt', '$x$');
    // Versions are immutable: the same field of the same version is the cached rendering; another text
    // (a parametrised question's, with a candidate's values) is rendered as it is, the cached one kept.
    expect(cache.render(v1, 'q1.prompt', '$x$')).toBe(first);
    expect(cache.render(v1, 'q1.prompt', 'changed').value).toBe('<p>changed</p>\n');
    expect(cache.render(v1, 'q1.prompt', '$x$', { inline: true }).value).toMatch(/^<math dir="ltr">/);
    cache.render({ testVersionId: 'tv_2', contentFormat: 'plain' }, 'q1.prompt', 'a');
    cache.render(v1, 'q1.prompt', '$x$');
    cache.render({ testVersionId: 'tv_3', contentFormat: 'plain' }, 'q1.prompt', 'a');
    expect(cache.size).toBe(2);
    expect(cache.render(v1, 'q1.prompt', '$x$')).toBe(first);
    expect(cache.render({ testVersionId: 'tv_2', contentFormat: 'plain' }, 'q1.prompt', 'new').value).toBe('new');
  });
});

describe('bounds on formulas (math-limits.ts)', () => {
  const a = 'a'.repeat(105);
  /** The review's expansion bomb: 105 a's, ×40, ×20 — 84,000 letters from a 250-character formula. */
  const bomb = `$\\def\\a{${a}}\\def\\b{${'\\a'.repeat(40)}}${'\\b'.repeat(20)}$`;

  it('refuses every macro definition, fast, naming the command', () => {
    const t0 = performance.now();
    const problems = checkContent(`${bomb} ${bomb} ${bomb} ${bomb}`, 'markdown');
    expect(performance.now() - t0).toBeLessThan(100);
    expect(problems).toHaveLength(4);
    expect(problems[0]!.message).toMatch(/^formula \$\\def\\a\{a+…\$ cannot be shown: \\def defines a macro, and formulas may not define macros$/);
    for (const def of ['\\newcommand\\x{1}', '\\renewcommand\\sin{1}', '\\let\\x=y', '\\gdef\\x{1}', '\\edef\\x{1}', '\\global\\def\\x{1}', '\\providecommand\\x{1}']) {
      expect(checkContent(`$${def}$`, 'markdown'), def).toHaveLength(1);
    }
  });

  it('renders a stored bomb as its source in a code element, without expanding it', () => {
    const t0 = performance.now();
    const out = md(`${bomb} ${bomb}`);
    expect(performance.now() - t0).toBeLessThan(100);
    expect(out.length).toBeLessThan(2_000);
    expect(out).toContain('<code class="math-error" title="This formula could not be shown">$\\def\\a{aaa');
  });

  it('refuses a formula longer than 1000 characters, and more than 100 formulas in one text (once)', () => {
    expect(checkContent(`$${'x+'.repeat(500)}y$`, 'markdown')[0]!.message).toContain('it is 1001 characters long; a formula holds at most 1000');
    const many = checkContent(Array.from({ length: 102 }, (_, i) => `$x_{${i}}$`).join(' '), 'markdown');
    expect(many.map((p) => p.message.replace(/^.*cannot be shown: /, ''))).toEqual(['a text holds at most 100 formulas']);
    expect(md(Array.from({ length: 101 }, (_, i) => `$x_{${i}}$`).join(' '))).toContain('<code class="math-error" title="This formula could not be shown">$x_{100}$</code>');
  });

  it("refuses MathML past 32 KB per formula and 64 KB per text, and stops rendering a text's formulas there", () => {
    const logos = `$${'\\LaTeX '.repeat(40).trim()}$`;
    const problems = checkContent(`${logos} ${logos} ${logos} ${logos} ${logos} ${logos}`, 'markdown');
    expect(problems.map((p) => p.message.replace(/^.*cannot be shown: /, ''))).toEqual(["a text's formulas together render to at most 64 KB of MathML"]);
    expect(checkContent(`$${'\\LaTeX '.repeat(140).trim()}$`, 'markdown')[0]!.message).toMatch(/it renders to \d+ KB of MathML; a formula renders to at most 32 KB$/);
    const out = md(`${logos} ${logos} ${logos} ${logos} ${logos} ${logos}`);
    expect(out.match(/<math dir="ltr">/g)).toHaveLength(2);
    expect(out).toContain('class="math-error"');
  });

  it("shares the test's budget between texts: past it, the text where it ran out is named once and the rest render as source", () => {
    const budget = { chars: 30, bytes: 1024 * 1024 };
    expect(checkContent('$x+y+z$ $a+b+c$', 'markdown', budget)).toEqual([]);
    expect(checkContent('$x+y+z+w+v+u+t+s+r+q+p$', 'markdown', budget)[0]!.message).toContain("the test's formulas together are longer than 100000 characters");
    expect(checkContent('$x$', 'markdown', budget)).toEqual([]);
    expect(renderContent('$x$', 'markdown', { assetUrl, budget }).value).toContain('class="math-error"');
  });

  it('refuses sizes beyond 10em either way (\\kern, \\hspace, \\rule, \\raisebox, \\mkern, in any unit), and renders them clamped', () => {
    for (const tex of ['x\\kern-500em y', 'x\\hspace{-30em}y', 'x\\hspace{300cm}y', '\\rule{50em}{1em}', '\\rule[-500em]{1em}{1em}', '\\raisebox{-50em}{x}', 'x\\mkern-9000mu y', 'x\\kern-5%\n0em y', 'x\\kern 2000pt y', 'x\\kern-15in y']) {
      expect(checkContent(`$${tex}$`, 'markdown')[0]?.message, tex).toMatch(/cannot be shown: the size [-+]?[\d.]+(em|pt|cm|in) is larger than 10em \(or the same in other units\) either way$/);
    }
    expect(checkContent('$x\\kern-10em y\\hspace{3cm}\\rule{10em}{1em}\\Huge z$', 'markdown')).toEqual([]);
    const out = md('$x\\kern-500em y$ $\\rule[-500em]{1em}{1em}$ $x\\hspace{300cm}y$');
    expect(out).not.toMatch(/="[^"]*(500em|300cm)/);
    expect(out).toContain('margin-left:-10em;');
    expect(out).toContain('voffset="-10em"');
    expect(out).toContain('width="3.5277777777777777cm"');
    // The TeX annotation keeps what the author wrote.
    expect(out).toContain('<annotation encoding="application/x-tex">x\\kern-500em y</annotation>');
  });

  it('keeps trust off: \\href, \\url, \\includegraphics, \\class and HTML extensions are refused', () => {
    for (const tex of ['\\href{https://a.test}{x}', '\\url{https://a.test}', '\\includegraphics{a.png}', '\\class{a}{x}', '\\htmlStyle{color:red}{x}', '\\htmlId{a}{x}']) {
      expect(checkContent(`$${tex}$`, 'markdown'), tex).toHaveLength(1);
    }
  });
});
