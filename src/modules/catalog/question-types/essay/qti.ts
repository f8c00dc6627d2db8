import { promptOf, textIn, type Ctx } from '../../interchange/qti-item-context.js';
import type { Decl, TextWriter } from '../../interchange/qti-writer.js';
import { descendants, type XElement } from '../../interchange/xml.js';
import type { EssayQuestion } from './schema.js';

/**
 * An extended text interaction as an essay: its points the item's MAXSCORE
 * (else 1), the scorer's rubric blocks as its rubric, `data-max-words` as
 * the word limit. Written back the same way, with no response processing
 * (a person marks it).
 */
export function readEssay(ctx: Ctx, it: XElement): Omit<EssayQuestion, 'id'> {
  const blocks = descendants(ctx.item).filter((e) => e.name === 'qti-rubric-block');
  const rubric = blocks.map((b) => textIn(ctx, b)).filter(Boolean).join('\n\n') || undefined;
  const n = Number(it.attrs['data-max-words']);
  const maxWords = Number.isInteger(n) && n > 0 ? n : undefined;
  return { type: 'essay', prompt: promptOf(ctx, it), points: ctx.max ?? 1, ...(rubric ? { rubric } : {}), ...(maxWords && maxWords <= 100_000 ? { maxWords } : {}) };
}

export function writeEssay(q: EssayQuestion, resp: string, w: TextWriter): { decls: Decl[]; body: string; rp: string } {
  let body = w.block(q.prompt) + `<qti-extended-text-interaction response-identifier="${resp}"${q.maxWords ? ` data-max-words="${q.maxWords}"` : ''}/>`;
  if (q.rubric) body += `<qti-rubric-block use="scoring" view="scorer"><qti-content-body>${w.block(q.rubric)}</qti-content-body></qti-rubric-block>`;
  return { decls: [{ id: resp, cardinality: 'single', baseType: 'string' }], body, rp: '' };
}
