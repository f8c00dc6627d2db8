import { base, f } from '../../interchange/qti-writer.js';
import { elements, esc, first, type XElement, type XNode } from '../../interchange/xml.js';
import { parseExpression, type Expr } from './expression.js';
import { isParametrised, type Parametrised, type Variable } from './schema.js';

/**
 * QTI template items (cloned items) both ways. Read: each
 * `qti-template-declaration` set by `qti-set-template-value` from
 * `qti-random-integer` (min, max, step), `qti-random-float` (min, max: drawn
 * to two decimals, as Assay draws over steps) or `qti-random` over a
 * `qti-multiple`/`qti-ordered` list; a variable set from an expression of
 * others is written into the expressions that read it; each
 * `qti-template-constraint` a constraint; `qti-set-correct-response` the
 * answer formula; `qti-printed-variable` in the body `{name}`. Anything
 * else (template conditions, operators with no formula equivalent) skips
 * the item with the reason. Write: the same forms, so the round trip is exact.
 */

/** A template item as read: the item with `{name}` for printed variables and a stand-in correct response, and the fields to add. */
export interface ItemTemplate {
  item: XElement;
  response: string;
  fields: Required<Pick<Parametrised, 'variables' | 'constraints'>> & { answerFormula: string };
}

const SIMPLE: Record<string, string> = { 'qti-sum': '+', 'qti-product': '*', 'qti-subtract': '-', 'qti-divide': '/', 'qti-power': '^' };
const CMP: Record<string, string> = { 'qti-lt': '<', 'qti-lte': '<=', 'qti-gt': '>', 'qti-gte': '>=', 'qti-match': '=', 'qti-and': 'and', 'qti-or': 'or' };
/** QTI math-operator names and the formula's functions (QTI's `log` is base 10, `ln` natural). */
const MATH: Record<string, string> = { sin: 'sin', cos: 'cos', tan: 'tan', asin: 'asin', acos: 'acos', atan: 'atan', ln: 'log', log: 'log10', exp: 'exp', abs: 'abs', floor: 'floor', ceil: 'ceil' };

class Unsupported extends Error {}

/** A QTI expression as formula text; derived template values are written in place (in brackets). */
function formulaOf(e: XElement, derived: ReadonlyMap<string, string>): string {
  const args = () => elements(e).map((a) => formulaOf(a, derived));
  const op = SIMPLE[e.name] ?? CMP[e.name];
  if (op) return `(${args().join(` ${op} `)})`;
  switch (e.name) {
    case 'qti-base-value': {
      const n = Number(elementText(e));
      if (!Number.isFinite(n)) throw new Unsupported(`a template value "${elementText(e)}" is not a number`);
      return n < 0 ? `(${n})` : String(n);
    }
    case 'qti-variable': {
      const id = e.attrs['identifier'] ?? '';
      return derived.get(id) ?? id;
    }
    case 'qti-integer-to-float':
      return args()[0]!;
    case 'qti-round':
      return `round(${args()[0]})`;
    case 'qti-round-to':
      if (e.attrs['rounding-mode'] !== 'decimalPlaces') throw new Unsupported('rounding to significant figures in a template is not supported');
      return `round(${args()[0]}, ${Number(e.attrs['figures'])})`;
    case 'qti-min':
    case 'qti-max':
      return `${e.name.slice(4)}(${args().join(', ')})`;
    case 'qti-not':
      return `(not ${args()[0]})`;
    case 'qti-equal':
      if ((e.attrs['tolerance-mode'] ?? 'exact') !== 'exact') throw new Unsupported('an equal with a tolerance in a template is not supported');
      return `(${args().join(' = ')})`;
    case 'qti-math-operator': {
      const name = MATH[e.attrs['name'] ?? ''];
      if (!name) throw new Unsupported(`the math operator "${e.attrs['name']}" in a template is not supported`);
      return `${name}(${args()[0]})`;
    }
    case 'qti-math-constant':
      if (e.attrs['name'] !== 'pi' && e.attrs['name'] !== 'e') throw new Unsupported(`the constant "${e.attrs['name']}" is not supported`);
      return e.attrs['name']!;
    default:
      throw new Unsupported(`the template expression ${e.name} is not supported`);
  }
}

const elementText = (e: XElement): string => e.children.map((c) => (typeof c === 'string' ? c : elementText(c))).join('').trim();
const num = (s: string | undefined): number => (s === undefined || s.trim() === '' ? NaN : Number(s));

