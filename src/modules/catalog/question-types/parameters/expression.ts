/**
 * The expressions of parametrised questions (an answer formula, a
 * constraint): numbers, variables by name, + − × ÷ ^ (right associative),
 * unary minus, parentheses, comparisons, `and` / `or` / `not`, a fixed list
 * of functions and the constants `pi` and `e`. A tokenizer and a
 * recursive-descent parser build an AST that is evaluated with plain
 * numbers; nothing is ever handed to `eval` or `Function`, and the size of
 * what an author may write is bounded (characters, nesting, nodes) so a
 * hostile formula costs the server no more than a small one. Pure.
 *
 * Comparisons and `and`/`or`/`not` give 1 (true) or 0 (false); a value is
 * true when it is neither 0 nor NaN. Positions are 1-based columns.
 */

export const EXPRESSION_MAX_CHARS = 1_000;
export const EXPRESSION_MAX_DEPTH = 50;
export const EXPRESSION_MAX_NODES = 500;

export class ExpressionError extends Error {
  constructor(
    message: string,
    /** The 1-based column the problem starts at. */
    readonly position: number,
  ) {
    super(`${message} at ${position}`);
  }
}

type BinaryOp = '+' | '-' | '*' | '/' | '^' | '<' | '<=' | '>' | '>=' | '=' | '!=' | 'and' | 'or';
export type Expr =
  | { kind: 'number'; value: number; at: number }
  | { kind: 'variable'; name: string; at: number }
  | { kind: 'unary'; op: '-' | 'not'; arg: Expr; at: number }
  | { kind: 'binary'; op: BinaryOp; left: Expr; right: Expr; at: number }
  | { kind: 'call'; name: string; args: Expr[]; at: number };

const round = (x: number, places = 0): number => {
  const f = 10 ** Math.trunc(places);
  // Half away from zero, as people round; the epsilon absorbs binary noise (2.675 is 2.67499…).
  return (Math.sign(x) * Math.round(Math.abs(x) * f * (1 + Number.EPSILON))) / f;
};

/** The functions and how many arguments each takes ([least, most]). */
const FUNCTIONS: Record<string, { arity: [number, number]; fn: (...args: number[]) => number }> = {
  sqrt: { arity: [1, 1], fn: Math.sqrt },
  abs: { arity: [1, 1], fn: Math.abs },
  round: { arity: [1, 2], fn: round },
  min: { arity: [1, 20], fn: Math.min },
  max: { arity: [1, 20], fn: Math.max },
  sin: { arity: [1, 1], fn: Math.sin },
  cos: { arity: [1, 1], fn: Math.cos },
  tan: { arity: [1, 1], fn: Math.tan },
  asin: { arity: [1, 1], fn: Math.asin },
  acos: { arity: [1, 1], fn: Math.acos },
  atan: { arity: [1, 1], fn: Math.atan },
  log: { arity: [1, 1], fn: Math.log },
  log10: { arity: [1, 1], fn: Math.log10 },
  exp: { arity: [1, 1], fn: Math.exp },
  floor: { arity: [1, 1], fn: Math.floor },
  ceil: { arity: [1, 1], fn: Math.ceil },
};
export const FUNCTION_NAMES = Object.keys(FUNCTIONS);
const CONSTANTS: Record<string, number> = { pi: Math.PI, e: Math.E };
const WORDS = new Set(['and', 'or', 'not']);
/** Names an author cannot give a variable: they already mean something in a formula. */
export const RESERVED_NAMES = new Set([...FUNCTION_NAMES, ...Object.keys(CONSTANTS), ...WORDS]);

type Token = { kind: 'number'; value: number; at: number } | { kind: 'name'; name: string; at: number } | { kind: 'op'; op: string; at: number } | { kind: 'end'; at: number };

const OPS = ['<=', '>=', '!=', '<>', '==', '&&', '||', '+', '-', '−', '*', '×', '·', '/', '÷', '^', '(', ')', ',', '<', '>', '=', '!'];
/** Other spellings read as one operator: typographic signs, and the C-like forms authors type. */
const SAME: Record<string, string> = { '−': '-', '×': '*', '·': '*', '÷': '/', '<>': '!=', '==': '=', '&&': 'and', '||': 'or', '!': 'not' };

