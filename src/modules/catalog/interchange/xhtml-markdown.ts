import { checkContent } from '../content/render-content.js';
import { sanitizeMathml } from '../content/mathml.js';
import { MARKDOWN_CLASS, STRIKE_CLASS } from './markdown-xhtml.js';
import { descendants, esc, type XElement, type XNode } from './xml.js';

/**
 * An item body's XHTML as Markdown (docs/content.md), for a package imported
 * as a Markdown test: strong/b, em/i, code, pre, lists, tables, headings,
 * block quotes, https links, sub/sup (as a formula's script), and MathML,
 * kept as math: with a TeX annotation Temml reads, `$…$` (`$$…$$` for
 * display math); without one, the presentation MathML itself, sanitised
 * (content/mathml.ts), which the pages show as math. Text is escaped so it
 * shows as written. markdown-xhtml.ts writes what this reads back.
 */
export interface MarkdownOptions {
  /** Elements left out (interactions). */
  skip?: (e: XElement) => boolean;
  /** Elements replaced by Markdown of the caller's (a blank's `{{id}}`, an image). */
  inline?: (e: XElement) => string | undefined;
  /** What sanitising MathML removed, for the report's notes. */
  notes?: string[];
  /** Why a formula cannot be kept (over a bound, not MathML): the item is skipped with it. */
  problems?: string[];
}

const FORMATTING = new Set([
  'strong', 'b', 'em', 'i', 'code', 'pre', 'ul', 'ol', 'sub', 'sup', 'table', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'blockquote', 'math', 's', 'del', 'strike', 'hr',
]);

/**
 * Whether a file's text can hold what hasFormatting looks for, read without
 * parsing it: a start tag of one of those elements (with or without a
 * namespace prefix, in any case), Assay's mark, or a class attribute with an
 * entity that could spell it. When this is false, hasFormatting of the parsed
 * file is false too; when it is true, only the parse can tell. It lets an
 * import decide how to read its items without keeping every parsed item
 * until the mapping (qti-package.ts).
 */
export function mayHaveFormatting(text: string): boolean {
  return text.includes(MARKDOWN_CLASS) || FORMATTING_TAG.test(text) || CLASS_WITH_ENTITY.test(text);
}
const FORMATTING_TAG = new RegExp(`[<:](?:${[...FORMATTING, 'img', 'object'].join('|')})[\\s/>]`, 'i');
const CLASS_WITH_ENTITY = /class\s*=\s*(?:"[^"]*&|'[^']*&)/i;

/** Whether an item reads as Markdown: Assay's own mark, or formatting, MathML or images (Markdown in Assay) in its body. */
export function hasFormatting(item: XElement): boolean {
  return descendants(item).some(
    (e) =>
      (e.name === 'qti-item-body' && (e.attrs['class'] ?? '').split(/\s+/).includes(MARKDOWN_CLASS)) ||
      FORMATTING.has(e.name) ||
      e.name === 'img' ||
      (e.name === 'object' && (e.attrs['type'] ?? '').startsWith('image/')),
  );
}

const BLOCK = new Set(['p', 'div', 'ul', 'ol', 'pre', 'blockquote', 'table', 'hr', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'qti-prompt', 'qti-content-body', 'section', 'article', 'figure']);
const TEX_ENCODING = /^(application\/x-tex|application\/x-latex|tex|latex)$/i;

