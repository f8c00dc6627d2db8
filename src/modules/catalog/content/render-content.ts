import MarkdownIt from 'markdown-it';
import type { Token } from 'markdown-it';
import temml from 'temml';
import { escapeHtml, SafeHtml } from '../../../platform/web/html.js';
import { ASSET_REF, type ContentFormat } from './content-format.js';
import { clampSizes, macroDefinition, MATH_LIMITS, oversize, type MathBudget } from './math-limits.js';
import { mathSyntax } from './math-syntax.js';
import { mathmlText, sanitizeMathml } from './mathml.js';

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
  /** The budget the version's fields share (math-limits.ts); past it, formulas show as their source. */
  budget?: MathBudget;
}

interface RenderEnv {
  assetUrl: (assetId: string) => string;
  /** Whether each open link was rendered (a refused one leaves its text only). */
  links: boolean[];
  math: FieldMath;
}

const md = new MarkdownIt('default', { html: false, linkify: false, typographer: false });
// Every link and image is parsed (checkContent must see them all); the rules below decide what is rendered.
md.validateLink = () => true;
md.use(mathSyntax);

const attr = (t: Token, name: string) => String(t.attrGet(name) ?? '');
const HTTPS = /^https:\/\/[^\s]/i;

const MATH_OPTIONS = { throwOnError: true, trust: false, annotate: true, maxExpand: MATH_LIMITS.maxExpand } as const;

/** What one field's formulas have spent so far, and the test's (or rendered version's) budget they share, if any. */
interface FieldMath {
  formulas: number;
  bytes: number;
  test: MathBudget | undefined;
}

const fieldMath = (test?: MathBudget): FieldMath => ({ formulas: 0, bytes: 0, test });

type MathOutcome =
  | { html: string; oversize: string | null }
  /** `budget`: refused because the field's or the test's formulas together are over a bound (reported once per field, or test). */
  | { error: string; position: number; bound?: true; budget?: 'field' | 'test' };

const kb = (bytes: number) => `${Math.ceil(bytes / 1024)} KB`;

/**
 * A formula as MathML (its sizes clamped, `oversize` the first that was over
 * the bound), or why it cannot be shown: Temml's error, or a bound of
 * math-limits.ts. The cheap bounds come before Temml runs, so a refused
 * formula costs nothing to render; the output bounds after, against what
 * it spent.
 */
function mathOf(tex: string, displayMode: boolean, field: FieldMath): MathOutcome {
  const refuse = (error: string, budget?: 'field' | 'test') => ({ error, position: 0, bound: true as const, budget });
  if (tex.length > MATH_LIMITS.formulaChars) return refuse(`it is ${tex.length} characters long; a formula holds at most ${MATH_LIMITS.formulaChars}`);
  const definition = macroDefinition(tex);
  if (definition) return refuse(`${definition} defines a macro, and formulas may not define macros`);
  if (++field.formulas > MATH_LIMITS.fieldFormulas) return refuse(`a text holds at most ${MATH_LIMITS.fieldFormulas} formulas`, 'field');
  if (field.bytes > MATH_LIMITS.fieldBytes) return refuse(`a text's formulas together render to at most ${kb(MATH_LIMITS.fieldBytes)} of MathML`, 'field');
  const test = field.test;
  if (test) {
    test.chars -= tex.length;
    if (test.chars < 0) return refuse(`the test's formulas together are longer than ${MATH_LIMITS.testChars} characters`, 'test');
    if (test.bytes < 0) return refuse(`the test's formulas together render to more than ${kb(MATH_LIMITS.testBytes)} of MathML`, 'test');
  }
  let html: string;
  try {
    // `display="block"` already makes a block formula (MathML Core); the inline style Temml adds for older
    // engines would only be refused by the pages' CSP (style-src 'self'), with a console report on every page.
    html = temml.renderToString(tex, { ...MATH_OPTIONS, displayMode }).replace(' style="display:block math;"', '');
  } catch (err) {
    const e = err as Error & { position?: number };
    // Temml appends the position and an underlined excerpt; the checker reports the position itself.
    const message = String(e.message ?? err).trim().replace(/ at (position \d+|end of input):[\s\S]*$/, '').replace(/^ParseError:\s*/, '');
    return { error: message || 'the formula could not be read', position: typeof e.position === 'number' ? e.position : 0 };
  }
  // Spent whether or not it is shown: the time went into it.
  field.bytes += html.length;
  if (test) test.bytes -= html.length;
  if (html.length > MATH_LIMITS.formulaBytes) return refuse(`it renders to ${kb(html.length)} of MathML; a formula renders to at most ${kb(MATH_LIMITS.formulaBytes)}`);
  if (field.bytes > MATH_LIMITS.fieldBytes) return refuse(`a text's formulas together render to at most ${kb(MATH_LIMITS.fieldBytes)} of MathML`, 'field');
  if (test && test.bytes < 0) return refuse(`the test's formulas together render to more than ${kb(MATH_LIMITS.testBytes)} of MathML`, 'test');
  return { html: clampSizes(html), oversize: oversize(html) };
}

/**
 * MathML written in the text (`<math>…</math>`, content/mathml.ts): sanitised
 * again here, whatever the import did, and counted in the field's and the
 * test's budget as a formula's MathML is.
 */
