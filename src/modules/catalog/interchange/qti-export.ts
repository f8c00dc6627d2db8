import type { ContentFormat } from '../content/content-format.js';
import type { Passage, Question, SectionInput } from '../schemas.js';
import { STIMULUS_TYPE, stimulusPath, stimulusResourceId, stimulusXml, withStimulusRef } from './qti-export-passages.js';
import { FLAT_SECTION_ID } from '../sections.js';
import { ASI_XSD, ASSET_IMAGE, HEAD, itemXml, MARKDOWN, PLAIN, QTI3_NS, RP_TEMPLATES, XSI, type TextWriter } from './qti-export-items.js';
import { esc } from './xml.js';
import type { BaseQuestion } from '../question-types/definition.js';
import { questionType } from '../question-types/registry.js';
import { writeZip } from './zip.js';

/**
 * A test as a QTI 3.0 content package: imsmanifest.xml, one item file per
 * question (response declaration, outcome declarations, item body and
 * response processing), and the assessment test with its sections,
 * selection and ordering. Scoring uses the standard templates where they
 * give Assay's points exactly (match_correct for a 1-point all-or-nothing
 * item, map_response for mapped partial credit); otherwise the response
 * processing is written out in QTI's own expressions, in the forms the
 * importer (response-processing.ts) reads back. A question that keeps its
 * imported QTI processing (`scoring`) is written with its declarations and
 * processing as stored instead. docs/import-export.md.
 */
export { QTI3_NS, RP_TEMPLATES };
export const CP_NS = 'http://www.imsglobal.org/xsd/qti/qtiv3p0/imscp_v1p1';

export interface ExportableTest {
  testId: string;
  title: string;
  durationMinutes: number;
  questions?: Question[];
  sections?: Array<SectionInput & { id: string }>;
  passages?: Passage[];
  /** `markdown`: every text is written as XHTML, formulas as MathML (markdown-xhtml.ts); plain (the default) as escaped paragraphs. */
  contentFormat?: ContentFormat;
  /** The language the texts are written in, when the test declares one: written as `xml:lang` on the test, each item and each stimulus. */
  language?: string | null;
}

/** A document with `xml:lang` on its root QTI element (the test, an item, a stimulus); unchanged without a language. */
function withLanguage(xml: string, language: string | null | undefined): string {
  if (!language) return xml;
  return xml.replace(/<(qti-assessment-(?:test|item|stimulus)) /, (_m, name: string) => `<${name} xml:lang="${esc(language)}" `);
}

/** An image a question shows (`![alt](asset:ast_…)`), to be written into the package. */
export interface ExportAsset {
  contentType: string;
  bytes: Uint8Array;
}

const EXT: Record<string, string> = { 'image/png': 'png', 'image/jpeg': 'jpg', 'image/gif': 'gif', 'image/webp': 'webp', 'image/svg+xml': 'svg' };
/** The asset ids that the test's texts show (ASSET_IMAGE: the alt text cannot hold "]"; the importer writes none) and the question types' own images (`assets`). */
export function assetIdsOf(test: ExportableTest): string[] {
  const questions = [...(test.questions ?? []), ...(test.sections ?? []).flatMap((s) => s.questions)] as Question[];
  const own = questions.flatMap((q) => [q, ...(q.type === 'composite' ? q.parts : [])]).flatMap((q) => questionType(q.type)?.assets?.(q as BaseQuestion) ?? []);
  return [...new Set([...[...JSON.stringify(test).matchAll(ASSET_IMAGE)].map((m) => m[2]!), ...own.map(([, id]) => id)])];
}

/**
 * A test as a QTI 3.0 package; `assets` holds the images its texts show
 * (assetIdsOf), each written as assets/{id}.{ext} and shown with <img> in
 * the items. An image that `assets` lacks is written as its alt text.
 */
