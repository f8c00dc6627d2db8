import MarkdownIt from 'markdown-it';
import type { Token } from 'markdown-it';
import temml from 'temml';
import { MATH_LIMITS } from '../content/math-limits.js';
import { mathSyntax } from '../content/math-syntax.js';
import { sanitizeMathml } from '../content/mathml.js';
import { esc } from './xml.js';

/**
 * A Markdown text (docs/content.md) as XHTML for a QTI 3.0 item body: the
 * same markdown-it parse as the pages' renderer, written as well-formed XML
 * in QTI's content model (p, strong, em, code, pre, lists, tables, headings,
 * blockquote, a, br, hr; void elements self-closed, text escaped). Formulas
 * are presentation MathML in the MathML namespace, each with its TeX source
 * as `<annotation encoding="application/x-tex">`, which the importer reads
 * back as `$…$` (xhtml-markdown.ts). Differences from the pages: links carry
 * no target; strikethrough, which QTI's content model lacks, is
 * `<span class="assay-strikethrough">`; table alignment (a `style`) is left
 * out; an image is left as `![alt](asset:…)` for the exporter to place.
 */
export const MATHML_NS = 'http://www.w3.org/1998/Math/MathML';
/**
 * The class on a Markdown test's item bodies: tells the importer that the
 * texts were Markdown even when an item has no formatting to show it
 * (`class` is an attribute of every QTI body element, so the item stays
 * schema-valid; other players ignore it).
 */
export const MARKDOWN_CLASS = 'assay-markdown';
/** The class that stands for Markdown's strikethrough (read back by the importer). */
export const STRIKE_CLASS = 'assay-strikethrough';

const md = new MarkdownIt('default', { html: false, xhtmlOut: true, linkify: false, typographer: false });
md.validateLink = () => true;
md.use(mathSyntax);

const HTTPS = /^https:\/\/[^\s]/i;
const ASSET = /^asset:(ast_[0-9A-Za-z]{1,64})$/;
const withNs = (mathml: string) => mathml.replace(/^<math(?=[\s>])/, `<math xmlns="${MATHML_NS}"`);

/** A formula as MathML with its TeX annotation; one Temml cannot read (never saved: authoring refuses it) as code. */
function formula(tex: string, displayMode: boolean): string {
  try {
    const mathml = temml.renderToString(tex, { throwOnError: true, trust: false, annotate: true, maxExpand: MATH_LIMITS.maxExpand, displayMode });
    return withNs(mathml.replace(' style="display:block math;"', ''));
  } catch {
    return `<code>${esc(tex)}</code>`;
  }
}

const rules = md.renderer.rules;
rules.math_inline = (tokens, i) => formula(tokens[i]!.content, false);
rules.math_display = (tokens, i) => formula(tokens[i]!.content, true);
rules.math_block = (tokens, i) => `<div>${formula(tokens[i]!.content, true)}</div>\n`;
rules.mathml = (tokens, i) => {
  const out = sanitizeMathml(tokens[i]!.content);
  return out.ok ? withNs(out.mathml) : `<code>${esc(tokens[i]!.content)}</code>`;
};
rules.s_open = () => `<span class="${STRIKE_CLASS}">`;
rules.s_close = () => '</span>';
const links: boolean[] = [];
rules.link_open = (tokens, i) => {
  const href = String(tokens[i]!.attrGet('href') ?? '');
  const ok = HTTPS.test(href);
  links.push(ok);
  return ok ? `<a href="${esc(href)}">` : '';
};
rules.link_close = () => (links.pop() ? '</a>' : '');
rules.image = (tokens, i, options, env, self) => {
  const token = tokens[i]!;
  const alt = self.renderInlineAsText(token.children ?? [], options, env).trim();
  const asset = ASSET.exec(String(token.attrGet('src') ?? ''));
  // The exporter turns the reference into <img> with the package's path (or its alt text when it has no bytes).
  return asset && alt ? `![${esc(alt.replace(/[[\]\n]/g, ' '))}](asset:${asset[1]})` : esc(alt);
};
const noStyle = (tokens: Token[], i: number) => {
  tokens[i]!.attrs = (tokens[i]!.attrs ?? []).filter(([name]) => name !== 'style');
};
for (const name of ['th_open', 'td_open'] as const) {
  rules[name] = (tokens, i, options, _env, self) => {
    noStyle(tokens, i);
    return self.renderToken(tokens, i, options);
  };
}

/** The text as XHTML block content (paragraphs, lists, …). */
export function markdownToXhtml(source: string): string {
  links.length = 0;
  return md.render(source).trim();
}

/** The text as XHTML for an element that holds it on its own (a choice, a stem): a single paragraph loses its `<p>`. */
export function markdownToXhtmlInline(source: string): string {
  const html = markdownToXhtml(source);
  const one = /^<p>([\s\S]*)<\/p>$/.exec(html);
  return one && !one[1]!.includes('<p>') ? one[1]! : html;
}