function mathmlOf(source: string, field: FieldMath): MathOutcome {
  const refuse = (error: string, budget?: 'field' | 'test') => ({ error, position: 0, bound: true as const, budget });
  if (++field.formulas > MATH_LIMITS.fieldFormulas) return refuse(`a text holds at most ${MATH_LIMITS.fieldFormulas} formulas`, 'field');
  const out = sanitizeMathml(source);
  if (!out.ok) return out.bound ? refuse(out.reason) : { error: out.reason, position: 0 };
  field.bytes += out.mathml.length;
  if (field.test) field.test.bytes -= out.mathml.length;
  if (field.bytes > MATH_LIMITS.fieldBytes) return refuse(`a text's formulas together render to at most ${kb(MATH_LIMITS.fieldBytes)} of MathML`, 'field');
  if (field.test && field.test.bytes < 0) return refuse(`the test's formulas together render to more than ${kb(MATH_LIMITS.testBytes)} of MathML`, 'test');
  const removed = out.removed.length > 0 ? `it holds ${out.removed.join(', ')}, which MathML in a text may not hold (presentation MathML only)` : null;
  return { html: out.mathml, oversize: removed };
}

/**
 * A formula reads left to right on every page, a right-to-left one too
 * (`dir="ltr"` on its `<math>`, after its other attributes): an Arabic or
 * Hebrew page must not reverse x² − 1. MathML written with its own `dir`
 * (Arabic mathematical notation is written right to left) keeps it. Added
 * after the bounds are counted: they measure the formula's MathML.
 */
function leftToRight(mathml: string): string {
  const open = /^<math\b[^>]*>/.exec(mathml);
  if (!open || /\sdir="/.test(open[0])) return mathml;
  return `${open[0].slice(0, -1)} dir="ltr">${mathml.slice(open[0].length)}`;
}

function renderMath(tex: string, displayMode: boolean, delimiter: string, env: RenderEnv): string {
  const out = mathOf(tex, displayMode, env.math);
  if ('html' in out) return leftToRight(out.html);
  return `<code class="math-error" title="This formula could not be shown">${escapeHtml(delimiter + tex + delimiter)}</code>`;
}

const rules = md.renderer.rules;
const envOf = (env: unknown) => env as RenderEnv;
rules.math_inline = (tokens, i, _o, env) => renderMath(tokens[i]!.content, false, '$', envOf(env));
rules.math_display = (tokens, i, _o, env) => renderMath(tokens[i]!.content, true, '$$', envOf(env));
rules.mathml = (tokens, i, _o, env) => {
  const out = mathmlOf(tokens[i]!.content, envOf(env).math);
  if ('html' in out) return leftToRight(out.html);
  return `<code class="math-error" title="This formula could not be shown">${escapeHtml(tokens[i]!.content)}</code>`;
};
rules.math_block = (tokens, i, _o, env) => `<div class="math-block">${renderMath(tokens[i]!.content, true, '$$', envOf(env))}</div>\n`;
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
  const env = { assetUrl: opts.assetUrl, links: [] as boolean[], math: fieldMath(opts.budget) };
  return new SafeHtml(opts.inline ? md.renderInline(source, env) : md.render(source, env));
}

/** A problem an author must fix, at a 1-based line and column of the source. */
export interface ContentProblem {
  line: number;
  column: number;
  message: string;
  /** Over a bound of math-limits.ts (not merely unreadable): refused even where unfinished content may be saved. */
  bound?: true;
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
 * Formulas are held to math-limits.ts; `budget` is the test's, which its
 * fields share (without it, only the per-formula and per-field bounds hold).
 */
export function checkContent(source: string, format: ContentFormat, budget?: MathBudget): ContentProblem[] {
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
  const add = (offset: number, message: string, bound?: true) => problems.push({ ...at(offset), message, ...(bound ? { bound } : {}) });
  const math = fieldMath(budget);
  let overField = false;
  const formula = (tex: string, display: boolean, offset: number, delimiter: string) => {
    const out = mathOf(tex, display, math);
    // A long formula is named by its start: the message must stay readable (and small).
    const shown = `${delimiter}${tex.length > 60 ? `${tex.slice(0, 60)}…` : tex}${delimiter}`;
    if ('html' in out) {
      if (out.oversize) add(offset, `formula ${shown} cannot be shown: the size ${out.oversize} is larger than ${MATH_LIMITS.maxSizeEm}em (or the same in other units) either way`, true);
    } else if (!out.budget || !(out.budget === 'test' ? budget?.reported : overField)) {
      // One budget problem per text (and the test's once): every formula after the first over it would say the same.
      if (out.budget === 'field') overField = true;
      if (out.budget === 'test' && budget) budget.reported = true;
      add(offset, `formula ${shown} cannot be shown: ${out.error}`, out.bound);
    }
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
      case 'mathml': {
        const out = mathmlOf(t.content, math);
        const offset = find('<math');
        const shown = t.content.length > 60 ? `${t.content.slice(0, 60)}…` : t.content;
        if ('html' in out) {
          if (out.oversize) add(offset, `MathML ${shown} cannot be shown as written: ${out.oversize}`);
        } else if (!out.budget || !(out.budget === 'test' ? budget?.reported : overField)) {
          if (out.budget === 'field') overField = true;
          if (out.budget === 'test' && budget) budget.reported = true;
          add(offset, `MathML ${shown} cannot be shown: ${out.error}`, out.bound);
        }
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
      case 'mathml': {
        const clean = sanitizeMathml(t.content);
        out.push(clean.ok ? mathmlText(clean.mathml) : t.content);
        break;
      }
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
