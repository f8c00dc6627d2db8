import { mapPoints, mapValues } from './areas.js';
import { QTI_PROCESSING_LIMITS as LIMITS, QtiProcessingError, type Expr, type Program, type QtiData, type QtiScalar, type Rule } from './types.js';
import { normalise, roundTo, sameScalar, withinTolerance } from './values.js';

/**
 * Runs a compiled program: the rules in order over a state of variables,
 * with QTI 3.0's NULL propagation. Every expression, rule and comparison
 * inside a container is a step; past the step limit the run stops with
 * QtiProcessingError (compile bounds the tree, this bounds container work).
 */

class Exit {}

export function evaluate(program: Program, state: Map<string, QtiData>, maxSteps: number = LIMITS.steps): void {
  let steps = 0;
  const step = () => {
    if (++steps > maxSteps) throw new QtiProcessingError(`took more than ${maxSteps.toLocaleString('en-US')} steps to score one answer`);
  };
  const get = (id: string): QtiData => state.get(id) ?? null;

  const runRules = (rules: Rule[]): void => {
    for (const r of rules) {
      step();
      switch (r.rule) {
        case 'exit':
          throw new Exit();
        case 'set': {
          state.set(r.id, ev(r.expr));
          break;
        }
        case 'lookup': {
          const table = program.variables.get(r.id)!.lookup!;
          const x = ev(r.expr) as number | null;
          let out: QtiData = table.defaultValue;
          if (x !== null) {
            if (table.kind === 'match') {
              const hit = table.entries.find((e) => e.source === x);
              if (hit) out = hit.target;
            } else {
              // The first entry whose source value is below x (or equal, with includeBoundary) gives the target.
              const hit = table.entries.find((e) => (e.includeBoundary ? e.source <= x : e.source < x));
              if (hit) out = hit.target;
            }
          }
          state.set(r.id, out);
          break;
        }
        case 'condition': {
          for (const b of r.branches) {
            // A NULL condition is not true: the branch is not taken.
            if (b.when === null || ev(b.when) === true) {
              runRules(b.rules);
              break;
            }
          }
        }
      }
    }
  };

  const all = (args: Expr[]) => args.map(ev);
  const items = (v: QtiData, card: string | null): QtiScalar[] => (v === null ? [] : card === 'single' ? [v as QtiScalar] : (v as QtiScalar[]));

  function ev(e: Expr): QtiData {
    step();
    switch (e.op) {
      case 'baseValue':
        return e.value;
      case 'null':
        return null;
      case 'variable':
        return get(e.id);
      case 'default':
        return program.variables.get(e.id)!.defaultValue;
      case 'correct':
        return program.variables.get(e.id)!.correct;
      case 'mapResponse': {
        const v = program.variables.get(e.id)!;
        return mapValues(v.mapping!, items(get(e.id), v.cardinality), v.baseType, step);
      }
      case 'mapResponsePoint': {
        const v = program.variables.get(e.id)!;
        return mapPoints(v.areaMapping!, items(get(e.id), v.cardinality) as Array<[number, number]>, step);
      }
      case 'isNull':
        return ev(e.args[0]!) === null;
      case 'and':
      case 'or': {
        // A false (and) or true (or) operand decides; otherwise any NULL makes the result NULL.
        const decisive = e.op === 'or';
        let sawNull = false;
        for (const a of e.args) {
          const v = ev(a);
          if (v === decisive) return decisive;
          if (v === null) sawNull = true;
        }
        return sawNull ? null : !decisive;
      }
      case 'multiple':
      case 'ordered': {
        const out: QtiScalar[] = [];
        for (const a of e.args) {
          const v = ev(a);
          for (const x of items(v, a.card)) {
            step();
            out.push(x);
          }
        }
        return normalise(out);
      }
      case 'containerSize': {
        const v = ev(e.args[0]!);
        return v === null ? 0 : (v as QtiScalar[]).length;
      }
      case 'min':
      case 'max': {
        const vals: number[] = [];
        for (const a of e.args) {
          const v = ev(a);
          if (v === null) return null;
          for (const x of items(v, a.card)) {
            step();
            vals.push(x as number);
          }
        }
        return e.op === 'min' ? Math.min(...vals) : Math.max(...vals);
      }
    }
    const vals = all(e.args);
    if (vals.some((v) => v === null)) return null;
    switch (e.op) {
      case 'not':
        return !vals[0];
      case 'match':
        return sameData(vals[0]!, vals[1]!, e.args[0]!.card ?? e.args[1]!.card, e.args[0]!.base ?? e.args[1]!.base);
      case 'member': {
        const base = e.args[0]!.base ?? e.args[1]!.base;
        return (vals[1] as QtiScalar[]).some((x) => (step(), sameScalar(vals[0] as QtiScalar, x, base)));
      }
      case 'contains':
        return contains(vals[0] as QtiScalar[], vals[1] as QtiScalar[], e.args[0]!.card === 'ordered', e.args[0]!.base ?? e.args[1]!.base);
      case 'equal':
        return withinTolerance(vals[0] as number, vals[1] as number, e.mode, e.tolerance, e.includeLower, e.includeUpper);
      case 'equalRounded':
        return roundTo(vals[0] as number, e.mode, e.figures) === roundTo(vals[1] as number, e.mode, e.figures);
      case 'lt':
        return (vals[0] as number) < (vals[1] as number);
      case 'gt':
        return (vals[0] as number) > (vals[1] as number);
      case 'lte':
        return (vals[0] as number) <= (vals[1] as number);
      case 'gte':
        return (vals[0] as number) >= (vals[1] as number);
      case 'sum':
        return finite((vals as number[]).reduce((s, x) => s + x, 0));
      case 'product':
        return finite((vals as number[]).reduce((s, x) => s * x, 1));
      case 'subtract':
        return finite((vals[0] as number) - (vals[1] as number));
      case 'divide':
        return vals[1] === 0 ? null : finite((vals[0] as number) / (vals[1] as number));
      case 'power':
        return finite((vals[0] as number) ** (vals[1] as number));
      case 'integerDivide':
        return vals[1] === 0 ? null : Math.floor((vals[0] as number) / (vals[1] as number));
      case 'integerModulus': {
        const [x, y] = vals as [number, number];
        return y === 0 ? null : x - y * Math.floor(x / y);
      }
      case 'round':
        // QTI rounds halves up: round(6.5) = 7, round(-6.5) = -6.
        return Math.floor((vals[0] as number) + 0.5);
      case 'truncate':
        return Math.trunc(vals[0] as number);
      case 'index': {
        const list = vals[0] as QtiScalar[];
        return list[e.n - 1] ?? null;
      }
      case 'stringMatch': {
        let [a, b] = vals as [string, string];
        if (!e.caseSensitive) {
          a = a.toLowerCase();
          b = b.toLowerCase();
        }
        return e.substring ? a.includes(b) : a === b;
      }
      case 'patternMatch':
        return e.pattern.test(vals[0] as string);
    }
    throw new QtiProcessingError(`cannot run the ${e.op} operator`);
  }

  const sameData = (a: QtiData, b: QtiData, card: string | null, base: Expr['base']): boolean => {
    if (card === 'single' || !Array.isArray(a) || !Array.isArray(b) || card === null) return sameScalar(a as QtiScalar, b as QtiScalar, base);
    if (a.length !== b.length) return false;
    if (card === 'ordered') return a.every((x, i) => (step(), sameScalar(x as QtiScalar, b[i] as QtiScalar, base)));
    // Multiple: the same values, each as often (a multiset).
    const left = [...(b as QtiScalar[])];
    for (const x of a as QtiScalar[]) {
      const i = left.findIndex((y) => (step(), sameScalar(x, y, base)));
      if (i < 0) return false;
      left.splice(i, 1);
    }
    return true;
  };

  /** Multiple: every value of `b` in `a` as often; ordered: `b` a run of consecutive values of `a`. */
  const contains = (a: QtiScalar[], b: QtiScalar[], ordered: boolean, base: Expr['base']): boolean => {
    if (ordered) {
      for (let s = 0; s + b.length <= a.length; s++) if (b.every((y, i) => (step(), sameScalar(a[s + i]!, y, base)))) return true;
      return false;
    }
    const left = [...a];
    for (const y of b) {
      const i = left.findIndex((x) => (step(), sameScalar(x, y, base)));
      if (i < 0) return false;
      left.splice(i, 1);
    }
    return true;
  };

  try {
    runRules(program.rules);
  } catch (err) {
    if (!(err instanceof Exit)) throw err;
  }
}

const finite = (x: number): number | null => (Number.isFinite(x) ? x : null);