function variableOf(name: string, e: XElement): Variable | null {
  if (e.name === 'qti-random-integer' || e.name === 'qti-random-float') {
    const min = num(e.attrs['min']);
    const max = num(e.attrs['max']);
    if (!Number.isFinite(min) || !Number.isFinite(max)) throw new Unsupported(`${name}'s bounds are not numbers (bounds from other variables are not supported)`);
    const step = e.name === 'qti-random-integer' ? num(e.attrs['step'] ?? '1') : 0.01;
    return { name, min, max, step };
  }
  if (e.name === 'qti-random') {
    const list = first(e, 'qti-multiple') ?? first(e, 'qti-ordered');
    if (!list) throw new Unsupported(`${name} is drawn from something other than a list of values`);
    const values = elements(list, 'qti-base-value').map((v) => {
      const text = elementText(v);
      return v.attrs['base-type'] === 'float' || v.attrs['base-type'] === 'integer' ? Number(text) : text;
    });
    if (values.length === 0 || values.length !== elements(list).length) throw new Unsupported(`${name} is drawn from a list that is not all plain values`);
    return { name, values };
  }
  return null;
}

/** The printed variables as `{name}` text, everything else as it was. */
function withPlaceholders(el: XElement): XElement {
  const children: XNode[] = el.children.map((c) =>
    typeof c === 'string' ? c : c.name === 'qti-printed-variable' ? `{${c.attrs['identifier'] ?? ''}}` : withPlaceholders(c),
  );
  return { ...el, children };
}

/** The template of an item, or why it cannot be imported. */
export function readTemplate(item: XElement): ItemTemplate | string {
  const declared = new Set(elements(item, 'qti-template-declaration').map((d) => d.attrs['identifier'] ?? ''));
  const processing = first(item, 'qti-template-processing');
  if (!processing) return 'template variables without template processing are not supported';
  const variables: Variable[] = [];
  const constraints: string[] = [];
  const derived = new Map<string, string>();
  let answerFormula: string | null = null;
  let response = '';
  try {
    for (const rule of elements(processing)) {
      const expr = elements(rule)[0];
      if (!expr) throw new Unsupported(`${rule.name} has no expression`);
      if (rule.name === 'qti-set-template-value') {
        const name = rule.attrs['identifier'] ?? '';
        if (!declared.has(name)) throw new Unsupported(`the template value ${name} is not declared`);
        const v = variableOf(name, expr);
        if (v) variables.push(v);
        else derived.set(name, formulaOf(expr, derived));
      } else if (rule.name === 'qti-template-constraint') constraints.push(formulaOf(expr, derived));
      else if (rule.name === 'qti-set-correct-response') {
        response = rule.attrs['identifier'] ?? '';
        answerFormula = formulaOf(expr, derived);
      } else throw new Unsupported(`the template rule ${rule.name} is not supported`);
    }
  } catch (err) {
    if (err instanceof Unsupported) return err.message;
    throw err;
  }
  if (variables.length === 0) return 'the template draws no values';
  if (answerFormula === null) return 'the template sets no correct response (qti-set-correct-response)';
  // The formula's value stands in for the declared correct response while the interaction is read; the question gets the formula.
  const standIn = (d: XElement): XElement =>
    d.name === 'qti-response-declaration' && d.attrs['identifier'] === response
      ? { ...d, children: [{ name: 'qti-correct-response', attrs: {}, children: [{ name: 'qti-value', attrs: {}, children: ['0'] }] }, ...d.children.filter((c) => typeof c === 'string' || c.name !== 'qti-correct-response')] }
      : d;
  const rewritten = withPlaceholders({ ...item, children: item.children.map((c) => (typeof c === 'string' ? c : standIn(c))) });
  return { item: rewritten, response, fields: { variables, constraints, answerFormula } };
}

// ---- writing ----

const FUNCTION_OPERATOR: Record<string, string> = Object.fromEntries(Object.entries(MATH).map(([qti, mine]) => [mine, qti]));
const BINARY: Record<string, string> = { '+': 'qti-sum', '-': 'qti-subtract', '*': 'qti-product', '/': 'qti-divide', '^': 'qti-power', '<': 'qti-lt', '<=': 'qti-lte', '>': 'qti-gt', '>=': 'qti-gte', and: 'qti-and', or: 'qti-or' };