/** Text escaped so Markdown shows it as written (emphasis, code, math, links, HTML, entities). */
export function escapeMarkdown(text: string): string {
  return text
    .replace(/[\\*`$[\]]/g, '\\$&')
    .replace(/(^|[^A-Za-z0-9])_|_(?=[^A-Za-z0-9]|$)/g, (m) => m.replace('_', '\\_'))
    .replace(/~(?=~)/g, '\\~')
    .replace(/<(?=[A-Za-z/!?])/g, '\\<')
    .replace(/&(?=#?[A-Za-z0-9]+;)/g, '\\&');
}

/** A block's first characters escaped where Markdown would read a heading, list, quote, rule or table. */
function escapeLineStart(line: string): string {
  return line
    .replace(/^(#{1,6}|[-+]|>)(?=\s|$)|^>/, '\\$&')
    .replace(/^(\d{1,9})([.)])(?=\s|$)/, '$1\\$2')
    .replace(/^(=+|-+)$/, '\\$1');
}

export function toMarkdown(el: XElement, opts: MarkdownOptions = {}): string {
  return blocks(el.children, opts).join('\n\n').trim();
}

const isBlock = (n: XNode) => typeof n !== 'string' && (BLOCK.has(n.name) || (n.name !== 'math' && descendants(n).some((d) => BLOCK.has(d.name))));

/** Children as Markdown blocks: runs of inline content become paragraphs. */
function blocks(children: XNode[], opts: MarkdownOptions): string[] {
  const out: string[] = [];
  let run: XNode[] = [];
  const flush = () => {
    const text = inline(run, opts).replace(/ {2,}/g, ' ').trim();
    if (text) out.push(text.split('\n').map((l, i) => (i === 0 ? escapeLineStart(l.trimStart()) : l.trimStart())).join('\n'));
    run = [];
  };
  for (const c of children) {
    const replaced = typeof c !== 'string' ? opts.inline?.(c) : undefined;
    if (typeof c === 'string' || replaced !== undefined || !isBlock(c)) {
      run.push(c);
      continue;
    }
    if (opts.skip?.(c)) continue;
    flush();
    const b = block(c, opts);
    if (b.trim()) out.push(b);
  }
  flush();
  return out;
}

function block(e: XElement, opts: MarkdownOptions): string {
  switch (e.name) {
    case 'h1': case 'h2': case 'h3': case 'h4': case 'h5': case 'h6':
      return `${'#'.repeat(Number(e.name[1]))} ${inline(e.children, opts).replace(/\s*\n\s*/g, ' ').trim()}`;
    case 'hr':
      return '---';
    case 'pre':
      return fence(e);
    case 'blockquote':
      return blocks(e.children, opts).join('\n\n').split('\n').map((l) => (l ? `> ${l}` : '>')).join('\n');
    case 'ul':
    case 'ol':
      return list(e, opts);
    case 'table':
      return table(e, opts);
    default:
      // p, div and any container: its blocks (a display formula alone in one stays a block of its own).
      return blocks(e.children, opts).join('\n\n');
  }
}

function list(e: XElement, opts: MarkdownOptions): string {
  const items = e.children.filter((c): c is XElement => typeof c !== 'string' && c.name === 'li');
  const start = Number(e.attrs['start'] ?? '1');
  const loose = items.some((li) => li.children.some((c) => typeof c !== 'string' && c.name === 'p'));
  return items
    .map((li, i) => {
      const marker = e.name === 'ol' ? `${(Number.isInteger(start) ? start : 1) + i}. ` : '- ';
      const body = blocks(li.children, opts).join(loose ? '\n\n' : '\n');
      return marker + body.split('\n').map((l, j) => (j === 0 || !l ? l : ' '.repeat(marker.length) + l)).join('\n');
    })
    .join(loose ? '\n\n' : '\n');
}

function table(e: XElement, opts: MarkdownOptions): string {
  const rows = descendants(e).filter((d) => d.name === 'tr');
  if (rows.length === 0) return '';
  const cells = rows.map((r) =>
    r.children.filter((c): c is XElement => typeof c !== 'string' && (c.name === 'th' || c.name === 'td')).map((c) => inline(c.children, opts).replace(/\s*\n\s*/g, ' ').replace(/\|/g, '\\|').trim()),
  );
  const width = Math.max(...cells.map((r) => r.length));
  const row = (r: string[]) => `| ${Array.from({ length: width }, (_, i) => r[i] ?? '').join(' | ')} |`;
  return [row(cells[0]!), `|${' --- |'.repeat(width)}`, ...cells.slice(1).map(row)].join('\n');
}

/** Preformatted text as a fenced block, its language from `class="language-…"`, the fence longer than any run of backticks inside. */
function fence(pre: XElement): string {
  const code = pre.children.find((c): c is XElement => typeof c !== 'string' && c.name === 'code');
  const lang = /(?:^|\s)language-([A-Za-z0-9_+-]+)/.exec(code?.attrs['class'] ?? '')?.[1] ?? '';
  const text = rawText(pre).replace(/\n$/, '');
  const ticks = '`'.repeat(Math.max(3, ...[...text.matchAll(/`+/g)].map((m) => m[0].length + 1)));
  return `${ticks}${lang}\n${text}\n${ticks}`;
}

const rawText = (e: XElement): string => e.children.map((c) => (typeof c === 'string' ? c : c.name === 'br' ? '\n' : rawText(c))).join('');

/** Emphasis markers around content, its outer spaces moved outside (CommonMark needs the markers against the words). */
function wrap(marker: string, content: string): string {
  const m = /^(\s*)([\s\S]*?)(\s*)$/.exec(content)!;
  return m[2] ? `${m[1]}${marker}${m[2]}${marker}${m[3]}` : content;
}

function inline(nodes: XNode[], opts: MarkdownOptions): string {
  let out = '';
  for (const c of nodes) {
    if (typeof c === 'string') {
      out += escapeMarkdown(c.replace(/\s+/g, ' '));
      continue;
    }
    const replaced = opts.inline?.(c);
    if (replaced !== undefined) {
      out += replaced;
      continue;
    }
    if (opts.skip?.(c)) continue;
    const inner = () => inline(c.children, opts);
    switch (c.name) {
      case 'strong':
      case 'b':
        out += wrap('**', inner());
        break;
      case 'em':
      case 'i':
        out += wrap('*', inner());
        break;
      case 's':
      case 'del':
      case 'strike':
        out += wrap('~~', inner());
        break;
      case 'span':
        out += (c.attrs['class'] ?? '').split(/\s+/).includes(STRIKE_CLASS) ? wrap('~~', inner()) : inner();
        break;
      case 'code': {
        const text = rawText(c).replace(/\s+/g, ' ');
        const ticks = '`'.repeat(Math.max(0, ...[...text.matchAll(/`+/g)].map((m) => m[0].length)) + 1);
        const pad = text.startsWith('`') || text.endsWith('`') ? ' ' : '';
        out += text ? `${ticks}${pad}${text}${pad}${ticks}` : '';
        break;
      }
      case 'sub':
      case 'sup':
        out += script(c.name === 'sub' ? '_' : '^', rawText(c).replace(/\s+/g, ' ').trim());
        break;
      case 'br':
        out += '\\\n';
        break;
      case 'a': {
        const href = c.attrs['href'] ?? '';
        const text = inner();
        out += /^https:\/\/[^\s()<>]+$/i.test(href) && text.trim() ? `[${text}](${href})` : text;
        break;
      }
      case 'math':
        out += math(c, opts);
        break;
      default:
        out += inner();
    }
  }
  return out;
}

/** A subscript or superscript as a formula's script: `H$_{2}$O`, `x$^{\text{th}}$`. */
function script(mark: '_' | '^', text: string): string {
  if (!text) return '';
  const tex = /^[0-9+\-=()]+$/.test(text) ? text : `\\text{${text.replace(/[\\{}$&#^_%~]/g, (ch) => (ch === '\\' ? '\\textbackslash ' : `\\${ch}`))}}`;
  return `$${mark}{${tex}}$`;
}

/** MathML kept as math: its TeX when it carries TeX that Temml reads, else itself, sanitised. */
function math(e: XElement, opts: MarkdownOptions): string {
  const display = e.attrs['display'] === 'block';
  const annotation = descendants(e).find((d) => d.name === 'annotation' && TEX_ENCODING.test((d.attrs['encoding'] ?? '').trim()));
  const tex = annotation ? rawText(annotation).trim().replace(/(^|[^\\])\$/g, '$1\\$') : '';
  if (tex) {
    const written = display ? `$$${tex}$$` : `$${tex}$`;
    if (checkContent(written, 'markdown').length === 0) return written;
  }
  const source = serialize(e);
  const clean = sanitizeMathml(source);
  if (!clean.ok) {
    opts.problems?.push(`MathML cannot be kept: ${clean.reason}`);
    return '';
  }
  if (clean.removed.length > 0) opts.notes?.push(`MathML: ${clean.removed.join(', ')} removed (presentation MathML only)`);
  return clean.mathml;
}

/** An element back as XML text (names as read; namespace prefixes are gone). */
function serialize(e: XElement): string {
  const attrs = Object.entries(e.attrs)
    .map(([k, v]) => ` ${k}="${esc(v)}"`)
    .join('');
  const inner = e.children.map((c) => (typeof c === 'string' ? esc(c) : serialize(c))).join('');
  return `<${e.name}${attrs}>${inner}</${e.name}>`;
}
