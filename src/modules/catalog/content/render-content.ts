import MarkdownIt from 'markdown-it';
import type { Token } from 'markdown-it';
import temml from 'temml';
import { escapeHtml, SafeHtml } from '../../../platform/web/html.js';
import { ASSET_REF, type ContentFormat } from './content-format.js';
import { mathSyntax } from './math-syntax.js';

/**
 * The one renderer of test content (prompts, options, stems, items, section
 * instructions, rubrics) for the student page, the portal's marking pages,
 * the report and the editor's preview. See docs/content.md.
 *
 * - plain: the text escaped, exactly as the pages have always printed it
 *   (their CSS keeps the line breaks, `white-space: pre-wrap`);
 * - markdown: CommonMark with tables and strikethrough (markdown-it), raw HTML
 *   shown as text, links only to https (any other link is its text), images
 *   only `![alt](asset:ast_…)` with alt text, math `$…$` / `$$…$$` rendered
 *   here to MathML (Temml): no script on the page, and screen readers read it.
 * Rendering never throws on what an author wrote: a formula Temml cannot
 * parse is shown as its source in `<code class="math-error">`. Authors see
 * the reasons through checkContent before a version can be saved.
 */
export interface RenderOptions {
  /** The URL of an asset's bytes for the page being rendered (content-format.ts has the student's and staff's). */
  assetUrl: (assetId: string) => string;
  /** Phrasing content only (no paragraphs, lists, tables): for an option's label or a stem. */
  inline?: boolean;
}

interface RenderEnv {
  assetUrl: (assetId: string) => string;
  /** Whether each open link was rendered (a refused one leaves its text only). */
  links: boolean[];
}

const md = new MarkdownIt('default', { html: false, linkify: false, typographer: false });
// Every link and image is parsed (checkContent must see them all); the rules below decide what is rendered.
md.validateLink = () => true;
md.use(mathSyntax);

const attr = (t: Token, name: string) => String(t.attrGet(name) ?? '');
const HTTPS = /^https:\/\/[^\s]/i;

const MATH_OPTIONS = { throwOnError: true, trust: false, annotate: true, maxExpand: 1000 } as const;

/** A formula as MathML, or the error Temml gives for it. */
function mathOf(tex: string, displayMode: boolean): { html: string } | { error: string; position: number } {
  try {
    // `display="block"` already makes a block formula (MathML Core); the inline style Temml adds for older
    // engines would only be refused by the pages' CSP (style-src 'self'), with a console report on every page.
    return { html: temml.renderToString(tex, { ...MATH_OPTIONS, displayMode }).replace(' style="display:block math;"', '') };
  } catch (err) {
    const e = err as Error & { position?: number };
    // Temml appends the position and an underlined excerpt; the checker reports the position itself.
    const message = String(e.message ?? err).trim().replace(/ at (position \d+|end of input):[\s\S]*$/, '').replace(/^ParseError:\s*/, '');
    return { error: message || 'the formula could not be read', position: typeof e.position === 'number' ? e.position : 0 };
  }
}

function renderMath(tex: string, displayMode: boolean, delimiter: string): string {
  const out = mathOf(tex, displayMode);
  if ('html' in out) return out.html;
  return `<code class="math-error" title="This formula could not be shown">${escapeHtml(delimiter + tex + delimiter)}</code>`;
}

const rules = md.renderer.rules;
rules.math_inline = (tokens, i) => renderMath(tokens[i]!.content, false, '$');
rules.math_display = (tokens, i) => renderMath(tokens[i]!.content, true, '$$');
rules.math_block = (tokens, i) => `<div class="math-block">${renderMath(tokens[i]!.content, true, '$$')}</div>\n`;
rules.link_open = (tokens, i, options, env, self) => {
  const token = tokens[i]!;
  const ok = HTTPS.test(attr(token, 'href'));
  (env as unknown as RenderEnv).links.push(ok);
  if (!ok) return '';
  // A link must not take the student away from a running test.
  token.attrSet('target', '_blank');
  token.attrSet('rel', 'noopener noreferrer');
  return self.renderToken(tokens, i, options);
};
rules.link_close = (tokens, i, options, env, self) => ((env as unknown as RenderEnv).links.pop() ? self.renderToken(tokens, i, options) : '');
rules.image = (tokens, i, options, env, self) => {
  const token = tokens[i]!;
  const alt = self.renderInlineAsText(token.children ?? [], options, env).trim();
  const asset = ASSET_REF.exec(attr(token, 'src'));
  if (!asset || !alt) return escapeHtml(alt);
  const title = attr(token, 'title');
  return `<img src="${escapeHtml((env as unknown as RenderEnv).assetUrl(asset[1]!))}" alt="${escapeHtml(alt)}"${title ? ` title="${escapeHtml(title)}"` : ''}>`;
};

export function renderContent(source: string, format: ContentFormat, opts: RenderOptions): SafeHtml {
  if (format === 'plain') return new SafeHtml(escapeHtml(source));
  const env = { assetUrl: opts.assetUrl, links: [] as boolean[] };
  return new SafeHtml(opts.inline ? md.renderInline(source, env) : md.render(source, env));
}

