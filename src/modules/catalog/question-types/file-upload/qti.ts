import { promptOf, textIn, type Ctx } from '../../interchange/qti-item-context.js';
import type { Decl, TextWriter } from '../../interchange/qti-writer.js';
import { esc, descendants, type XElement } from '../../interchange/xml.js';
import { UPLOAD_MAX_BYTES, type FileUploadQuestion } from './schema.js';

/**
 * An upload interaction as a file_upload question: its `type` attribute's
 * MIME types (PDF and images when it names none, with a note), its points
 * the item's MAXSCORE (else 1), `data-max-bytes` as the size limit, the
 * scorer's rubric blocks as its rubric. Written back the same way, with no
 * response processing (a person marks it).
 */
export function readUpload(ctx: Ctx, it: XElement): Omit<FileUploadQuestion, 'id'> {
  const blocks = descendants(ctx.item).filter((e) => e.name === 'qti-rubric-block');
  const rubric = blocks.map((b) => textIn(ctx, b)).filter(Boolean).join('\n\n') || undefined;
  const types = (it.attrs['type'] ?? '').split(/[\s,]+/).map((t) => t.trim().toLowerCase()).filter((t) => /^[a-z0-9][a-z0-9!#$&^_.+-]*\/(\*|[a-z0-9][a-z0-9!#$&^_.+-]*)$/.test(t));
  if (types.length === 0) ctx.notes.push('no accepted file type given: PDF and images are accepted');
  const n = Number(it.attrs['data-max-bytes']);
  const maxBytes = Number.isInteger(n) && n > 0 ? n : undefined;
  return {
    type: 'file_upload',
    prompt: promptOf(ctx, it),
    points: ctx.max ?? 1,
    accept: types.length > 0 ? [...new Set(types)].slice(0, 20) : ['application/pdf', 'image/*'],
    ...(maxBytes && maxBytes <= UPLOAD_MAX_BYTES ? { maxBytes } : {}),
    ...(rubric ? { rubric } : {}),
  };
}

export function writeUpload(q: FileUploadQuestion, resp: string, w: TextWriter): { decls: Decl[]; body: string; rp: string } {
  let body = w.block(q.prompt) + `<qti-upload-interaction response-identifier="${resp}" type="${esc(q.accept.join(' '))}"${q.maxBytes ? ` data-max-bytes="${q.maxBytes}"` : ''}/>`;
  if (q.rubric) body += `<qti-rubric-block use="scoring" view="scorer"><qti-content-body>${w.block(q.rubric)}</qti-content-body></qti-rubric-block>`;
  return { decls: [{ id: resp, cardinality: 'single', baseType: 'file' }], body, rp: '' };
}
