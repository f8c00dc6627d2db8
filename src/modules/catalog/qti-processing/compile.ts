import { compileXsdPattern, XsdPatternError } from '../xsd-pattern.js';
import { elements, type XElement } from '../interchange/xml.js';
import { baseTypeOf, numberAttr, textIn, valueOf } from './declarations.js';
import { QTI_PROCESSING_LIMITS as LIMITS, QtiProcessingError, type Card, type Expr, type NaryOp, type QtiBaseType, type Rule, type Typed, type Variable } from './types.js';
import { isNumeric } from './values.js';

/**
 * Response processing XML to a tree of plain data, type-checked against the
 * declarations by QTI 3.0's cardinality and base-type rules, so that a run
 * never meets an ill-typed operand. Recursion is bounded by the depth limit
 * (and the XML reader refuses deeper documents before this runs).
 */

const fail = (why: string): never => {
  throw new QtiProcessingError(why);
};
const local = (el: XElement) => el.name.replace(/^qti-/, '');
const camel = (name: string) => name.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());

interface Ctx {
  variables: Map<string, Variable>;
  responseIds: Set<string>;
  expressions: number;
}

export function compileRules(rp: XElement, ctx: Ctx, depth = 0): Rule[] {
  const out: Rule[] = [];
  for (const el of elements(rp)) out.push(...compileRule(el, ctx, depth + 1));
  return out;
}

function compileRule(el: XElement, ctx: Ctx, depth: number): Rule[] {
  if (depth > LIMITS.depth) fail(`nests rules deeper than ${LIMITS.depth}`);
  const name = camel(local(el));
  switch (name) {
    case 'responseProcessingFragment':
      return compileRules(el, ctx, depth);
    case 'exitResponse':
      return [{ rule: 'exit' }];
    case 'setOutcomeValue':
    case 'lookupOutcomeValue': {
      const id = el.attrs['identifier'] ?? '';
      const v = ctx.variables.get(id);
      if (!v || ctx.responseIds.has(id)) fail(`sets ${id || 'a variable without an identifier'}, which is not a declared outcome`);
      const expr = only(el, ctx, depth, name);
      if (name === 'lookupOutcomeValue') {
        if (!v!.lookup) fail(`looks up ${id}, whose declaration has no match table or interpolation table`);
        need(expr, ['single'], 'numeric', `lookupOutcomeValue of ${id}`);
        return [{ rule: 'lookup', id, expr }];
      }
      assignable(expr, v!, id);
      return [{ rule: 'set', id, expr }];
    }
    case 'responseCondition': {
      const parts = elements(el);
      const branches: Array<{ when: Expr | null; rules: Rule[] }> = [];
      parts.forEach((p, i) => {
        const kind = camel(local(p));
        const ok = i === 0 ? kind === 'responseIf' : kind === 'responseElseIf' || (kind === 'responseElse' && i === parts.length - 1);
        if (!ok) fail(`has a responseCondition with ${kind} where ${i === 0 ? 'responseIf' : 'responseElseIf or a final responseElse'} belongs`);
        const kids = elements(p);
        if (kind === 'responseElse') {
          branches.push({ when: null, rules: kids.flatMap((k) => compileRule(k, ctx, depth + 1)) });
          return;
        }
        if (!kids[0]) fail(`has a ${kind} without a condition`);
        const when = compileExpr(kids[0]!, ctx, depth + 1);
        need(when, ['single'], ['boolean'], kind);
        branches.push({ when, rules: kids.slice(1).flatMap((k) => compileRule(k, ctx, depth + 1)) });
      });
      if (branches.length === 0) fail('has an empty responseCondition');
      return [{ rule: 'condition', branches }];
    }
    default:
      return fail(`uses the ${name} rule, which Assay does not run`);
  }
}

function only(el: XElement, ctx: Ctx, depth: number, what: string): Expr {
  const kids = elements(el);
  if (kids.length !== 1) fail(`has a ${what} with ${kids.length} expressions where one belongs`);
  return compileExpr(kids[0]!, ctx, depth + 1);
}

