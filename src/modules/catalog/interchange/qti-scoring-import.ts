import { compileQtiProcessing, runQtiProcessing, QtiProcessingError, type CompiledQtiProcessing, type QtiData, type QtiDeclaration, type QtiScalar } from '../qti-processing/index.js';
import { scoringProblems } from '../qti-scoring.js';
import type { QuestionInput, QtiScoring } from '../schemas.js';
import { descendants, elements, esc, first, type XElement, type XNode } from './xml.js';
import { isPartId, round, type Ctx } from './qti-item-context.js';
import type { ResponseDeclaration } from './response-processing.js';

/**
 * An item whose response processing no native rule expresses (`custom`)
 * keeps it: the question is built from the item's declared correct
 * responses (its key, shown to reviewers and used by the sandbox), and
 * `scoring` holds the item's declarations and processing, which marking
 * runs. The XML kept is a faithful serialisation of the parsed elements, in
 * QTI 3.0 names (a 2.x item's `responseDeclaration` is written
 * `qti-response-declaration`), so an export writes it back into a valid 3.0
 * item. Refused, with the reason, when the interpreter cannot compile it,
 * when the answer cannot fill its responses, or when a choice, stem, item,
 * blank, hottext or hotspot identifier is not an Assay id (the answer
 * carries Assay's ids to the processing unchanged, so they must be the
 * item's).
 */
export function withItemScoring(ctx: Ctx, question: QuestionInput, interactions: XElement[]): QuestionInput | string {
  const renamed = renamedIdentifier(interactions, question.type === 'fill_blanks');
  if (renamed) return `the identifier "${renamed}" is not an Assay id ([A-Za-z0-9_-], at most 64), which a question that keeps its QTI processing needs`;
  const rp = first(ctx.item, 'qti-response-processing');
  if (!rp) return 'the item has no response processing';
  const scoring: QtiScoring = {
    format: 'qti',
    declarations: elements(ctx.item)
      .filter((e) => e.name === 'qti-response-declaration' || e.name === 'qti-outcome-declaration')
      .map(serialise)
      .join('\n'),
    responseProcessing: serialise(rp),
    // A composite question's parts follow its interactions, one each: each response names the part its interaction became.
    responses: interactions.map((it, k) => ({
      identifier: it.attrs['response-identifier'] ?? '',
      ...(question.type === 'composite' ? { partId: question.parts[k]!.id } : {}),
    })),
  };
  let compiled: CompiledQtiProcessing;
  try {
    compiled = compileQtiProcessing({ declarations: scoring.declarations, responseProcessing: scoring.responseProcessing });
  } catch (err) {
    if (err instanceof QtiProcessingError) return `the response processing cannot be run: ${err.message}`;
    throw err;
  }
  const points = ctx.max ?? bestScore(compiled, ctx.decls, { ...question, scoring } as QuestionInput);
  if (typeof points === 'string') return points;
  const scored = { ...question, points: round(points), scoring } as QuestionInput;
  const problems = scoringProblems(scored, 'question');
  if (problems.length > 0) return problems.map((p) => `${p.field.replace(/^question\./, '')} ${p.message}`).join('; ');
  return scored;
}

/** An identifier the question would carry under another name (not an Assay id, or repeated in its list); null when all are kept. */
function renamedIdentifier(interactions: XElement[], blanks: boolean): string | null {
  const CHOICES = new Set(['qti-simple-choice', 'qti-simple-associable-choice', 'qti-inline-choice', 'qti-gap-text', 'qti-gap-img', 'qti-hottext', 'qti-associable-hotspot']);
  const responses = new Set<string>();
  for (const it of interactions) {
    const id = it.attrs['response-identifier'] ?? '';
    if (blanks && (!isPartId(id) || responses.has(id))) return id;
    responses.add(id);
    const seen = new Set<string>();
    for (const c of descendants(it).filter((e) => CHOICES.has(e.name))) {
      const cid = c.attrs['identifier'] ?? '';
      if (!isPartId(cid) || seen.has(cid)) return cid;
      seen.add(cid);
    }
  }
  return null;
}

/**
 * Points when the item declares no MAXSCORE: the best score the processing
 * gives the item's correct responses (and, for a single choice or a
 * composite's single-choice part, any one choice in place of its own). A processing that gives them nothing leaves the points unknown,
 * and the item is skipped.
 */
function bestScore(compiled: CompiledQtiProcessing, decls: Map<string, ResponseDeclaration>, q: QuestionInput): number | string {
  const correct: Record<string, QtiData> = {};
  for (const d of compiled.responses) correct[d.identifier] = correctValue(d, decls.get(d.identifier)?.correct ?? []);
  const candidates = [correct];
  // A single choice's (or single-choice part's) options, each tried in place of the declared one.
  const choices: Array<{ identifier: string; options: Array<{ id: string }> }> = [];
  if (q.type === 'single_choice') choices.push({ identifier: compiled.responses[0]!.identifier, options: q.options });
  if (q.type === 'composite') {
    for (const r of q.scoring?.responses ?? []) {
      const part = q.parts.find((p) => p.id === r.partId);
      if (part?.type === 'single_choice') choices.push({ identifier: r.identifier, options: part.options });
    }
  }
  for (const c of choices) for (const o of c.options) candidates.push({ ...correct, [c.identifier]: o.id });
  let best = 0;
  for (const c of candidates) {
    try {
      best = Math.max(best, runQtiProcessing(compiled, c).score);
    } catch (err) {
      if (!(err instanceof QtiProcessingError)) throw err;
      return `the response processing cannot be run on the correct response: ${err.message}`;
    }
  }
  if (!(best > 0)) return 'the item declares no MAXSCORE and its correct response scores no points, so its points are unknown';
  return best;
}

/** A declared correct response as a QTI value of its declaration's kind (NULL when none is declared). */
function correctValue(d: QtiDeclaration, values: string[]): QtiData {
  const one = (v: string): QtiScalar => {
    switch (d.baseType) {
      case 'integer':
      case 'float':
      case 'duration':
        return Number(v);
      case 'boolean':
        return v === 'true' || v === '1';
      case 'pair':
      case 'directedPair': {
        const [a = '', b = ''] = v.split(/\s+/);
        return [a, b];
      }
      case 'point': {
        const [x = 0, y = 0] = v.split(/\s+/).map(Number);
        return [x, y];
      }
      default:
        return v;
    }
  };
  const list = values.map(one);
  if (list.length === 0) return null;
  return d.cardinality === 'single' ? list[0]! : list;
}

/** An element as XML text: names and attributes as parsed, text and attribute values escaped. */
export function serialise(el: XElement): string {
  const attrs = Object.entries(el.attrs)
    .filter(([k]) => k !== 'xmlns' && !k.startsWith('xmlns:'))
    .map(([k, v]) => ` ${k}="${esc(v)}"`)
    .join('');
  if (el.children.length === 0) return `<${el.name}${attrs}/>`;
  return `<${el.name}${attrs}>${el.children.map((c: XNode) => (typeof c === 'string' ? esc(c) : serialise(c))).join('')}</${el.name}>`;
}
