import type { ErrorDetail } from '../../platform/errors.js';
import { compileQtiProcessing, QtiProcessingError, type CompiledQtiProcessing, type QtiDeclaration } from './qti-processing/index.js';
import type { CompositePart, Question, QuestionInput } from './schemas.js';

/**
 * Questions that keep their imported QTI response processing (`scoring`):
 * which response declarations an answer of each question type can fill, and
 * the authoring check that the stored processing compiles and that every
 * declaration is filled by the answer in a shape that fits it. Marking
 * (marking/qti-responses.ts) converts answers by the same shapes, so a
 * question that passes here always gets a response of its declared kind.
 */

/** The question types that may carry `scoring`. */
export type ScorableQuestion = Extract<Question, { scoring?: unknown }>;

/** The cardinality and base types a response filled by this question's answer may be declared with. */
export interface ResponseShape {
  /** One cardinality, or those the answer fits alike (a select_point answer of one point fills a single or a multiple point response). */
  cardinality: QtiDeclaration['cardinality'] | ReadonlyArray<QtiDeclaration['cardinality']>;
  baseTypes: ReadonlyArray<NonNullable<QtiDeclaration['baseType']>>;
  /** What the answer gives, in the error message. */
  what: string;
}

const SHAPES: Record<Exclude<ScorableQuestion['type'], 'fill_blanks' | 'composite' | 'hotspot' | 'hot_text' | 'associate' | 'select_point'>, ResponseShape> = {
  single_choice: { cardinality: 'single', baseTypes: ['identifier'], what: 'one option id' },
  multiple_choice: { cardinality: 'multiple', baseTypes: ['identifier'], what: 'a set of option ids' },
  short_text: { cardinality: 'single', baseTypes: ['string'], what: 'one text' },
  numeric: { cardinality: 'single', baseTypes: ['float', 'integer'], what: 'one number' },
  ordering: { cardinality: 'ordered', baseTypes: ['identifier'], what: 'the item ids in order' },
  // Import maps a match interaction's first set to stems and its second to choices, each pair "stem choice".
  matching: { cardinality: 'multiple', baseTypes: ['directedPair'], what: 'a set of (stem, choice) pairs' },
  graphic_order: { cardinality: 'ordered', baseTypes: ['identifier'], what: 'the region ids in order' },
  slider: { cardinality: 'single', baseTypes: ['float', 'integer'], what: 'one number' },
};
// A hotspot with one region to choose gives one id, as a single choice does.
const ONE_REGION: ResponseShape = { cardinality: 'single', baseTypes: ['identifier'], what: 'one region id' };
const REGIONS: ResponseShape = { cardinality: 'multiple', baseTypes: ['identifier'], what: 'a set of region ids' };
// One pick allowed: the answer is one value, which a single response holds and a multiple one holds as a container of one.
const ONE_OR_MORE = ['single', 'multiple'] as const;
const hotText = (one: boolean): ResponseShape => ({ cardinality: one ? ONE_OR_MORE : 'multiple', baseTypes: ['identifier'], what: one ? 'one hotspot id' : 'a set of hotspot ids' });
const pairs = (one: boolean): ResponseShape => ({ cardinality: one ? ONE_OR_MORE : 'multiple', baseTypes: ['pair'], what: one ? 'one unordered pair of item ids' : 'a set of unordered pairs of item ids' });
const points = (one: boolean): ResponseShape => ({ cardinality: one ? ONE_OR_MORE : 'multiple', baseTypes: ['point'], what: one ? 'one point' : 'a set of points' });
const TEXT_BLANK: ResponseShape = { cardinality: 'single', baseTypes: ['string', 'float', 'integer'], what: "a text blank's text" };
const CHOICE_BLANK: ResponseShape = { cardinality: 'single', baseTypes: ['identifier'], what: "a choice blank's option id" };

/**
 * The shape each response of the question (or of one composite part) must
 * have, by response identifier; for fill_blanks, the blank of the same id.
 * A composite question has no shape of its own: each response takes its
 * part's (`partId`).
 */
export function responseShape(q: QuestionInput | CompositePart, identifier: string): ResponseShape | null {
  if (q.type === 'fill_blanks') {
    const blank = q.blanks.find((b) => b.id === identifier);
    return blank ? (blank.kind === 'text' ? TEXT_BLANK : CHOICE_BLANK) : null;
  }
  if (q.type === 'hotspot') return q.maxChoices === 1 ? ONE_REGION : REGIONS;
  if (q.type === 'hot_text') return hotText(q.maxChoices === 1);
  if (q.type === 'associate') return pairs(q.maxAssociations === 1);
  if (q.type === 'select_point') return points(q.maxPoints === 1);
  return q.type in SHAPES ? SHAPES[q.type as keyof typeof SHAPES] : null;
}

/** The compiled processing of a stored question (cached by text in the interpreter, so this is cheap per answer). */
export function compiledScoring(q: ScorableQuestion): CompiledQtiProcessing | null {
  if (!q.scoring) return null;
  return compileQtiProcessing({ declarations: q.scoring.declarations, responseProcessing: q.scoring.responseProcessing });
}