function assignable(expr: Expr, v: Variable, id: string) {
  const cardOk = expr.card === null || expr.card === v.cardinality;
  const baseOk = expr.base === null || expr.base === v.baseType || (v.baseType === 'float' && expr.base === 'integer') || (v.baseType === 'duration' && isNumeric(expr.base));
  if (!cardOk || !baseOk) fail(`sets ${id} (${v.cardinality} ${v.baseType}) to a ${expr.card ?? ''} ${expr.base ?? ''} value`.replace(/ +/g, ' '));
}

type BaseReq = QtiBaseType[] | 'numeric' | 'any';
/** Checks an operand's static type; unknown (NULL literal) passes. */
function need(e: Typed, cards: Card[], bases: BaseReq, what: string) {
  if (e.card !== null && !cards.includes(e.card)) fail(`has a ${what} given a ${e.card} value where ${cards.join(' or ')} belongs`);
  if (e.base === null || bases === 'any') return;
  const ok = bases === 'numeric' ? isNumeric(e.base) : bases.includes(e.base);
  if (!ok) fail(`has a ${what} given a ${e.base} value where ${bases === 'numeric' ? 'a number' : bases.join(' or ')} belongs`);
}
const sameBase = (args: Typed[], what: string) => {
  const bases = args.map((a) => a.base).filter((b): b is QtiBaseType => b !== null);
  const numeric = bases.every(isNumeric);
  if (!numeric && new Set(bases).size > 1) fail(`has a ${what} comparing values of different base types (${[...new Set(bases)].join(', ')})`);
  return bases[0] ?? null;
};
const numericResult = (args: Typed[]): QtiBaseType => (args.every((a) => a.base === 'integer') ? 'integer' : 'float');
const count = (el: XElement, n: number, m: number, what: string) => {
  const k = elements(el).length;
  if (k < n || k > m) fail(`has a ${what} with ${k} operands (${n === m ? n : m === Infinity ? `at least ${n}` : `${n} to ${m}`} expected)`);
};

const SIMPLE: Record<string, true> = {
  match: true, member: true, contains: true, lt: true, gt: true, lte: true, gte: true, and: true, or: true, not: true, isNull: true,
  sum: true, product: true, subtract: true, divide: true, multiple: true, ordered: true, containerSize: true, round: true, truncate: true,
  integerDivide: true, integerModulus: true, power: true, min: true, max: true,
};