export function exportQti3(test: ExportableTest, assets: Map<string, ExportAsset> = new Map()): Uint8Array {
  const sections = test.sections ?? [{ id: FLAT_SECTION_ID, title: '', shuffleQuestions: false, questions: test.questions ?? [] }];
  const files: Array<{ path: string; data: string }> = [];
  const itemRefs: Array<{ id: string; path: string; assets: string[]; type?: string; dependsOn?: string }> = [];
  const written = new Map<string, string>();
  const w = test.contentFormat === 'markdown' ? MARKDOWN : PLAIN;
  const fileOf = (id: string, used: string[]): string | null => {
    const asset = assets.get(id);
    if (!asset) return null;
    const file = `assets/${id}.${EXT[asset.contentType] ?? 'bin'}`;
    written.set(id, file);
    if (!used.includes(file)) used.push(file);
    return file;
  };
  const withImages = (xml: string, used: string[]) =>
    xml
      .replace(ASSET_IMAGE, (_m, alt: string, id: string) => {
        const file = fileOf(id, used);
        return file ? `<img src="../${file}" alt="${alt}"/>` : alt;
      })
      // A registered type's own image (a graphic interaction's object) written as `data="asset:ast_…"` or `src="…"`.
      .replace(/\b(data|src)="asset:(ast_[A-Za-z0-9_-]+)"/g, (m, attr: string, id: string) => {
        const file = fileOf(id, used);
        return file ? `${attr}="../${file}"` : m;
      });
  const passages = new Map((test.passages ?? []).map((p) => [p.id, p]));
  const stimuli: typeof itemRefs = [];
  for (const p of passages.values()) {
    const used: string[] = [];
    const data = withLanguage(withImages(stimulusXml(p, w.block(p.text), { qti: QTI3_NS, xsi: XSI, xsd: ASI_XSD }), used), test.language);
    files.push({ path: stimulusPath(p), data });
    stimuli.push({ id: stimulusResourceId(p), path: stimulusPath(p), assets: used, type: STIMULUS_TYPE });
  }
  for (const s of sections) {
    for (const q of s.questions as Question[]) {
      const path = `items/${q.id}.xml`;
      const used: string[] = [];
      const passage = q.passageId !== undefined ? passages.get(q.passageId) : undefined;
      const data = withLanguage(withImages(passage ? withStimulusRef(itemXml(q, w), passage) : itemXml(q, w), used), test.language);
      files.push({ path, data });
      itemRefs.push({ id: q.id, path, assets: used, ...(passage ? { dependsOn: stimulusResourceId(passage) } : {}) });
    }
  }
  const testPath = 'assessment-test.xml';
  const testXml = withLanguage(assessmentTestXml(test, sections, !test.sections, w), test.language);
  const manifest = manifestXml(test.testId, testPath, [...itemRefs, ...stimuli], itemRefs);
  const images = [...written].map(([id, path]) => ({ path, data: assets.get(id)!.bytes }));
  return writeZip([{ path: 'imsmanifest.xml', data: manifest }, { path: testPath, data: testXml }, ...files, ...images]);
}


type ManifestResource = { id: string; path: string; assets: string[]; type?: string; dependsOn?: string };

/** `resources`: the items and stimuli, each with its files (and an item's stimulus as a dependency); the test depends on `items`. */
function manifestXml(testId: string, testPath: string, resources: ManifestResource[], items: ManifestResource[]): string {
  const res = resources
    .map(
      (i) =>
        `    <resource identifier="${esc(i.id)}" type="${i.type ?? 'imsqti_item_xmlv3p0'}" href="${esc(i.path)}">\n      <file href="${esc(i.path)}"/>\n` +
        i.assets.map((a) => `      <file href="${esc(a)}"/>\n`).join('') +
        (i.dependsOn ? `      <dependency identifierref="${esc(i.dependsOn)}"/>\n` : '') +
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

function assessmentTestXml(test: ExportableTest, sections: Array<SectionInput & { id: string }>, flat: boolean, w: TextWriter): string {
  const secs = sections
    .map((s) => {
      const qs = s.questions as Question[];
      return (
        `      <qti-assessment-section identifier="${esc(s.id)}" title="${esc(flat ? 'Questions' : s.title)}" visible="${flat ? 'false' : 'true'}">\n` +
        (s.draw !== undefined ? `        <qti-selection select="${s.draw}"/>\n` : '') +
        (s.shuffleQuestions ? `        <qti-ordering shuffle="true"/>\n` : '') +
        (s.instructions ? `        <qti-rubric-block view="candidate" use="instructions"><qti-content-body>${w.block(s.instructions)}</qti-content-body></qti-rubric-block>\n` : '') +
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
