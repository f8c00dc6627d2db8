import type { Question, SectionInput } from '../schemas.js';
import { FLAT_SECTION_ID } from '../sections.js';
import { esc } from './xml.js';
import { writeZip } from './zip.js';

/**
 * A test as a QTI 3.0 content package: imsmanifest.xml, one item file per
 * question (response declaration, outcome declarations, item body and
 * response processing), and the assessment test with its sections,
 * selection and ordering. Scoring uses the standard templates where they
 * give Assay's points exactly (match_correct for a 1-point all-or-nothing
 * item, map_response for mapped partial credit); otherwise the response
 * processing is written out in QTI's own expressions, in the forms the
 * importer (response-processing.ts) reads back. docs/import-export.md.
 */
export const QTI3_NS = 'http://www.imsglobal.org/xsd/imsqtiasi_v3p0';
export const CP_NS = 'http://www.imsglobal.org/xsd/qti/qtiv3p0/imscp_v1p1';
export const RP_TEMPLATES = {
  match_correct: 'https://purl.imsglobal.org/spec/qti/v3p0/rptemplates/match_correct.xml',
  map_response: 'https://purl.imsglobal.org/spec/qti/v3p0/rptemplates/map_response.xml',
} as const;
const XSI = 'http://www.w3.org/2001/XMLSchema-instance';
const ASI_XSD = 'https://purl.imsglobal.org/spec/qti/v3p0/schema/xsd/imsqti_asiv3p0_v1p0.xsd';

export interface ExportableTest {
  testId: string;
  title: string;
  durationMinutes: number;
  questions?: Question[];
  sections?: Array<SectionInput & { id: string }>;
}

/** An image a question shows (`![alt](asset:ast_…)`), to be written into the package. */
export interface ExportAsset {
  contentType: string;
  bytes: Uint8Array;
}

const EXT: Record<string, string> = { 'image/png': 'png', 'image/jpeg': 'jpg', 'image/gif': 'gif', 'image/webp': 'webp', 'image/svg+xml': 'svg' };
/** The asset references in (already escaped) text; the alt text cannot hold "]" (the importer writes none). */
const ASSET_IMAGE = /!\[([^\]\n]*)\]\(asset:(ast_[A-Za-z0-9_-]+)\)/g;

/** The asset ids that the test's texts show. */
export function assetIdsOf(test: ExportableTest): string[] {
  return [...new Set([...JSON.stringify(test).matchAll(ASSET_IMAGE)].map((m) => m[2]!))];
}

/**
 * A test as a QTI 3.0 package; `assets` holds the images its texts show
 * (assetIdsOf), each written as assets/{id}.{ext} and shown with <img> in
 * the items. An image that `assets` lacks is written as its alt text.
 */
export function exportQti3(test: ExportableTest, assets: Map<string, ExportAsset> = new Map()): Uint8Array {
  const sections = test.sections ?? [{ id: FLAT_SECTION_ID, title: '', shuffleQuestions: false, questions: test.questions ?? [] }];
  const files: Array<{ path: string; data: string }> = [];
  const itemRefs: Array<{ id: string; path: string; assets: string[] }> = [];
  const written = new Map<string, string>();
  for (const s of sections) {
    for (const q of s.questions as Question[]) {
      const path = `items/${q.id}.xml`;
      const used: string[] = [];
      const data = itemXml(q).replace(ASSET_IMAGE, (_m, alt: string, id: string) => {
        const asset = assets.get(id);
        if (!asset) return alt;
        const file = `assets/${id}.${EXT[asset.contentType] ?? 'bin'}`;
        written.set(id, file);
        if (!used.includes(file)) used.push(file);
        return `<img src="../${file}" alt="${alt}"/>`;
      });
      files.push({ path, data });
      itemRefs.push({ id: q.id, path, assets: used });
    }
  }
  const testPath = 'assessment-test.xml';
  const testXml = assessmentTestXml(test, sections, !test.sections);
  const manifest = manifestXml(test.testId, testPath, itemRefs);
  const images = [...written].map(([id, path]) => ({ path, data: assets.get(id)!.bytes }));
  return writeZip([{ path: 'imsmanifest.xml', data: manifest }, { path: testPath, data: testXml }, ...files, ...images]);
}

const HEAD = '<?xml version="1.0" encoding="UTF-8"?>\n';