export function compileExpr(el: XElement, ctx: Ctx, depth: number): Expr {
  if (depth > LIMITS.depth) fail(`nests expressions deeper than ${LIMITS.depth}`);
  if (++ctx.expressions > LIMITS.expressions) fail(`has more than ${LIMITS.expressions.toLocaleString('en-US')} expressions`);
  const name = camel(local(el));
  const id = el.attrs['identifier'] ?? '';
  const variable = (what: string, responseOnly = false): Variable => {
    const v = ctx.variables.get(id);
    if (!v) return fail(`refers in ${what} to ${id || 'a variable without an identifier'}, which is not declared`);
    if (responseOnly && !ctx.responseIds.has(id)) fail(`uses ${what} on ${id}, which is not a response`);
    return v;
  };
  switch (name) {
    case 'baseValue': {
      const base = baseTypeOf(el, 'baseValue');
      return { op: 'baseValue', card: 'single', base, value: valueOf(textIn(el), base, 'baseValue') };
    }
    case 'null':
      return { op: 'null', card: null, base: null };
    case 'variable':
    case 'default': {
      const v = variable(name);
      return { op: name, id, card: v.cardinality, base: v.baseType };
    }
    case 'correct': {
      const v = variable(name, true);
      return { op: name, id, card: v.cardinality, base: v.baseType };
    }
    case 'mapResponse': {
      const v = variable(name, true);
      if (!v.mapping) fail(`uses mapResponse on ${id}, whose declaration has no mapping`);
      return { op: name, id, card: 'single', base: 'float' };
    }
    case 'mapResponsePoint': {
      const v = variable(name, true);
      if (!v.areaMapping) fail(`uses mapResponsePoint on ${id}, whose declaration has no area mapping`);
      return { op: name, id, card: 'single', base: 'float' };
    }
  }
  if (!SIMPLE[name] && !['equal', 'equalRounded', 'stringMatch', 'patternMatch', 'index'].includes(name)) {
    return fail(`uses the ${name} ${name === 'customOperator' ? '' : 'operator '}, which Assay does not run`.replace(' ,', ','));
  }
  const args = elements(el).map((k) => compileExpr(k, ctx, depth + 1));
  const t = (card: Card, base: QtiBaseType) => ({ card, base });
  switch (name) {
    case 'equal': {
      count(el, 2, 2, name);
      args.forEach((a) => need(a, ['single'], 'numeric', name));
      const mode = el.attrs['tolerance-mode'] ?? 'exact';
      if (mode !== 'exact' && mode !== 'absolute' && mode !== 'relative') fail(`has an equal with the unknown toleranceMode "${mode.slice(0, 40)}"`);
      const tol = (el.attrs['tolerance'] ?? '').trim().split(/\s+/).filter(Boolean);
      if (mode !== 'exact' && (tol.length < 1 || tol.length > 2)) fail('has an equal with a tolerance mode but not one or two tolerance values');
      if (tol.some((x) => x.startsWith('{'))) fail('has an equal whose tolerance refers to a template variable, which is not supported');
      const nums = tol.map((x) => valueOf(x, 'float', 'tolerance') as number);
      if (nums.some((x) => x < 0)) fail('has an equal with a negative tolerance');
      return {
        op: 'equal', args, ...t('single', 'boolean'), mode: mode as 'exact' | 'absolute' | 'relative',
        tolerance: [nums[0] ?? 0, nums[1] ?? nums[0] ?? 0],
        includeLower: el.attrs['include-lower-bound'] !== 'false',
        includeUpper: el.attrs['include-upper-bound'] !== 'false',
      };
    }
    case 'equalRounded': {
      count(el, 2, 2, name);
      args.forEach((a) => need(a, ['single'], 'numeric', name));
      const mode = el.attrs['rounding-mode'] ?? 'significantFigures';
      if (mode !== 'significantFigures' && mode !== 'decimalPlaces') fail(`has an equalRounded with the unknown roundingMode "${mode.slice(0, 40)}"`);
      const figures = numberAttr(el, 'figures', name);
      if (!Number.isInteger(figures) || figures < (mode === 'significantFigures' ? 1 : 0) || figures > 100) fail(`has an equalRounded with figures="${el.attrs['figures']}"`);
      return { op: 'equalRounded', args, ...t('single', 'boolean'), mode: mode as 'significantFigures' | 'decimalPlaces', figures };
    }
    case 'stringMatch': {
      count(el, 2, 2, name);
      args.forEach((a) => need(a, ['single'], ['string', 'identifier'], name));
      const cs = el.attrs['case-sensitive'];
      if (cs === undefined) fail('has a stringMatch without caseSensitive');
      return { op: 'stringMatch', args, ...t('single', 'boolean'), caseSensitive: cs === 'true' || cs === '1', substring: el.attrs['substring'] === 'true' };
    }
    case 'patternMatch': {
      count(el, 1, 1, name);
      need(args[0]!, ['single'], ['string', 'identifier'], name);
      const source = el.attrs['pattern'] ?? fail('has a patternMatch without a pattern');
      if (source.startsWith('{')) fail('has a patternMatch whose pattern refers to a template variable, which is not supported');
      try {
        return { op: 'patternMatch', args, ...t('single', 'boolean'), pattern: compileXsdPattern(source) };
      } catch (err) {
        if (err instanceof XsdPatternError) return fail(`has a patternMatch whose pattern ${err.message}`);
        throw err;
      }
    }
    case 'index': {
      count(el, 1, 1, name);
      need(args[0]!, ['ordered'], 'any', name);
      const n = el.attrs['n'] ?? '';
      if (!/^\d+$/.test(n.trim()) || Number(n) < 1) fail(`has an index with n="${n.slice(0, 40)}" (a positive whole number is supported)`);
      return { op: 'index', args, card: 'single', base: args[0]!.base, n: Number(n) };
    }
  }
  const op = name as NaryOp;
  return { op, args, ...typeNary(op, args) };
}

