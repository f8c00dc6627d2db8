import { AppError } from '../../../platform/errors.js';
import { elements, parseXml, type XElement } from '../interchange/xml.js';
import { compileRules } from './compile.js';
import { readDeclarations } from './declarations.js';
import { evaluate } from './evaluate.js';
import { STANDARD_TEMPLATES, standardTemplate } from './templates.js';
import {
  QTI_PROCESSING_LIMITS,
  QtiProcessingError,
  type CompiledQtiProcessing,
  type Program,
  type QtiData,
  type QtiDeclaration,
  type QtiScalar,
  type QtiScoringSource,
} from './types.js';
import { coerceScalar, normalise } from './values.js';

/**
 * QTI response processing, interpreted: an item's declarations and
 * response processing (QTI 3.0 kebab-case or 2.x camelCase) are compiled
 * once into a tree of plain data and walked per answer by a bounded
 * evaluator. Nothing from a file is ever run as code; patterns run on RE2.
 */
export type {
  CompiledQtiProcessing,
  QtiBaseType,
  QtiCardinality,
  QtiData,
  QtiDeclaration,
  QtiScalar,
  QtiScoringSource,
} from './types.js';
export { QTI_PROCESSING_LIMITS, QtiProcessingError } from './types.js';

const programs = new WeakMap<CompiledQtiProcessing, Program>();
const cache = new Map<string, CompiledQtiProcessing>();
const CACHE_SIZE = 500;

/** Parses and checks (limits, known elements, declared identifiers); cached by text, so calling it per answer is cheap. */
export function compileQtiProcessing(source: QtiScoringSource): CompiledQtiProcessing {
  const key = `${source.declarations}\u0000${source.responseProcessing}`;
  const hit = cache.get(key);
  if (hit) {
    cache.delete(key);
    cache.set(key, hit);
    return hit;
  }
  const compiled = compile(source);
  if (cache.size >= CACHE_SIZE) cache.delete(cache.keys().next().value!);
  cache.set(key, compiled);
  return compiled;
}

function compile(source: QtiScoringSource): CompiledQtiProcessing {
  const size = source.declarations.length + source.responseProcessing.length;
  if (size > QTI_PROCESSING_LIMITS.sourceChars) throw new QtiProcessingError(`is longer than ${QTI_PROCESSING_LIMITS.sourceChars.toLocaleString('en-US')} characters`);
  const decls = parse(`<qti-declarations>${source.declarations}</qti-declarations>`, 'declarations');
  const { variables, responseIds } = readDeclarations(decls);
  // QTI's built-in outcome: an item may set it without declaring it (real banks do). It is not the score.
  const builtIn = !variables.has('completionStatus');
  if (builtIn) variables.set('completionStatus', { identifier: 'completionStatus', cardinality: 'single', baseType: 'identifier', defaultValue: 'unknown', correct: null, mapping: null, areaMapping: null, lookup: null });
  let rp = parse(source.responseProcessing, 'response processing');
  if (rp.name !== 'qti-response-processing') throw new QtiProcessingError(`has ${rp.name} where the response processing belongs`);
  const uri = rp.attrs['template'] ?? rp.attrs['template-location'];
  if (elements(rp).length === 0 && uri) {
    const name = standardTemplate(uri);
    if (!name) throw new QtiProcessingError(`uses the response processing template ${uri.slice(0, 200)}, which is not one of the three standard templates`);
    rp = parse(STANDARD_TEMPLATES[name], name);
  }
  const rules = compileRules(rp, { variables, responseIds, expressions: 0 });
  const decl = (id: string): QtiDeclaration => {
    const v = variables.get(id)!;
    return { identifier: id, cardinality: v.cardinality, baseType: v.baseType };
  };
  const ids = [...variables.keys()].filter((id) => !(builtIn && id === 'completionStatus'));
  const compiled: CompiledQtiProcessing = {
    responses: ids.filter((id) => responseIds.has(id)).map(decl),
    outcomes: ids.filter((id) => !responseIds.has(id)).map(decl),
  };
  programs.set(compiled, { variables, responseIds, rules });
  return compiled;
}

/** The XML reader's errors (size, depth, DTD, well-formedness) as this module's. */
function parse(text: string, what: string): XElement {
  try {
    return parseXml(text, what);
  } catch (err) {
    if (err instanceof AppError) throw new QtiProcessingError(err.details?.[0]?.message ? `has ${what} that ${err.details[0].message}` : err.message);
    throw err;
  }
}

/** Runs it over the candidate's responses (missing identifier = NULL); bounded by a step limit (throws QtiProcessingError when exceeded). */
export function runQtiProcessing(
  compiled: CompiledQtiProcessing,
  responses: Record<string, QtiData>,
  opts: { maxSteps?: number } = {},
): { outcomes: Record<string, QtiData>; score: number } {
  const program = programs.get(compiled);
  if (!program) throw new QtiProcessingError('was not compiled by compileQtiProcessing');
  const state = new Map<string, QtiData>();
  for (const [id, v] of program.variables) {
    state.set(id, program.responseIds.has(id) ? candidateValue(responses[id], v.cardinality, v.baseType) : v.defaultValue);
  }
  evaluate(program, state, opts.maxSteps);
  const outcomes: Record<string, QtiData> = {};
  for (const o of compiled.outcomes) outcomes[o.identifier] = state.get(o.identifier) ?? null;
  const score = outcomes['SCORE'];
  return { outcomes, score: typeof score === 'number' && Number.isFinite(score) ? score : 0 };
}

/** A response as its declaration types it: a scalar for single, an array for containers; what does not fit is NULL. */
function candidateValue(v: QtiData | undefined, card: 'single' | 'multiple' | 'ordered', base: QtiDeclaration['baseType']): QtiData {
  if (v === undefined || v === null) return null;
  const tuple = base === 'point' || base === 'pair' || base === 'directedPair';
  if (card === 'single') {
    if (Array.isArray(v) && !tuple) return v.length === 1 ? coerceScalar(v[0], base) : null;
    return coerceScalar(v, base);
  }
  // A container is an array of values (a point in one is itself [x, y]); a lone non-array value is a container of one.
  const list: unknown[] = Array.isArray(v) ? v : [v];
  if (list.length > QTI_PROCESSING_LIMITS.containerValues) {
    throw new QtiProcessingError(`was given a response of more than ${QTI_PROCESSING_LIMITS.containerValues.toLocaleString('en-US')} values`);
  }
  const out: QtiScalar[] = [];
  for (const x of list) {
    const s = coerceScalar(x, base);
    if (s !== null) out.push(s);
  }
  return normalise(out);
}
