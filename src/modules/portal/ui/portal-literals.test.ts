import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * The portal's words live in the message catalogue (`portal.*` keys), so its
 * pages can follow the candidate pages into other languages. This check reads
 * every portal module's `html` templates and fails on words written into their
 * markup: a text node, or an `aria-label`, `title`, `alt` or `placeholder`,
 * holding a word of three letters or more outside `${…}`. Code (`<code>`,
 * `<script>`, `<style>`) is not prose and is left alone.
 */

const PORTAL = path.dirname(path.dirname(fileURLToPath(import.meta.url)));

/** The static parts of each html`` template in a TypeScript source, nested ones included, with the line each starts on. */
export function htmlTemplates(source: string): Array<{ line: number; parts: string[] }> {
  const found: Array<{ line: number; parts: string[] }> = [];
  let i = 0;
  const lineAt = (pos: number) => source.slice(0, pos).split('\n').length;

  // Skips a quoted string starting at i (on its quote).
  const quoted = () => {
    const q = source[i]!;
    i++;
    while (i < source.length && source[i] !== q) i += source[i] === '\\' ? 2 : 1;
    i++;
  };
  // Reads a template literal starting at i (on its backtick); records it when html-tagged.
  const template = (tagged: boolean) => {
    const start = i;
    i++;
    const parts: string[] = [];
    let chunk = '';
    while (i < source.length && source[i] !== '`') {
      if (source[i] === '\\') {
        chunk += source.slice(i, i + 2);
        i += 2;
      } else if (source[i] === '$' && source[i + 1] === '{') {
        parts.push(chunk);
        chunk = '';
        i += 2;
        code('}');
        i++;
      } else chunk += source[i++];
    }
    parts.push(chunk);
    i++;
    if (tagged) found.push({ line: lineAt(start), parts });
  };
  // Walks code until the closing character at depth zero (or the end).
  const code = (close: string | null) => {
    let depth = 0;
    while (i < source.length) {
      const c = source[i]!;
      if (c === '/' && source[i + 1] === '/') {
        i = source.indexOf('\n', i);
        if (i < 0) i = source.length;
      } else if (c === '/' && source[i + 1] === '*') {
        i = source.indexOf('*/', i + 2) + 2;
      } else if (c === '"' || c === "'") quoted();
      else if (c === '`') template(/\bhtml\s*$/.test(source.slice(Math.max(0, i - 8), i)));
      else if (c === '{') {
        depth++;
        i++;
      } else if (c === '}') {
        if (depth === 0 && close === '}') return;
        depth--;
        i++;
      } else i++;
    }
  };
  code(null);
  return found;
}

const HOLE = '\u0000';
const WORD = /[A-Za-z]{3,}/;
const SAID_ATTRIBUTES = /\s(aria-label|title|alt|placeholder)="([^"]*)"/g;

/** The English written into one template's markup: its text nodes and the attributes people read or hear. */
export function hardCodedWords(parts: string[]): string[] {
  let markup = parts.join(HOLE).replace(/<(code|script|style)\b[^>]*>[\s\S]*?<\/\1>/g, HOLE);
  // A template of attributes (html` checked`, html` class="num"`) is written inside a tag.
  if (/^\s+[A-Za-z-]+(?:[=\s\u0000]|$)/.test(markup)) markup = `<x${markup}`;
  const words: string[] = [];
  for (const m of markup.matchAll(SAID_ATTRIBUTES)) {
    const value = m[2]!.split(HOLE).join(' ').trim();
    if (WORD.test(value)) words.push(`${m[1]}="${value}"`);
  }
  const text = markup.replace(/<[^>]*(?:>|$)/g, HOLE);
  for (const piece of text.split(HOLE)) {
    const said = piece.replace(/&[a-z]+;|&#\d+;/g, ' ').trim();
    if (WORD.test(said)) words.push(said);
  }
  return words;
}

function portalSources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    // The browser scripts carry their words through window.AssayI18n (clientMessages), not through these templates.
    if (e.isDirectory()) return e.name === 'assets' ? [] : portalSources(full);
    return e.name.endsWith('.ts') && !e.name.endsWith('.test.ts') ? [full] : [];
  });
}

describe('the portal speaks through the catalogue', () => {
  it('finds the words of a hard-coded sentence, and none in markup made of messages', () => {
    const source = [
      'const a = html`<h1>${t.t("portal.x")}</h1><p class="lede">Publish the draft first.</p>`;',
      "const b = html`<nav aria-label=\"Breadcrumb\"><a href=\"${link}\">${t.t('portal.y')}</a></nav>`;",
      '// html`<p>Not code: a comment.</p>`',
      'const c = html`<ul>${rows.map((r) => html`<li>${r.name} (<code>${r.id}</code>) – ${n}</li>`)}</ul>`;',
      "const d = html`<p>${x ? html`<strong>Nested words</strong>` : ''}</p><input${bad ? html` aria-invalid=\"true\" class=\"x-${n}-y\"` : ''}>`;",
      'const e = `<p>Not html-tagged: another check\'s business.</p>`;',
    ].join('\n');
    const words = htmlTemplates(source).flatMap((tpl) => hardCodedWords(tpl.parts));
    expect(words).toEqual(['Publish the draft first.', 'aria-label="Breadcrumb"', 'Nested words']);
  });

  it('has no English written into the portal pages’ markup', () => {
    const found: string[] = [];
    for (const file of portalSources(PORTAL)) {
      for (const tpl of htmlTemplates(fs.readFileSync(file, 'utf8'))) {
        for (const w of hardCodedWords(tpl.parts)) found.push(`${path.relative(PORTAL, file)}:${tpl.line}: ${w}`);
      }
    }
    expect(found).toEqual([]);
  });
});