function typeNary(op: NaryOp, args: Expr[]): Typed {
  switch (op) {
    case 'match':
    case 'member':
    case 'contains': {
      if (args.length !== 2) fail(`has a ${op} with ${args.length} operands (2 expected)`);
      const [a, b] = args as [Expr, Expr];
      sameBase(args, op);
      if (op === 'match' && a.card && b.card && a.card !== b.card) fail(`has a match comparing a ${a.card} value with a ${b.card} one`);
      if (op === 'member') {
        need(a, ['single'], 'any', op);
        need(b, ['multiple', 'ordered'], 'any', op);
      }
      if (op === 'contains') {
        args.forEach((x) => need(x, ['multiple', 'ordered'], 'any', op));
        if (a.card && b.card && a.card !== b.card) fail(`has a contains comparing a ${a.card} container with a ${b.card} one`);
      }
      return { card: 'single', base: 'boolean' };
    }
    case 'lt':
    case 'gt':
    case 'lte':
    case 'gte':
      if (args.length !== 2) fail(`has a ${op} with ${args.length} operands (2 expected)`);
      args.forEach((a) => need(a, ['single'], 'numeric', op));
      return { card: 'single', base: 'boolean' };
    case 'and':
    case 'or':
    case 'not':
      if (args.length < 1 || (op === 'not' && args.length !== 1)) fail(`has a ${op} with ${args.length} operands`);
      args.forEach((a) => need(a, ['single'], ['boolean'], op));
      return { card: 'single', base: 'boolean' };
    case 'isNull':
      if (args.length !== 1) fail(`has an isNull with ${args.length} operands (1 expected)`);
      return { card: 'single', base: 'boolean' };
    case 'sum':
    case 'product':
    case 'subtract':
    case 'divide':
    case 'integerDivide':
    case 'integerModulus':
    case 'power': {
      const binary = op !== 'sum' && op !== 'product';
      if (binary ? args.length !== 2 : args.length < 1) fail(`has a ${op} with ${args.length} operands (${binary ? '2' : 'at least 1'} expected)`);
      args.forEach((a) => need(a, ['single'], op.startsWith('integer') ? ['integer'] : 'numeric', op));
      const base = op === 'divide' || op === 'power' ? 'float' : op.startsWith('integer') ? 'integer' : numericResult(args);
      return { card: 'single', base };
    }
    case 'min':
    case 'max':
      if (args.length < 1) fail(`has a ${op} without operands`);
      args.forEach((a) => need(a, ['single', 'multiple', 'ordered'], 'numeric', op));
      return { card: 'single', base: numericResult(args) };
    case 'round':
    case 'truncate':
      if (args.length !== 1) fail(`has a ${op} with ${args.length} operands (1 expected)`);
      need(args[0]!, ['single'], 'numeric', op);
      return { card: 'single', base: 'integer' };
    case 'multiple':
    case 'ordered': {
      args.forEach((a) => need(a, op === 'multiple' ? ['single', 'multiple'] : ['single', 'ordered'], 'any', op));
      return { card: op, base: sameBase(args, op) };
    }
    case 'containerSize':
      if (args.length !== 1) fail(`has a containerSize with ${args.length} operands (1 expected)`);
      need(args[0]!, ['multiple', 'ordered'], 'any', op);
      return { card: 'single', base: 'integer' };
  }
}