function qtiOf(e: Expr): string {
  switch (e.kind) {
    case 'number':
      return base('float', e.value);
    case 'variable':
      return `<qti-variable identifier="${esc(e.name)}"/>`;
    case 'unary':
      return e.op === 'not' ? `<qti-not>${qtiOf(e.arg)}</qti-not>` : `<qti-product>${base('float', -1)}${qtiOf(e.arg)}</qti-product>`;
    case 'binary': {
      const pair = qtiOf(e.left) + qtiOf(e.right);
      if (e.op === '=') return `<qti-equal tolerance-mode="exact">${pair}</qti-equal>`;
      if (e.op === '!=') return `<qti-not><qti-equal tolerance-mode="exact">${pair}</qti-equal></qti-not>`;
      return `<${BINARY[e.op]}>${pair}</${BINARY[e.op]}>`;
    }
    case 'call': {
      const args = e.args.map(qtiOf).join('');
      if (e.name === 'sqrt') return `<qti-power>${args}${base('float', 0.5)}</qti-power>`;
      if (e.name === 'min' || e.name === 'max') return `<qti-${e.name}>${args}</qti-${e.name}>`;
      if (e.name === 'round' && e.args.length === 1) return `<qti-round>${args}</qti-round>`;
      if (e.name === 'round') {
        const places = e.args[1]!;
        // QTI's round-to takes its figures as a number, not an expression.
        if (places.kind !== 'number') throw new Error('round places must be a number to export');
        return `<qti-round-to rounding-mode="decimalPlaces" figures="${places.value}">${qtiOf(e.args[0]!)}</qti-round-to>`;
      }
      return `<qti-math-operator name="${FUNCTION_OPERATOR[e.name]}">${args}</qti-math-operator>`;
    }
  }
}

function randomOf(v: Variable): string {
  if ('values' in v) {
    const type = v.values.every((x) => typeof x === 'number') ? (v.values.every(Number.isInteger) ? 'integer' : 'float') : 'string';
    return `<qti-random><qti-multiple>${v.values.map((x) => base(type, x)).join('')}</qti-multiple></qti-random>`;
  }
  if (Number.isInteger(v.min) && Number.isInteger(v.step)) return `<qti-random-integer min="${f(v.min)}" max="${f(v.max)}" step="${f(v.step)}"/>`;
  return `<qti-random-float min="${f(v.min)}" max="${f(v.max)}"/>`;
}

const baseTypeOf = (v: Variable) =>
  'values' in v ? (v.values.every((x) => typeof x === 'number') ? (v.values.every(Number.isInteger) ? 'integer' : 'float') : 'string') : Number.isInteger(v.min) && Number.isInteger(v.step) ? 'integer' : 'float';

/**
 * The template declarations and processing of a parametrised question ('' for
 * another), its correct response on `resp`. A decimal range is written as
 * qti-random-float, which QTI draws continuously; read back it is a step of
 * 0.01, so only whole-number ranges and lists make the round trip exactly.
 */
export function templateXml(q: object, resp: string): string {
  if (!isParametrised(q)) return '';
  const decls = q.variables.map(
    (v) => `  <qti-template-declaration identifier="${esc(v.name)}" cardinality="single" base-type="${baseTypeOf(v)}" param-variable="false" math-variable="true"/>\n`,
  );
  const rules = [
    ...q.variables.map((v) => `    <qti-set-template-value identifier="${esc(v.name)}">${randomOf(v)}</qti-set-template-value>\n`),
    ...(q.constraints ?? []).map((c) => `    <qti-template-constraint>${qtiOf(parseExpression(c))}</qti-template-constraint>\n`),
    ...(q.answerFormula ? [`    <qti-set-correct-response identifier="${esc(resp)}">${qtiOf(parseExpression(q.answerFormula))}</qti-set-correct-response>\n`] : []),
  ];
  return decls.join('') + `  <qti-template-processing>\n${rules.join('')}  </qti-template-processing>\n`;
}

/** The body with each `{name}` of a variable written as a printed variable. */
export function printedVariables(body: string, q: object): string {
  if (!isParametrised(q)) return body;
  const names = new Set(q.variables.map((v) => v.name));
  return body.replace(/\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (whole, name: string) => (names.has(name) ? `<qti-printed-variable identifier="${esc(name)}"/>` : whole));
}