function manifestXml(testId: string, testPath: string, items: Array<{ id: string; path: string; assets: string[] }>): string {
  const res = items
    .map(
      (i) =>
        `    <resource identifier="${esc(i.id)}" type="imsqti_item_xmlv3p0" href="${esc(i.path)}">\n      <file href="${esc(i.path)}"/>\n` +
        i.assets.map((a) => `      <file href="${esc(a)}"/>\n`).join('') +
        `    </resource>`,
    )
    .join('\n');
  const deps = items.map((i) => `      <dependency identifierref="${esc(i.id)}"/>`).join('\n');
  return (
    HEAD +
    `<manifest xmlns="${CP_NS}" xmlns:xsi="${XSI}" identifier="MANIFEST-${esc(testId)}">\n` +
    `  <metadata>\n    <schema>QTI Package</schema>\n    <schemaversion>3.0.0</schemaversion>\n  </metadata>\n  <organizations/>\n  <resources>\n` +
    `    <resource identifier="TEST-${esc(testId)}" type="imsqti_test_xmlv3p0" href="${testPath}">\n      <file href="${testPath}"/>\n${deps}\n    </resource>\n` +
    `${res}\n  </resources>\n</manifest>\n`
  );
}

function assessmentTestXml(test: ExportableTest, sections: Array<SectionInput & { id: string }>, flat: boolean): string {
  const secs = sections
    .map((s) => {
      const qs = s.questions as Question[];
      return (
        `      <qti-assessment-section identifier="${esc(s.id)}" title="${esc(flat ? 'Questions' : s.title)}" visible="${flat ? 'false' : 'true'}">\n` +
        (s.draw !== undefined ? `        <qti-selection select="${s.draw}"/>\n` : '') +
        (s.shuffleQuestions ? `        <qti-ordering shuffle="true"/>\n` : '') +
        (s.instructions ? `        <qti-rubric-block view="candidate" use="instructions"><qti-content-body>${paragraphs(s.instructions)}</qti-content-body></qti-rubric-block>\n` : '') +
        qs.map((q) => `        <qti-assessment-item-ref identifier="${esc(q.id)}" href="items/${esc(q.id)}.xml"/>\n`).join('') +
        `      </qti-assessment-section>\n`
      );
    })
    .join('');
  return (
    HEAD +
    `<qti-assessment-test xmlns="${QTI3_NS}" xmlns:xsi="${XSI}" xsi:schemaLocation="${QTI3_NS} ${ASI_XSD}" identifier="${esc(test.testId)}" title="${esc(test.title)}">\n` +
    `  <qti-outcome-declaration identifier="SCORE" cardinality="single" base-type="float"/>\n` +
    `  <qti-time-limits max-time="${test.durationMinutes * 60}"/>\n` +
    `  <qti-test-part identifier="part1" navigation-mode="nonlinear" submission-mode="simultaneous">\n${secs}  </qti-test-part>\n` +
    `  <qti-outcome-processing>\n    <qti-set-outcome-value identifier="SCORE"><qti-sum><qti-test-variables variable-identifier="SCORE"/></qti-sum></qti-set-outcome-value>\n  </qti-outcome-processing>\n` +
    `</qti-assessment-test>\n`
  );
}

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
const f = (n: number) => String(Number(n.toPrecision(15)));

interface Decl {
  id: string;
  cardinality: 'single' | 'multiple' | 'ordered';
  baseType: string;
  correct?: string[];
  mapping?: { entries: Array<{ key: string; value: number; caseSensitive?: boolean }>; lower?: number; upper?: number };
}

function declXml(d: Decl): string {
  const correct = d.correct?.length ? `<qti-correct-response>${d.correct.map((v) => `<qti-value>${esc(v)}</qti-value>`).join('')}</qti-correct-response>` : '';
  const m = d.mapping;
  const mapping = m
    ? `<qti-mapping default-value="0"${m.lower !== undefined ? ` lower-bound="${f(m.lower)}"` : ''}${m.upper !== undefined ? ` upper-bound="${f(m.upper)}"` : ''}>` +
      m.entries
        .map((e) => `<qti-map-entry map-key="${esc(e.key)}" mapped-value="${f(e.value)}"${e.caseSensitive !== undefined ? ` case-sensitive="${e.caseSensitive}"` : ''}/>`)
        .join('') +
      `</qti-mapping>`
    : '';
  return `  <qti-response-declaration identifier="${esc(d.id)}" cardinality="${d.cardinality}" base-type="${d.baseType}">${correct}${mapping}</qti-response-declaration>\n`;
}