/** A problem an author must fix, at a 1-based line and column of the source. */
export interface ContentProblem {
  line: number;
  column: number;
  message: string;
}

/** Every token of a parse in source order, children after their parent (an image's children are its alt text, read from the image). */
function* walk(tokens: Token[]): Generator<Token> {
  for (const t of tokens) {
    yield t;
    if (t.children && t.type !== 'image') yield* walk(t.children);
  }
}

/**
 * Every problem of a Markdown source that rendering would hide: a formula
 * Temml cannot parse (with its message), an image without alt text or not
 * naming an asset, a link that is not https. Plain text has none. Positions
 * of inline problems are found by looking for the construct's text from the
 * start of its block, so they point at the right line even in a long text.
 */
export function checkContent(source: string, format: ContentFormat): ContentProblem[] {
  if (format === 'plain') return [];
  const lineStarts = [0];
  for (let i = 0; i < source.length; i++) if (source[i] === '\n') lineStarts.push(i + 1);
  const at = (offset: number) => {
    let line = 0;
    while (line + 1 < lineStarts.length && lineStarts[line + 1]! <= offset) line++;
    return { line: line + 1, column: offset - lineStarts[line]! + 1 };
  };
  const problems: ContentProblem[] = [];
  let cursor = 0;
  /** The offset of the first of `needles` found at or after the cursor (moving the cursor past it), or the cursor. */
  const find = (...needles: string[]) => {
    for (const n of needles) {
      const i = n ? source.indexOf(n, cursor) : -1;
      if (i >= 0) {
        cursor = i + 1;
        return i;
      }
    }
    return cursor;
  };
  const add = (offset: number, message: string) => problems.push({ ...at(offset), message });
  const formula = (tex: string, display: boolean, offset: number, delimiter: string) => {
    const out = mathOf(tex, display);
    if ('error' in out) add(offset, `formula ${delimiter}${tex}${delimiter} cannot be shown: ${out.error}`);
  };

  for (const t of walk(md.parse(source, { links: [] }))) {
    if (t.map && t.block) cursor = Math.max(cursor, lineStarts[t.map[0]] ?? cursor);
    switch (t.type) {
      case 'math_block':
        formula(t.content, true, find('$$'), '$$');
        break;
      case 'math_inline':
      case 'math_display': {
        const d = t.markup;
        formula(t.content, t.type === 'math_display', find(`${d}${t.content}${d}`), d);
        break;
      }
      case 'link_open': {
        const href = attr(t, 'href');
        if (!HTTPS.test(href)) {
          const shown = decodeSafely(href);
          add(find(shown, href), `link "${shown}" is not allowed: links must start with https://`);
        }
        break;
      }
      case 'image': {
        const src = attr(t, 'src');
        const alt = (t.children ?? []).map((c) => c.content).join('').trim();
        const offset = find(`![${t.content}](`, '![');
        if (!ASSET_REF.test(src)) {
          add(offset, `image "${decodeSafely(src)}" must be an uploaded asset, written ![description](asset:ast_…)`);
        }
        if (!alt) add(offset, 'image has no alt text: describe it between the brackets, ![description](asset:ast_…)');
        break;
      }
      default:
        break;
    }
  }
  return problems;
}

function decodeSafely(url: string): string {
  try {
    return decodeURI(url);
  } catch {
    return url;
  }
}

/** The asset ids the source's images name (each once, in order of appearance). */
export function contentAssetIds(source: string, format: ContentFormat): string[] {
  if (format === 'plain') return [];
  const ids = new Set<string>();
  for (const t of walk(md.parse(source, { links: [] }))) {
    const m = t.type === 'image' ? ASSET_REF.exec(attr(t, 'src')) : null;
    if (m) ids.add(m[1]!);
  }
  return [...ids];
}

/**
 * The content as plain text, for where no markup can go (a `select`'s
 * options, an accessible name, a CSV): formulas as their TeX source, images
 * as their alt text, the words of links and emphasis.
 */
export function contentText(source: string, format: ContentFormat): string {
  if (format === 'plain') return source;
  const out: string[] = [];
  for (const t of walk(md.parse(source, { links: [] }))) {
    switch (t.type) {
      case 'text':
      case 'code_inline':
        out.push(t.content);
        break;
      case 'math_inline':
      case 'math_display':
      case 'math_block':
        out.push(t.content.trim(), t.type === 'math_block' ? '\n' : '');
        break;
      case 'code_block':
      case 'fence':
        out.push(t.content);
        break;
      case 'softbreak':
        out.push(' ');
        break;
      case 'hardbreak':
      case 'paragraph_close':
      case 'heading_close':
      case 'list_item_close':
      case 'tr_close':
        out.push('\n');
        break;
      case 'th_close':
      case 'td_close':
        out.push('\t');
        break;
      case 'image':
        out.push((t.children ?? []).map((c) => c.content).join(''));
        break;
      default:
        break;
    }
  }
  return out.join('').replace(/[ \t]+\n/g, '\n').trim();
}