function tokenize(src: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < src.length) {
    const c = src[i]!;
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    const at = i + 1;
    const num = /^(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?/.exec(src.slice(i, i + 400));
    if (num) {
      const value = Number(num[0]);
      if (!Number.isFinite(value)) throw new ExpressionError(`number \`${num[0].slice(0, 20)}\` is too large`, at);
      tokens.push({ kind: 'number', value, at });
      i += num[0].length;
      continue;
    }
    const name = /^[A-Za-z_][A-Za-z0-9_]*/.exec(src.slice(i, i + 65));
    if (name) {
      const word = name[0];
      if (word.length > 64) throw new ExpressionError('a name is at most 64 characters', at);
      tokens.push(WORDS.has(word) ? { kind: 'op', op: word, at } : { kind: 'name', name: word, at });
      i += word.length;
      continue;
    }
    const op = OPS.find((o) => src.startsWith(o, i));
    if (!op) throw new ExpressionError(`unexpected \`${c}\``, at);
    tokens.push({ kind: 'op', op: SAME[op] ?? op, at });
    i += op.length;
  }
  tokens.push({ kind: 'end', at: src.length + 1 });
  return tokens;
}

const COMPARISONS = new Set(['<', '<=', '>', '>=', '=', '!=']);

/** Parses an expression; throws ExpressionError naming what is wrong and where. */
export function parseExpression(src: string): Expr {
  if (src.length > EXPRESSION_MAX_CHARS) throw new ExpressionError(`an expression is at most ${EXPRESSION_MAX_CHARS} characters`, EXPRESSION_MAX_CHARS + 1);
  const tokens = tokenize(src);
  let pos = 0;
  let nodes = 0;
  let depth = 0;
  const peek = () => tokens[pos]!;
  const isOp = (op: string) => {
    const t = peek();
    return t.kind === 'op' && t.op === op;
  };
  const node = <E extends Expr>(e: E): E => {
    if (++nodes > EXPRESSION_MAX_NODES) throw new ExpressionError(`an expression has at most ${EXPRESSION_MAX_NODES} parts`, e.at);
    return e;
  };
  const describe = (t: Token) => (t.kind === 'end' ? 'the end' : t.kind === 'number' ? `\`${t.value}\`` : t.kind === 'name' ? `\`${t.name}\`` : `\`${t.op}\``);
  const expect = (op: string) => {
    const t = peek();
    if (!isOp(op)) throw new ExpressionError(`expected \`${op}\` but found ${describe(t)}`, t.at);
    pos++;
  };
  // Every level that can recurse goes through here, so nesting is bounded however it is spelled (((…))), - - -, 2^2^2…
  const nested = <T>(at: number, f: () => T): T => {
    if (++depth > EXPRESSION_MAX_DEPTH) throw new ExpressionError(`an expression nests at most ${EXPRESSION_MAX_DEPTH} deep`, at);
    try {
      return f();
    } finally {
      depth--;
    }
  };

  const binaryLevel = (ops: readonly string[], next: () => Expr) => (): Expr => {
    let left = next();
    for (;;) {
      const t = peek();
      if (t.kind !== 'op' || !ops.includes(t.op)) return left;
      pos++;
      left = node({ kind: 'binary', op: t.op as BinaryOp, left, right: next(), at: t.at });
    }
  };
  const primary = (): Expr => {
    const t = peek();
    if (t.kind === 'number') {
      pos++;
      return node({ kind: 'number', value: t.value, at: t.at });
    }
    if (t.kind === 'name') {
      pos++;
      if (isOp('(')) {
        // Own properties only: `constructor` or `__proto__` must not find Object's.
        const f = Object.hasOwn(FUNCTIONS, t.name) ? FUNCTIONS[t.name] : undefined;
        if (!f) throw new ExpressionError(`unknown function \`${t.name}\``, t.at);
        pos++;
        const args: Expr[] = [];
        if (!isOp(')')) {
          args.push(nested(t.at, or));
          while (isOp(',')) {
            pos++;
            args.push(nested(t.at, or));
          }
        }
        expect(')');
        const [least, most] = f.arity;
        if (args.length < least || args.length > most) {
          const wanted = least === most ? `${least} argument${least === 1 ? '' : 's'}` : `${least} to ${most} arguments`;
          throw new ExpressionError(`\`${t.name}\` takes ${wanted}, not ${args.length}`, t.at);
        }
        return node({ kind: 'call', name: t.name, args, at: t.at });
      }
      if (Object.hasOwn(CONSTANTS, t.name)) return node({ kind: 'number', value: CONSTANTS[t.name]!, at: t.at });
      return node({ kind: 'variable', name: t.name, at: t.at });
    }
    if (isOp('(')) {
      pos++;
      const inner = nested(t.at, or);
      expect(')');
      return inner;
    }
    throw new ExpressionError(t.kind === 'end' ? 'the expression ends too soon' : `unexpected ${describe(t)}`, t.at);
  };
  const power = (): Expr => {
    const base = primary();
    const t = peek();
    if (!isOp('^')) return base;
    pos++;
    // Right associative: 2^3^2 is 2^(3^2); the exponent may carry its own sign (2^-1).
    return node({ kind: 'binary', op: '^', left: base, right: nested(t.at, unary), at: t.at });
  };
  const unary = (): Expr => {
    const t = peek();
    if (isOp('-') || isOp('+')) {
      pos++;
      const arg = nested(t.at, unary);
      return t.kind === 'op' && t.op === '+' ? arg : node({ kind: 'unary', op: '-', arg, at: t.at });
    }
    return power();
  };
  const term = binaryLevel(['*', '/'], unary);
  const sum = binaryLevel(['+', '-'], term);
  const comparison = (): Expr => {
    const left = sum();
    const t = peek();
    if (t.kind !== 'op' || !COMPARISONS.has(t.op)) return left;
    pos++;
    const result = node({ kind: 'binary', op: t.op as BinaryOp, left, right: sum(), at: t.at });
    const after = peek();
    if (after.kind === 'op' && COMPARISONS.has(after.op)) throw new ExpressionError('comparisons do not chain: join them with `and`', after.at);
    return result;
  };
  const not = (): Expr => {
    const t = peek();
    if (!isOp('not')) return comparison();
    pos++;
    return node({ kind: 'unary', op: 'not', arg: nested(t.at, not), at: t.at });
  };
  const and = binaryLevel(['and'], not);
  function or(): Expr {
    return binaryLevel(['or'], and)();
  }

  if (peek().kind === 'end') throw new ExpressionError('the expression is empty', 1);
  const tree = or();
  const rest = peek();
  if (rest.kind !== 'end') throw new ExpressionError(`unexpected ${describe(rest)}`, rest.at);
  return tree;
}

