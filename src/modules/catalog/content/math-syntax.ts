import type { MarkdownIt, StateBlock, StateInline } from 'markdown-it';
import { MATHML_OPEN } from './mathml.js';

/**
 * Math delimiters for markdown-it, with pandoc's rules for `$` so prices in
 * prose stay prose ("$5 and $10" is text):
 * - inline `$…$`: the opening `$` is not followed by a space, the closing
 *   `$` is not preceded by a space and not followed by a digit;
 * - `$$…$$` is display math, inside a paragraph or as a block of its own
 *   (a line starting with `$$`, ending at the line that ends with `$$`);
 * - `\$` is a literal dollar (markdown-it's escape rule takes it before this
 *   rule sees the `$`), also inside a formula, where it does not close it.
 * The tokens (`math_inline`, `math_display`, `math_block`) hold the TeX
 * source in `content`; render-content.ts turns them into MathML.
 */
const DOLLAR = 0x24;
const BACKSLASH = 0x5c;

const isSpace = (code: number | undefined) => code === 0x20 || code === 0x09 || code === 0x0a || code === 0x0d;
const isDigit = (code: number | undefined) => code !== undefined && code >= 0x30 && code <= 0x39;

/** True when the character at `pos` is escaped by an odd run of backslashes before it. */
function escaped(src: string, pos: number): boolean {
  let n = 0;
  for (let i = pos - 1; i >= 0 && src.charCodeAt(i) === BACKSLASH; i--) n++;
  return n % 2 === 1;
}

function mathInline(state: StateInline, silent: boolean): boolean {
  const src = state.src;
  const start = state.pos;
  if (src.charCodeAt(start) !== DOLLAR) return false;
  const display = src.charCodeAt(start + 1) === DOLLAR;
  const open = display ? 2 : 1;
  if (display) {
    const end = src.indexOf('$$', start + 2);
    if (end < 0 || end === start + 2) return false;
    if (!silent) pushMath(state, 'math_display', src.slice(start + 2, end), '$$');
    state.pos = end + 2;
    return true;
  }
  if (isSpace(src.charCodeAt(start + open)) || start + open >= state.posMax) return false;
  for (let i = start + open; i < state.posMax; i++) {
    if (src.charCodeAt(i) !== DOLLAR || escaped(src, i)) continue;
    if (isSpace(src.charCodeAt(i - 1)) || isDigit(src.charCodeAt(i + 1))) continue;
    if (i === start + open) return false;
    if (!silent) pushMath(state, 'math_inline', src.slice(start + 1, i), '$');
    state.pos = i + 1;
    return true;
  }
  return false;
}

function pushMath(state: StateInline, type: string, content: string, markup: string): void {
  const token = state.push(type, 'math', 0);
  token.content = content;
  token.markup = markup;
}

function mathBlock(state: StateBlock, startLine: number, endLine: number, silent: boolean): boolean {
  let pos = state.bMarks[startLine]! + state.tShift[startLine]!;
  let max = state.eMarks[startLine]!;
  if (state.sCount[startLine]! - state.blkIndent >= 4) return false;
  if (pos + 2 > max || state.src.slice(pos, pos + 2) !== '$$') return false;
  pos += 2;
  let first = state.src.slice(pos, max);
  let last = '';
  let next = startLine;
  let found = false;
  if (first.trim().endsWith('$$') && first.trim().length > 2) {
    first = first.trim().slice(0, -2);
    found = true;
  }
  while (!found) {
    next++;
    if (next >= endLine) break;
    pos = state.bMarks[next]! + state.tShift[next]!;
    max = state.eMarks[next]!;
    if (pos < max && state.sCount[next]! < state.blkIndent) break;
    const line = state.src.slice(pos, max).trimEnd();
    if (line.endsWith('$$') && !escaped(line, line.length - 2)) {
      last = line.slice(0, -2);
      found = true;
    }
  }
  // No closing `$$`: not a block; the paragraph rule takes the line (and the inline rule may still find math).
  if (!found) return false;
  if (silent) return true;
  state.line = next + 1;
  const token = state.push('math_block', 'math', 0);
  token.block = true;
  token.content = [first, state.getLines(startLine + 1, next, state.tShift[startLine]!, true), last].join('\n').trim();
  token.map = [startLine, state.line];
  token.markup = '$$';
  return true;
}

/**
 * `<math …>…</math>`, the one element Markdown content may hold (raw HTML is
 * otherwise text): taken whole, up to the first `</math>` (MathML has no
 * nested `math`), as a `mathml` token holding its source, which
 * render-content.ts sanitises (content/mathml.ts) before showing it.
 */
function mathmlInline(state: StateInline, silent: boolean): boolean {
  const src = state.src;
  const start = state.pos;
  if (src.charCodeAt(start) !== 0x3c || !MATHML_OPEN.test(src.slice(start, start + 6))) return false;
  const end = src.indexOf('</math>', start);
  if (end < 0 || end + 7 > state.posMax) return false;
  if (!silent) {
    const token = state.push('mathml', 'math', 0);
    token.content = src.slice(start, end + 7);
  }
  state.pos = end + 7;
  return true;
}

export const mathSyntax = (md: MarkdownIt): void => {
  md.inline.ruler.after('escape', 'math_inline', mathInline);
  md.inline.ruler.after('math_inline', 'mathml', mathmlInline);
  md.block.ruler.after('blockquote', 'math_block', mathBlock, { alt: ['paragraph', 'reference', 'blockquote', 'list'] });
};