const score = (v: string) => `<qti-set-outcome-value identifier="SCORE">${v}</qti-set-outcome-value>`;
const base = (type: string, v: string | number) => `<qti-base-value base-type="${type}">${esc(typeof v === 'number' ? f(v) : v)}</qti-base-value>`;
const template = (name: keyof typeof RP_TEMPLATES) => `  <qti-response-processing template="${RP_TEMPLATES[name]}"/>\n`;

/** All or nothing: the match_correct template for 1 point; its body with the item's points otherwise (or qti-equal with a tolerance). */
function allOrNothing(points: number, tolerance = 0): string {
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

function itemXml(q: Question): string {
  const decls: Decl[] = [];
  let body = paragraphs(q.prompt);
  let rp = '';
  const resp = 'RESPONSE';
  switch (q.type) {
    case 'single_choice': {
      decls.push({ id: resp, cardinality: 'single', baseType: 'identifier', correct: [q.correctOptionId], ...(q.points !== 1 ? { mapping: { entries: [{ key: q.correctOptionId, value: q.points }] } } : {}) });
      body += choiceXml(q.options, 1, q.shuffleOptions ?? false);
      rp = q.points === 1 ? template('match_correct') : template('map_response');
      break;
    }
    case 'multiple_choice': {
      const partial = q.partialCredit ?? false;
      const w = q.points / q.correctOptionIds.length;
      const correct = new Set(q.correctOptionIds);
      decls.push({
        id: resp,
        cardinality: 'multiple',
        baseType: 'identifier',
        correct: q.correctOptionIds,
        // Assay's partial credit: each right pick +w, each wrong pick −w, never below 0.
        ...(partial ? { mapping: { entries: q.options.map((o) => ({ key: o.id, value: correct.has(o.id) ? w : -w })), lower: 0, upper: q.points } } : {}),
      });
      body += choiceXml(q.options, 0, q.shuffleOptions ?? false);
      rp = partial ? template('map_response') : allOrNothing(q.points);
      break;
    }
    case 'short_text': {
      const cs = q.caseSensitive ?? false;
      decls.push({ id: resp, cardinality: 'single', baseType: 'string', correct: [q.acceptedAnswers[0]!], mapping: { entries: q.acceptedAnswers.map((a) => ({ key: a, value: q.points, caseSensitive: cs })) } });
      body += `<p><qti-text-entry-interaction response-identifier="${resp}"/></p>`;
      rp = template('map_response');
      break;
    }
    case 'numeric': {
      decls.push({ id: resp, cardinality: 'single', baseType: 'float', correct: [f(q.answer)] });
      body += `<p><qti-text-entry-interaction response-identifier="${resp}"/></p>`;
      rp = allOrNothing(q.points, q.tolerance ?? 0);
      break;
    }
    case 'essay': {
      decls.push({ id: resp, cardinality: 'single', baseType: 'string' });
      body += `<qti-extended-text-interaction response-identifier="${resp}"${q.maxWords ? ` data-max-words="${q.maxWords}"` : ''}/>`;
      body += rubricXml(q.rubric);
      break;
    }
    case 'file_upload': {
      decls.push({ id: resp, cardinality: 'single', baseType: 'file' });
      body += `<qti-upload-interaction response-identifier="${resp}" type="${esc(q.accept.join(' '))}"${q.maxBytes ? ` data-max-bytes="${q.maxBytes}"` : ''}/>`;
      body += rubricXml(q.rubric);
      break;
    }
    case 'matching': {
      const partial = q.partialCredit ?? true;
      const pairs = q.stems.map((s) => `${s.id} ${q.correct[s.id]}`);
      decls.push({
        id: resp,
        cardinality: 'multiple',
        baseType: 'directedPair',
        correct: pairs,
        ...(partial ? { mapping: { entries: pairs.map((p) => ({ key: p, value: q.points / q.stems.length })), upper: q.points } } : {}),
      });
      const set = (parts: Array<{ id: string; text: string }>, max: number) =>
        `<qti-simple-match-set>${parts.map((p) => `<qti-simple-associable-choice identifier="${esc(p.id)}" match-max="${max}">${esc(p.text)}</qti-simple-associable-choice>`).join('')}</qti-simple-match-set>`;
      body += `<qti-match-interaction response-identifier="${resp}" max-associations="${q.stems.length}" shuffle="false">${set(q.stems, 1)}${set(q.choices, q.stems.length)}</qti-match-interaction>`;
      rp = partial ? template('map_response') : allOrNothing(q.points);
      break;
    }
    case 'ordering': {
      decls.push({ id: resp, cardinality: 'ordered', baseType: 'identifier', correct: q.items.map((i) => i.id) });
      body += `<qti-order-interaction response-identifier="${resp}" shuffle="true">${q.items.map((i) => `<qti-simple-choice identifier="${esc(i.id)}">${esc(i.text)}</qti-simple-choice>`).join('')}</qti-order-interaction>`;
      if (q.partialCredit) {
        // Points × items in their correct place ÷ items: one condition per position.
        const w = q.points / q.items.length;
        rp =
          `  <qti-response-processing>\n    ${score(base('float', 0))}\n` +
          q.items
            .map(
              (item, i) =>
                `    <qti-response-condition><qti-response-if><qti-match><qti-index n="${i + 1}"><qti-variable identifier="${resp}"/></qti-index>${base('identifier', item.id)}</qti-match>` +
                `${score(`<qti-sum><qti-variable identifier="SCORE"/>${base('float', w)}</qti-sum>`)}</qti-response-if></qti-response-condition>\n`,
            )
            .join('') +
          `  </qti-response-processing>\n`;
      } else rp = allOrNothing(q.points);
      break;
    }
    case 'fill_blanks': {
      const w = q.points / q.blanks.length;
      const byId = new Map(q.blanks.map((b) => [b.id, b]));
      for (const b of q.blanks) {
        if (b.kind === 'text') {
          const cs = b.caseSensitive ?? false;
          decls.push({ id: b.id, cardinality: 'single', baseType: 'string', correct: [b.acceptedAnswers[0]!], mapping: { entries: b.acceptedAnswers.map((a) => ({ key: a, value: w, caseSensitive: cs })) } });
        } else {
          decls.push({ id: b.id, cardinality: 'single', baseType: 'identifier', correct: [b.correctOptionId], mapping: { entries: [{ key: b.correctOptionId, value: w }] } });
        }
      }
      const text = paragraphs(q.text).replace(/\{\{\s*([A-Za-z0-9_-]{1,64})\s*\}\}/g, (_m, id: string) => {
        const b = byId.get(id)!;
        return b.kind === 'text'
          ? `<qti-text-entry-interaction response-identifier="${esc(id)}"/>`
          : `<qti-inline-choice-interaction response-identifier="${esc(id)}">${b.options.map((o) => `<qti-inline-choice identifier="${esc(o.id)}">${esc(o.text)}</qti-inline-choice>`).join('')}</qti-inline-choice-interaction>`;
      });
      // One block for the text, so every paragraph of it stays in the text (blocks without a blank before it are the prompt).
      body += `<div>${text}</div>`;
      rp = `  <qti-response-processing>\n    ${score(`<qti-sum>${q.blanks.map((b) => `<qti-map-response identifier="${esc(b.id)}"/>`).join('')}</qti-sum>`)}\n  </qti-response-processing>\n`;
      break;
    }
  }
  const title = q.prompt.replace(ASSET_IMAGE, '$1').replace(/\s+/g, ' ').trim().slice(0, 80);
  return (
    HEAD +
    `<qti-assessment-item xmlns="${QTI3_NS}" xmlns:xsi="${XSI}" xsi:schemaLocation="${QTI3_NS} ${ASI_XSD}" identifier="${esc(q.id)}" title="${esc(title)}" adaptive="false" time-dependent="false">\n` +
    decls.map(declXml).join('') +
    `  <qti-outcome-declaration identifier="SCORE" cardinality="single" base-type="float"><qti-default-value><qti-value>0</qti-value></qti-default-value></qti-outcome-declaration>\n` +
    `  <qti-outcome-declaration identifier="MAXSCORE" cardinality="single" base-type="float"><qti-default-value><qti-value>${f(q.points)}</qti-value></qti-default-value></qti-outcome-declaration>\n` +
    `  <qti-item-body>${body}</qti-item-body>\n` +
    rp +
    `</qti-assessment-item>\n`
  );
}

function choiceXml(options: Array<{ id: string; text: string; fixed?: boolean }>, maxChoices: number, shuffle: boolean): string {
  return (
    `<qti-choice-interaction response-identifier="RESPONSE" max-choices="${maxChoices}" shuffle="${shuffle}">` +
    options.map((o) => `<qti-simple-choice identifier="${esc(o.id)}"${o.fixed ? ' fixed="true"' : ''}>${esc(o.text)}</qti-simple-choice>`).join('') +
    `</qti-choice-interaction>`
  );
}

function rubricXml(rubric: string | undefined): string {
  return rubric ? `<qti-rubric-block use="scoring" view="scorer"><qti-content-body>${paragraphs(rubric)}</qti-content-body></qti-rubric-block>` : '';
}