const describe = (d: QtiDeclaration) => `${d.cardinality}${d.baseType ? ` ${d.baseType}` : ''}`;
const cardinalities = (s: ResponseShape): ReadonlyArray<QtiDeclaration['cardinality']> => (typeof s.cardinality === 'string' ? [s.cardinality] : s.cardinality);

/**
 * Checks a question's `scoring` (at `at`): the processing compiles (else the
 * interpreter's reason), `responses` names every response declaration once
 * and nothing else, each response fits what the question's answer gives,
 * and `partId` appears only on composite questions, where every response
 * names a part, takes that part's shape (a fill_blanks part's responses are
 * named by its blank ids, as a fill_blanks question's are) and every part is
 * filled. Returns the problems.
 */
export function scoringProblems(q: QuestionInput, at: string): ErrorDetail[] {
  if (!('scoring' in q) || !q.scoring) return [];
  const scoring = q.scoring;
  const out: ErrorDetail[] = [];
  let compiled: CompiledQtiProcessing;
  try {
    compiled = compileQtiProcessing({ declarations: scoring.declarations, responseProcessing: scoring.responseProcessing });
  } catch (err) {
    if (!(err instanceof QtiProcessingError)) throw err;
    return [{ field: `${at}.scoring`, message: `the QTI processing cannot be run: ${err.message}` }];
  }
  if (!compiled.outcomes.some((o) => o.identifier === 'SCORE')) {
    out.push({ field: `${at}.scoring.declarations`, message: 'declares no SCORE outcome, so the processing gives no mark' });
  }
  if ('aiMarking' in q && q.aiMarking) out.push({ field: `${at}.aiMarking`, message: 'cannot be set on a question marked by its QTI processing' });
  const declared = new Map(compiled.responses.map((d) => [d.identifier, d]));
  const parts = q.type === 'composite' ? new Map(q.parts.map((p) => [p.id, p])) : null;
  const seen = new Set<string>();
  const perPart = new Map<string, number>();
  scoring.responses.forEach((r, j) => {
    const field = `${at}.scoring.responses.${j}`;
    let target: QuestionInput | CompositePart | undefined = q;
    if (parts) {
      target = r.partId === undefined ? undefined : parts.get(r.partId);
      if (r.partId === undefined) out.push({ field: `${field}.partId`, message: "is required: a composite question's response names the part whose answer fills it" });
      else if (!target) out.push({ field: `${field}.partId`, message: `"${r.partId}" is not a part of this question` });
      else perPart.set(r.partId, (perPart.get(r.partId) ?? 0) + 1);
    } else if (r.partId !== undefined) out.push({ field: `${field}.partId`, message: 'names a part, but only a composite question has parts' });
    const decl = declared.get(r.identifier);
    if (seen.has(r.identifier)) out.push({ field: `${field}.identifier`, message: `repeats "${r.identifier}"` });
    seen.add(r.identifier);
    if (!decl) {
      out.push({ field: `${field}.identifier`, message: `"${r.identifier}" is not a response declared in scoring.declarations` });
      return;
    }
    if (!target) return;
    const whose = parts ? `part "${r.partId}"` : 'this question';
    const shape = responseShape(target, r.identifier);
    if (!shape) {
      out.push({ field: `${field}.identifier`, message: `"${r.identifier}" names no blank of ${whose} (a fill_blanks response is named by its blank's id)` });
      return;
    }
    if (!cardinalities(shape).includes(decl.cardinality) || decl.baseType === null || !shape.baseTypes.includes(decl.baseType)) {
      out.push({
        field: `${field}.identifier`,
        message: `"${r.identifier}" is declared ${describe(decl)}, but a ${target.type} answer${parts ? ` (${whose})` : ''} gives ${shape.what} (${cardinalities(shape).join(' or ')} ${shape.baseTypes.join(' or ')})`,
      });
    }
  });
  for (const d of compiled.responses) {
    if (!seen.has(d.identifier)) out.push({ field: `${at}.scoring.responses`, message: `does not map the declared response "${d.identifier}"` });
  }
  if (q.type === 'composite') {
    q.parts.forEach((p, k) => {
      const n = perPart.get(p.id) ?? 0;
      // A part no response reads would be answered for nothing; a part other than fill_blanks gives one value.
      if (n === 0) out.push({ field: `${at}.scoring.responses`, message: `maps no response to part "${p.id}", so its answer would not count` });
      if (n > 1 && p.type !== 'fill_blanks') out.push({ field: `${at}.scoring.responses`, message: `maps ${n} responses to part "${p.id}", but a ${p.type} answer fills one` });
      if ('scoring' in p && p.scoring) out.push({ field: `${at}.parts.${k}.scoring`, message: "cannot be set on a part: the question's scoring marks every part" });
    });
  } else if (q.type !== 'fill_blanks' && scoring.responses.length > 1) {
    out.push({ field: `${at}.scoring.responses`, message: `a ${q.type} answer fills one response, not ${scoring.responses.length}` });
  }
  return out;
}
