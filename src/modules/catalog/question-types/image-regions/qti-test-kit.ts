import type { Ctx } from '../../interchange/qti-item-context.js';
import { ASI_XSD, declXml, HEAD, PLAIN, QTI3_NS, XSI } from '../../interchange/qti-writer.js';
import { maxScore, readDeclarations, readProcessing } from '../../interchange/response-processing.js';
import { descendants, first, parseXml } from '../../interchange/xml.js';
import type { BaseQuestion, QtiMapping } from '../definition.js';

/**
 * For the image types' tests: an item file as the export writes it from a
 * mapping's `write` (the image pointed at the package's file, as
 * qti-export.ts does), and an item read back through a mapping's `read` with
 * each image stored as `asset:<assetId>` (as the import's asset sink does).
 */
export function itemFileOf<Q extends BaseQuestion>(mapping: QtiMapping<Q>, q: Q): string {
  const { decls, body, rp } = mapping.write(q, 'RESPONSE', PLAIN);
  const xml =
    HEAD +
    `<qti-assessment-item xmlns="${QTI3_NS}" xmlns:xsi="${XSI}" xsi:schemaLocation="${QTI3_NS} ${ASI_XSD}" identifier="${q.id}" title="t" adaptive="false" time-dependent="false">\n` +
    decls.map(declXml).join('') +
    `  <qti-outcome-declaration identifier="SCORE" cardinality="single" base-type="float"><qti-default-value><qti-value>0</qti-value></qti-default-value></qti-outcome-declaration>\n` +
    `  <qti-outcome-declaration identifier="MAXSCORE" cardinality="single" base-type="float"><qti-default-value><qti-value>${q.points}</qti-value></qti-default-value></qti-outcome-declaration>\n` +
    `  <qti-item-body>${body}</qti-item-body>\n${rp}</qti-assessment-item>\n`;
  return xml.replace(/<img src="asset:(ast_[A-Za-z0-9_-]+)"/g, '<img src="../assets/$1.png"');
}

export function readItemWith<Q extends BaseQuestion>(mapping: QtiMapping<Q>, xml: string, assetId = 'ast_stored1'): { question: Omit<Q, 'id'> | string; notes: string[] } {
  const item = parseXml(xml, 'item.xml');
  const body = first(item, 'qti-item-body')!;
  const decls = readDeclarations(item);
  const rp = readProcessing(item, [...decls.keys()].filter((k) => k !== ''));
  const it = descendants(body).find((e) => mapping.interactions.includes(e.name));
  if (!it) throw new Error('no interaction of the mapping in the item');
  const notes: string[] = [];
  const ctx: Ctx = {
    item,
    body,
    decls,
    rp,
    max: maxScore(item),
    title: item.attrs['title'] ?? '',
    notes,
    imageInline: (e) => (e.name === 'img' || e.name === 'object' ? `![${e.attrs['alt'] ?? ''}](asset:${assetId})` : undefined),
    markdown: false,
    problems: [],
  };
  return { question: mapping.read(ctx, it), notes };
}
