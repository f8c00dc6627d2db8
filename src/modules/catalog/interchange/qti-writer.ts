import { contentText } from '../content/render-content.js';
import { weightText } from './exact-weights.js';
import { markdownToXhtml, markdownToXhtmlInline } from './markdown-xhtml.js';
import { esc } from './xml.js';

/**
 * What writing a QTI 3.0 item takes, shared by the export (qti-export-items.ts)
 * and the question types' own mappings (question-types/*): the namespaces,
 * how a test's texts are written, response declarations, and the SCORE
 * statements of the standard rules.
 */
export const QTI3_NS = 'http://www.imsglobal.org/xsd/imsqtiasi_v3p0';
export const RP_TEMPLATES = {
  match_correct: 'https://purl.imsglobal.org/spec/qti/v3p0/rptemplates/match_correct.xml',
  map_response: 'https://purl.imsglobal.org/spec/qti/v3p0/rptemplates/map_response.xml',
  map_response_point: 'https://purl.imsglobal.org/spec/qti/v3p0/rptemplates/map_response_point.xml',
} as const;
export const XSI = 'http://www.w3.org/2001/XMLSchema-instance';
export const ASI_XSD = 'https://purl.imsglobal.org/spec/qti/v3p0/schema/xsd/imsqti_asiv3p0_v1p0.xsd';

export const HEAD = '<?xml version="1.0" encoding="UTF-8"?>\n';

export const ASSET_IMAGE = /!\[([^\]\n]*)\]\(asset:(ast_[A-Za-z0-9_-]+)\)/g;

/** How one test's texts are written into its items: as block content, as an element's own content, as text only, as a title. */
export interface TextWriter {
  markdown: boolean;
  block(text: string): string;
  inline(text: string): string;
  pure(text: string): string;
  title(text: string): string;
}

export const PLAIN: TextWriter = {
  markdown: false,
  block: (t) => paragraphs(t),
  inline: (t) => esc(t),
  pure: (t) => esc(t),
  title: (t) => t.replace(ASSET_IMAGE, '$1'),
};
export const MARKDOWN: TextWriter = {
  markdown: true,
  block: (t) => markdownToXhtml(t),
  inline: (t) => markdownToXhtmlInline(t),
  // An inline choice holds text only (QTI): the words, formulas as their TeX.
  pure: (t) => esc(contentText(t, 'markdown')),
  title: (t) => contentText(t, 'markdown'),
};

/** Text as XHTML paragraphs: a blank line starts a paragraph, a single newline is a line break. */
function paragraphs(text: string): string {
  return text
    .split(/\n\s*\n/)
    .map((p) => p.trim())
    .filter(Boolean)
    .map((p) => `<p>${p.split('\n').map(esc).join('<br/>')}</p>`)
    .join('');
}

/** A number as QTI writes floats (no exponent for ordinary values). */
export const f = (n: number) => String(Number(n.toPrecision(15)));

export interface Decl {
  id: string;
  cardinality: 'single' | 'multiple' | 'ordered';
  baseType: string;
  correct?: string[];
  mapping?: { entries: Array<{ key: string; value: number; caseSensitive?: boolean }>; lower?: number; upper?: number };
  /** A point response's areas (select_point): each area's shape, coordinates and value, mapResponsePoint's sum capped at `upper`. */
  areaMapping?: { entries: Array<{ shape: string; coords: readonly number[]; value: number }>; upper?: number };
}

export function declXml(d: Decl): string {
  const correct = d.correct?.length ? `<qti-correct-response>${d.correct.map((v) => `<qti-value>${esc(v)}</qti-value>`).join('')}</qti-correct-response>` : '';
  const m = d.mapping;
  const mapping = m
    ? `<qti-mapping default-value="0"${m.lower !== undefined ? ` lower-bound="${f(m.lower)}"` : ''}${m.upper !== undefined ? ` upper-bound="${f(m.upper)}"` : ''}>` +
      m.entries
        .map((e) => `<qti-map-entry map-key="${esc(e.key)}" mapped-value="${weightText(e.value)}"${e.caseSensitive !== undefined ? ` case-sensitive="${e.caseSensitive}"` : ''}/>`)
        .join('') +
      `</qti-mapping>`
    : '';
  const a = d.areaMapping;
  const areas = a
    ? `<qti-area-mapping default-value="0"${a.upper !== undefined ? ` upper-bound="${f(a.upper)}"` : ''}>` +
      a.entries.map((e) => `<qti-area-map-entry shape="${esc(e.shape)}" coords="${e.coords.map(f).join(',')}" mapped-value="${weightText(e.value)}"/>`).join('') +
      `</qti-area-mapping>`
    : '';
  return `  <qti-response-declaration identifier="${esc(d.id)}" cardinality="${d.cardinality}" base-type="${d.baseType}">${correct}${mapping}${areas}</qti-response-declaration>\n`;
}

export const score = (v: string) => `<qti-set-outcome-value identifier="SCORE">${v}</qti-set-outcome-value>`;
export const base = (type: string, v: string | number) => `<qti-base-value base-type="${type}">${esc(typeof v === 'number' ? f(v) : v)}</qti-base-value>`;
export const template = (name: keyof typeof RP_TEMPLATES) => `  <qti-response-processing template="${RP_TEMPLATES[name]}"/>\n`;

/** All or nothing: the match_correct template for 1 point; its body with the item's points otherwise (or qti-equal with a tolerance). */
export function allOrNothing(points: number, tolerance = 0): string {
  if (points === 1 && tolerance === 0) return template('match_correct');
  const cond =
    tolerance > 0
      ? `<qti-equal tolerance-mode="absolute" tolerance="${f(tolerance)} ${f(tolerance)}" include-lower-bound="true" include-upper-bound="true"><qti-variable identifier="RESPONSE"/><qti-correct identifier="RESPONSE"/></qti-equal>`
      : `<qti-match><qti-variable identifier="RESPONSE"/><qti-correct identifier="RESPONSE"/></qti-match>`;
  return (
    `  <qti-response-processing>\n    <qti-response-condition>\n      <qti-response-if>${cond}${score(base('float', points))}</qti-response-if>\n` +
    `      <qti-response-else>${score(base('float', 0))}</qti-response-else>\n    </qti-response-condition>\n  </qti-response-processing>\n`
  );
}
