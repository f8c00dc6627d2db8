import type { Passage } from '../schemas.js';
import { esc } from './xml.js';

/**
 * Passages in an exported package (docs/import-export.md "Passages"): each
 * a `qti-assessment-stimulus` file of its own (passages/{id}.xml), named by
 * every item that shows it with a `qti-assessment-stimulus-ref`, listed in
 * the manifest as a resource on which those items depend.
 */
export const stimulusPath = (p: Passage) => `passages/${p.id}.xml`;
export const stimulusResourceId = (p: Passage) => `STIMULUS-${p.id}`;
export const STIMULUS_TYPE = 'imsqti_stimulus_xmlv3p0';

/** The stimulus document; `body` is the passage's text already written as XHTML (the exporter's paragraphs). */
export function stimulusXml(p: Passage, body: string, ns: { qti: string; xsi: string; xsd: string }): string {
  return (
    '<?xml version="1.0" encoding="UTF-8"?>\n' +
    `<qti-assessment-stimulus xmlns="${ns.qti}" xmlns:xsi="${ns.xsi}" xsi:schemaLocation="${ns.qti} ${ns.xsd}" identifier="${esc(p.id)}" title="${esc(p.title ?? '')}">\n` +
    `  <qti-stimulus-body>${body}</qti-stimulus-body>\n` +
    `</qti-assessment-stimulus>\n`
  );
}

/** The reference an item carries; it goes before the item body, as the QTI 3.0 schema orders an item's parts. */
export function stimulusRefXml(p: Passage): string {
  return `  <qti-assessment-stimulus-ref identifier="${esc(p.id)}" href="../${esc(stimulusPath(p))}"${p.title ? ` title="${esc(p.title)}"` : ''}/>\n`;
}

/** Puts the reference into an item document written without it. */
export function withStimulusRef(itemXml: string, p: Passage): string {
  return itemXml.replace(/^ {2}<qti-item-body[ >]/m, (body) => `${stimulusRefXml(p)}${body}`);
}
