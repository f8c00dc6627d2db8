import fs from 'node:fs';
import { sha256Hex } from '../../platform/crypto.js';
import { allCatalogues } from '../../platform/i18n/catalogue.js';
import { directionOf, SOURCE_LOCALE } from '../../platform/i18n/locales.js';
import type { StaticAsset } from '../../platform/web/asset-route.js';

/**
 * The test-mode report's print stylesheet in every language: a page-margin
 * box's text can only come from CSS (no attribute, no inline style under the
 * pages' CSP), so each catalogue's `report.testModeNotice` gets its copy of
 * assets/report-test-mode.css, made once at start: English keeps the file's
 * name (`report-test-mode.css`), the others are `report-test-mode.<tag>.css`,
 * and a right-to-left language's notice sits in the top right margin box.
 */
export function testModeStylesheets(): Map<string, StaticAsset> {
  const source = fs.readFileSync(new URL('./assets/report-test-mode.css', import.meta.url), 'utf8');
  const english = allCatalogues().get(SOURCE_LOCALE)!['report.testModeNotice']!;
  // The file and the catalogue hold the same English sentence; a change to one alone fails the boot, not a printout.
  if (!source.includes(cssString(english))) throw new Error('assets/report-test-mode.css does not hold the English report.testModeNotice');
  const sheets = new Map<string, StaticAsset>();
  for (const [tag, catalogue] of allCatalogues()) {
    const notice = catalogue['report.testModeNotice'] ?? english;
    let css = source.replace(cssString(english), cssString(notice));
    if (directionOf(tag) === 'rtl') css = css.replace('@top-left', '@top-right');
    const body = Buffer.from(css);
    sheets.set(tag === SOURCE_LOCALE ? 'report-test-mode.css' : `report-test-mode.${tag}.css`, { body, gzipped: null, type: 'text/css; charset=utf-8', etag: `"${sha256Hex(body).slice(0, 16)}"` });
  }
  return sheets;
}

/** A CSS string literal (quotes and backslashes escaped; a message has no line break). */
const cssString = (s: string) => `"${s.replace(/["\\]/g, (c) => `\\${c}`)}"`;