/** The variables an expression reads, each once, with where it is first read. */
export function variablesOf(e: Expr): Map<string, number> {
  const found = new Map<string, number>();
  const walk = (x: Expr): void => {
    if (x.kind === 'variable' && !found.has(x.name)) found.set(x.name, x.at);
    if (x.kind === 'unary') walk(x.arg);
    if (x.kind === 'binary') (walk(x.left), walk(x.right));
    if (x.kind === 'call') x.args.forEach(walk);
  };
  walk(e);
  return found;
}

/**
 * Why an expression cannot be used with these variables (its first
 * problem, with the position), or null.
 */
export function expressionProblem(src: string, names: Iterable<string>): string | null {
  try {
    const known = new Set(names);
    for (const [name, at] of variablesOf(parseExpression(src))) {
      if (!known.has(name)) throw new ExpressionError(`unknown variable \`${name}\``, at);
    }
    return null;
  } catch (err) {
    if (err instanceof ExpressionError) return err.message;
    throw err;
  }
}

const truth = (x: number) => x !== 0 && !Number.isNaN(x);
/** Equal up to binary noise, so `a + b = 0.3` holds for 0.1 and 0.2. */
const near = (l: number, r: number) => l === r || Math.abs(l - r) <= 1e-9 * Math.max(1, Math.abs(l), Math.abs(r));

/**
 * The expression's value with these variables. NaN or ±Infinity when the
 * arithmetic has no value (√−1, 1 ÷ 0): the caller decides (a draw with no
 * answer is drawn again). An unknown variable throws, with its position.
 */
export function evaluate(e: Expr, values: Readonly<Record<string, number>>): number {
  switch (e.kind) {
    case 'number':
      return e.value;
    case 'variable': {
      const v = values[e.name];
      if (typeof v !== 'number' || !Object.hasOwn(values, e.name)) throw new ExpressionError(`unknown variable \`${e.name}\``, e.at);
      return v;
    }
    case 'unary': {
      const v = evaluate(e.arg, values);
      return e.op === '-' ? -v : truth(v) ? 0 : 1;
    }
    case 'call':
      return FUNCTIONS[e.name]!.fn(...e.args.map((a) => evaluate(a, values)));
    case 'binary': {
      const l = evaluate(e.left, values);
      // and/or short-circuit, so `x != 0 and 1 / x > 2` reads as written.
      if (e.op === 'and') return truth(l) && truth(evaluate(e.right, values)) ? 1 : 0;
      if (e.op === 'or') return truth(l) || truth(evaluate(e.right, values)) ? 1 : 0;
      const r = evaluate(e.right, values);
      switch (e.op) {
        case '+':
          return l + r;
        case '-':
          return l - r;
        case '*':
          return l * r;
        case '/':
          return l / r;
        case '^':
          return l ** r;
        case '<':
          return l < r ? 1 : 0;
        case '<=':
          return l <= r ? 1 : 0;
        case '>':
          return l > r ? 1 : 0;
        case '>=':
          return l >= r ? 1 : 0;
        case '=':
          return near(l, r) ? 1 : 0;
        case '!=':
          return near(l, r) ? 0 : 1;
      }
    }
  }
}

/** Whether a constraint's value counts as met. */
export const holds = (x: number): boolean => truth(x);
