import type { BuiltInQuestion, Question } from '../schemas.js';
import type { BaseQuestion } from '../question-types/definition.js';
import { questionType } from '../question-types/registry.js';
import { exactWeights } from './exact-weights.js';
import { MARKDOWN_CLASS } from './markdown-xhtml.js';
import { ASI_XSD, declXml, f, HEAD, QTI3_NS, score, template, XSI, type Decl, type TextWriter } from './qti-writer.js';
import { esc } from './xml.js';
import { printedVariables, templateXml } from '../question-types/parameters/qti-template.js';

/**
 * One question as a QTI 3.0 item file: its response declarations, the SCORE
 * and MAXSCORE outcomes, the item body (prompt and interaction, or a
 * composite's parts) and response processing in the forms the importer
 * (response-processing.ts) reads back; a question that keeps its imported
 * processing (`scoring`) with its declarations and processing as stored.
 * The package around the items is qti-export.ts.
 */
// The namespaces and writers are qti-writer.ts's; they were exported from here before, and still are.
export { ASI_XSD, ASSET_IMAGE, HEAD, MARKDOWN, PLAIN, QTI3_NS, RP_TEMPLATES, XSI, type TextWriter } from './qti-writer.js';

export function itemXml(q: Question, w: TextWriter): string {
  // A question that keeps its imported processing keeps its response's name, which that processing reads.
  // A fill_blanks question's responses are its blanks', named by their ids: no prefix (question-types/fill-blanks/qti.ts).
  const kept = 'scoring' in q ? q.scoring : undefined;
  const resp = q.type === 'fill_blanks' ? '' : kept ? kept.responses[0]!.identifier : 'RESPONSE';
  const { decls, body, rp } = q.type === 'composite' ? compositeXml(q, w, kept?.responses) : interactionXml(q, resp, w);
  // A parametrised question's `{name}`s are printed variables, drawn by its template processing.
  return itemFile(q, w, decls, printedVariables(body, q), rp, kept, templateXml(q, resp));
}

/**
 * A composite question: its prompt, then each part's prompt and interaction
 * under the part's id as response identifier, and response processing that
 * adds each part's points to SCORE by that part's own rule (the forms
 * qti-composite.ts reads back). A fill_blanks part's blanks are declared as
 * `<partId>_<blankId>`. A question that keeps its imported processing
 * (`kept`, its `scoring.responses`) names each part's interaction by the
 * response its processing reads for that part, and a fill_blanks part's
 * blanks by their own ids, as they are mapped; the declarations and
 * processing written are then the stored ones (itemFile).
 */
function compositeXml(
  q: Extract<Question, { type: 'composite' }>,
  w: TextWriter,
  kept?: ReadonlyArray<{ identifier: string; partId?: string }>,
): { decls: Decl[]; body: string; rp: string } {
  const decls: Decl[] = [];
  let body = w.block(q.prompt);
  const rules: string[] = [];
  const keptResponse = new Map((kept ?? []).map((r) => [r.partId, r.identifier]));
  for (const part of q.parts) {
    const shown = { ...part, id: part.id } as Question;
    // A fill_blanks part's blanks are `<partId>_<blankId>`, or under kept processing their own ids (its write takes the prefix, empty for none).
    const keptName = part.type === 'fill_blanks' ? '' : (keptResponse.get(part.id) ?? part.id);
    const one = interactionXml(shown, kept ? keptName : part.id, w);
    decls.push(...one.decls);
    body += `<div class="part">${one.body}</div>`;
    rules.push(...summedRules(shown, part.id));
  }
  return { decls, body, rp: `  <qti-response-processing>\n${rules.map((r) => `    ${r}\n`).join('')}  </qti-response-processing>\n` };
}

/** SCORE = SCORE + this part's points by its own rule (one statement, or one per position for ordering partial credit). */
function summedRules(question: Question, resp: string): string[] {
  const def = questionType(question.type);
  if (def) return def.qti?.summed?.(question as BaseQuestion, resp) ?? [];
  // A composite is never a part.
  return [];
}

/**
 * One question's declarations, body (prompt and interaction) and standalone
 * response processing, its response named `resp` (a fill_blanks question's
 * blanks are named by their ids, prefixed with `resp_` when `resp` is given).
 */
function interactionXml(question: Question, resp: string, w: TextWriter): { decls: Decl[]; body: string; rp: string } {
  const def = questionType(question.type);
  if (def?.qti) return def.qti.write(question as BaseQuestion, resp, w);
  // A registered type without a QTI form: its prompt and a note, no interaction (it is never imported back).
  if (def) return { decls: [], body: `${w.block(question.prompt)}<p>${esc(`(${def.label}: this question type has no QTI form, so only its prompt is exported.)`)}</p>`, rp: '' };
  const q = question as BuiltInQuestion;
  const decls: Decl[] = [];
  let body = w.block(q.prompt);
  let rp = '';
  switch (q.type) {
    case 'composite':
      // Parts are written by compositeXml; a part is never composite.
      break;
  }
  return { decls, body, rp };
}

function itemFile(
  q: Question,
  w: TextWriter,
  decls: Decl[],
  body: string,
  rp: string,
  kept: { declarations: string; responseProcessing: string } | undefined,
  templates = '',
): string {
  const title = w.title(q.prompt).replace(/\s+/g, ' ').trim().slice(0, 80);
  return (
    HEAD +
    `<qti-assessment-item xmlns="${QTI3_NS}" xmlns:xsi="${XSI}" xsi:schemaLocation="${QTI3_NS} ${ASI_XSD}" identifier="${esc(q.id)}" title="${esc(title)}" adaptive="false" time-dependent="false">\n` +
    (kept ? `  ${kept.declarations}\n` : declarations(decls, q.points)) +
    templates +
    `  <qti-item-body${w.markdown ? ` class="${MARKDOWN_CLASS}"` : ''}>${body}</qti-item-body>\n` +
    (kept ? `  ${kept.responseProcessing}\n` : rp) +
    `</qti-assessment-item>\n`
  );
}

/** The generated declarations: each response's, then SCORE and MAXSCORE (the question's points). */
function declarations(decls: Decl[], points: number): string {
  return (
    decls.map(declXml).join('') +
    `  <qti-outcome-declaration identifier="SCORE" cardinality="single" base-type="float"><qti-default-value><qti-value>0</qti-value></qti-default-value></qti-outcome-declaration>\n` +
    `  <qti-outcome-declaration identifier="MAXSCORE" cardinality="single" base-type="float"><qti-default-value><qti-value>${f(points)}</qti-value></qti-default-value></qti-outcome-declaration>\n`
  );
}

