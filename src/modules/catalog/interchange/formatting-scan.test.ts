import fs from 'node:fs';
import path from 'node:path';
import { unzipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { FIXTURES, itemsPackage, toQti22 } from '../../../../test/helpers/qti.js';
import { BENCH_QUESTIONS } from '../../../../bench/import-500-questions.js';
import type { Question } from '../schemas.js';
import { exportQti3 } from './qti-export.js';
import { importQtiPackage } from './qti-package.js';
import { hasFormatting, mayHaveFormatting } from './xhtml-markdown.js';
import { parseXml } from './xml.js';

/**
 * The import decides whether a package is a Markdown test before mapping it,
 * parsing only the items whose text can show formatting (mayHaveFormatting).
 * That is safe only if the text check never says no where the parsed item
 * says yes: held here over every fixture, both QTI versions, Assay's own
 * exports, and the spellings a parse reads alike.
 */
const xmlFiles = (dir: string): string[] =>
  fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? xmlFiles(path.join(dir, e.name)) : e.name.endsWith('.xml') ? [path.join(dir, e.name)] : []));

const agrees = (text: string) => {
  const parsed = hasFormatting(parseXml(text, 'item.xml'));
  // A yes from the parse with a no from the text check would read a Markdown package as plain.
  if (parsed) expect(mayHaveFormatting(text)).toBe(true);
  return parsed;
};

const exported = (contentFormat: 'plain' | 'markdown', prompt = 'Pick **B**') => {
  // As bench:import builds its package: every type, with ids.
  const questions = BENCH_QUESTIONS.map((q, i) => ({ ...q, id: `q${i}`, prompt: i === 0 ? prompt : q.prompt }) as Question);
  const zip = exportQti3({ testId: 'tst_scan', title: 'Scan', durationMinutes: 10, contentFormat, questions });
  return Object.entries(unzipSync(zip))
    .filter(([name]) => name.endsWith('.xml') && name !== 'imsmanifest.xml')
    .map(([, bytes]) => new TextDecoder().decode(bytes));
};

describe('the formatting scan reads text before parsing it', () => {
  it('never says no where the parsed item shows formatting: every fixture, in QTI 3.0 and 2.2', () => {
    const texts = xmlFiles(FIXTURES).map((f) => fs.readFileSync(f, 'utf8'));
    let formatted = 0;
    for (const text of texts) {
      if (agrees(text)) formatted++;
      agrees(toQti22(text));
    }
    // The corpus holds both kinds, so the check is held on each.
    expect(formatted).toBeGreaterThan(0);
    expect(formatted).toBeLessThan(texts.length);
  });

  it("Assay's exports: every item of a Markdown test can show formatting; no item of a plain test needs parsing", () => {
    const markdown = exported('markdown');
    expect(markdown.length).toBeGreaterThan(5);
    for (const text of markdown) expect(agrees(text) || !/<qti-assessment-item\s/.test(text)).toBe(true);
    const plain = exported('plain', 'Pick <b> & *B*');
    for (const text of plain) expect(agrees(text)).toBe(false);
    expect(plain.filter(mayHaveFormatting)).toEqual([]);
  });

  it('spellings the parse reads alike: namespace prefixes, line breaks in tags, an entity in the class, an image object', () => {
    const item = (body: string, bodyAttrs = '') =>
      `<qti-assessment-item xmlns:h="http://www.w3.org/1999/xhtml" identifier="i"><qti-item-body${bodyAttrs}>${body}</qti-item-body></qti-assessment-item>`;
    const cases = [
      item('<p>Pick <h:strong>B</h:strong></p>'),
      item('<p>x<m:math xmlns:m="http://www.w3.org/1998/Math/MathML"><m:mi>x</m:mi></m:math></p>'),
      item('<p>a<sub\n>2</sub></p>'),
      item('<p><img\tsrc="a.png" alt="A"/></p>'),
      item('<p><object type="image/png" data="a.png">A</object></p>'),
      item('<p>Plain</p>', ' class="&#97;ssay-markdown"'),
      item('<p>Plain</p>', " class='x &#x61;ssay-markdown'"),
      item('<p>Plain</p>', ' class="assay-markdown"'),
    ];
    for (const text of cases) expect(agrees(text)).toBe(true);
    // Text that only looks like a tag is not one: the check may say yes (the parse decides), the parse says no.
    expect(agrees(item('<p>a &lt;b&gt; c</p>'))).toBe(false);
    expect(agrees(item('<p>Plain</p>', ' class="other"'))).toBe(false);
  });

  it('a plain package with one formatted item last is read as Markdown, every item of it', async () => {
    const { input } = await importQtiPackage(itemsPackage(['choice-multiple.xml', 'text-entry-string.xml', 'math-msup.xml']));
    expect(input?.contentFormat).toBe('markdown');
    const plain = await importQtiPackage(itemsPackage(['choice-multiple.xml', 'text-entry-string.xml']));
    expect(plain.input?.contentFormat).toBeUndefined();
  });
});
