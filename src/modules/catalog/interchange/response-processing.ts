import { simplifyProcessing } from './rp-simplify.js';
import { standardTemplate } from '../qti-processing/templates.js';
import { elements, first, type XElement } from './xml.js';

/**
 * Reading an item's declarations and response processing into the few
 * shapes whose scoring Assay's marking reproduces exactly. Anything else is
 * `custom`, and the item is skipped with that reason.
 */
export interface Mapping {
  entries: Array<{ key: string; value: number; caseSensitive: boolean }>;
  defaultValue: number;
  lowerBound: number | null;
  upperBound: number | null;
}

export interface ResponseDeclaration {
  identifier: string;
  cardinality: string;
  baseType: string;
  correct: string[];
  mapping: Mapping | null;
}

export type Processing =
  | { kind: 'none' }
  /** The standard templates (or their body written out inline). */
  | { kind: 'match_correct' }
  | { kind: 'map_response'; responseId: string }
  | { kind: 'map_response_point' }
  /** if (RESPONSE matches / equals the correct response) SCORE = points [else SCORE = 0]. */
  | { kind: 'conditional'; op: 'match' | 'equal'; points: number; toleranceMode: string; tolerance: number[]; includeLower: boolean; includeUpper: boolean }
  /** SCORE = the sum of mapResponse over these responses (one per blank). */
  | { kind: 'sum_map'; responseIds: string[] }
  /** Ordering partial credit: SCORE = 0, then + weight for each position holding its item. */
  | { kind: 'positions'; positions: Array<{ index: number; id: string; weight: number }> }
  /**
   * Text entry branches: if RESPONSE stringMatch/patternMatch X then SCORE = p, else if … (else SCORE = 0).
   * The export's form for short-text answers with patterns; the first branch that matches decides.
   */
  | { kind: 'text_branches'; responseId: string; branches: TextBranch[] }
  | { kind: 'custom'; why: string }
  | { kind: 'template'; uri: string };

/** One branch: a text compared as stringMatch does, or a pattern (with the sample answer or'd with it, when given). */
export type TextBranch = { points: number } & ({ text: string; caseSensitive: boolean; pattern: null } | { text: string | null; caseSensitive: true; pattern: string });

const num = (s: string | undefined): number | null => {
  if (s === undefined || s.trim() === '') return null;
  const n = Number(s.trim());
  return Number.isFinite(n) ? n : null;
};
const text = (el: XElement | undefined): string =>
  el ? el.children.map((c) => (typeof c === 'string' ? c : text(c))).join('') : '';

export function readDeclarations(item: XElement): Map<string, ResponseDeclaration> {
  const out = new Map<string, ResponseDeclaration>();
  for (const d of elements(item, 'qti-response-declaration')) {
    const correct = first(d, 'qti-correct-response');
    const mapping = first(d, 'qti-mapping');
    out.set(d.attrs['identifier'] ?? '', {
      identifier: d.attrs['identifier'] ?? '',
      cardinality: d.attrs['cardinality'] ?? 'single',
      baseType: d.attrs['base-type'] ?? '',
      correct: correct ? elements(correct, 'qti-value').map((v) => text(v).trim()) : [],
      mapping: mapping
        ? {
            entries: elements(mapping, 'qti-map-entry').map((e) => ({
              key: (e.attrs['map-key'] ?? '').trim(),
              value: num(e.attrs['mapped-value']) ?? NaN,
              // Required by QTI 2.1; left out, it is read as true (exact comparison), as the interpreter and other engines do.
              caseSensitive: e.attrs['case-sensitive'] !== 'false' && e.attrs['case-sensitive'] !== '0',
            })),
            defaultValue: num(mapping.attrs['default-value']) ?? 0,
            lowerBound: num(mapping.attrs['lower-bound']),
            upperBound: num(mapping.attrs['upper-bound']),
          }
        : null,
    });
  }
  return out;
}

/** MAXSCORE's default value, when the item declares one. */
export function maxScore(item: XElement): number | null {
  const decl = elements(item, 'qti-outcome-declaration').find((o) => o.attrs['identifier'] === 'MAXSCORE');
  const dv = decl && first(decl, 'qti-default-value');
  return dv ? num(text(first(dv, 'qti-value'))) : null;
}

/** The standard template a URI names (QTI 3 `…/rptemplates/match_correct.xml`, QTI 2 `…/rptemplates/match_correct`, Common Cartridge's equivalents). */
export const templateName = standardTemplate;

const isVar = (e: XElement | undefined, id: string) => e?.name === 'qti-variable' && e.attrs['identifier'] === id;
const isCorrect = (e: XElement | undefined, id: string) => e?.name === 'qti-correct' && e.attrs['identifier'] === id;
const setsScore = (e: XElement | undefined) => e?.name === 'qti-set-outcome-value' && e.attrs['identifier'] === 'SCORE';

/** The number a set-outcome-value assigns: a base value, or MAXSCORE. */
function assigned(set: XElement, max: number | null): number | null {
  const v = elements(set)[0];
  if (v?.name === 'qti-base-value') return num(text(v));
  if (isVar(v, 'MAXSCORE')) return max;
  return null;
}

/**
 * The item's response processing as one of the shapes above. Statements that
 * only set feedback (or other outcomes the score never reads) are set aside
 * first (rp-simplify.ts); their outcomes are added to `out.dropped`.
 */
export function readProcessing(item: XElement, responseIds: string[], out: { dropped: string[] } = { dropped: [] }): Processing {
  const rp = first(item, 'qti-response-processing');
  if (!rp) return { kind: 'none' };
  const uri = rp.attrs['template'] ?? rp.attrs['template-location'];
  if (uri && elements(rp).length === 0) {
    const name = templateName(uri);
    if (name === 'map_response') return { kind: 'map_response', responseId: 'RESPONSE' };
    return name ? { kind: name } : { kind: 'template', uri };
  }
  if (item.attrs['adaptive'] === 'true') return { kind: 'custom', why: 'an adaptive item (several attempts, feedback between them) cannot be expressed' };
  const simple = simplifyProcessing(item, rp);
  if (typeof simple === 'string') return { kind: 'custom', why: simple };
  out.dropped.push(...simple.dropped);
  const body = simple.body;
  if (body.length === 0) return { kind: 'none' };
  const max = maxScore(item);
  const one = responseIds.length === 1 ? responseIds[0]! : null;
  const found = readBody(body, one, max);
  // Without its empty-response guard, the rest must give 0 for an empty response, as each single-response shape does.
  if (simple.unguarded && found.kind === 'sum_map' && found.responseIds.length > 1) return custom();
  // `if not(isNull(R)) SCORE = mapResponse(R)`: the map_response template.
  if (simple.unguarded && found.kind === 'sum_map' && found.responseIds[0] === one) return { kind: 'map_response', responseId: one };
  return found;
}

function readBody(body: XElement[], one: string | null, max: number | null): Processing {

  // SCORE = mapResponse(X) or SCORE = sum(mapResponse(X), …)
  if (body.length === 1 && setsScore(body[0])) {
    const v = elements(body[0]!)[0];
    const maps = v?.name === 'qti-map-response' ? [v] : v?.name === 'qti-sum' ? elements(v) : [];
    if (maps.length > 0 && maps.every((m) => m.name === 'qti-map-response')) return { kind: 'sum_map', responseIds: maps.map((m) => m.attrs['identifier'] ?? '') };
  }

  const branches = one && body.length === 1 && body[0]!.name === 'qti-response-condition' ? textBranches(body[0]!, one) : null;
  if (branches) return { kind: 'text_branches', responseId: one!, branches };

  if (body.length === 1 && body[0]!.name === 'qti-response-condition' && one) {
    const [ifEl, elseEl, ...more] = elements(body[0]!);
    // if RESPONSE matches the correct order SCORE = points, else SCORE = 0 then + weight per item in place: the
    // positions alone, when a fully correct order earns the same points both ways.
    if (ifEl?.name === 'qti-response-if' && elseEl?.name === 'qti-response-else' && more.length === 0) {
      const [cond, set, ...rest] = elements(ifEl);
      const positions = positionsOf(elements(elseEl), one, max);
      const args = cond?.name === 'qti-match' ? elements(cond) : [];
      const full = setsScore(set) && rest.length === 0 ? assigned(set!, max) : null;
      if (positions && args.length === 2 && isVar(args[0], one) && isCorrect(args[1], one) && full !== null) {
        const sum = positions.reduce((a, p) => a + p.weight, 0);
        return Math.abs(sum - full) < 1e-9 ? { kind: 'positions', positions } : custom();
      }
    }
    if (ifEl?.name !== 'qti-response-if' || more.length > 0) return custom();
    const [cond, set, ...rest] = elements(ifEl);
    if (!cond || !setsScore(set) || rest.length > 0) return custom();
    const elseSet = elseEl ? elements(elseEl) : [];
    if (elseEl && (elseEl.name !== 'qti-response-else' || elseSet.length !== 1 || !setsScore(elseSet[0]))) return custom();
    // The map_response template written out: if isNull(RESPONSE) SCORE = 0 else SCORE = mapResponse(RESPONSE).
    if (cond.name === 'qti-is-null' && isVar(elements(cond)[0], one) && assigned(set!, max) === 0 && elseSet[0]) {
      const v = elements(elseSet[0])[0];
      if (v?.name === 'qti-map-response' && v.attrs['identifier'] === one) return { kind: 'map_response', responseId: one };
      return custom();
    }
    if (elseEl && assigned(elseSet[0]!, max) !== 0) return custom();
    if (cond.name !== 'qti-match' && cond.name !== 'qti-equal') return custom();
    const args = elements(cond);
    const against = args.length === 2 && ((isVar(args[0], one) && isCorrect(args[1], one)) || (isCorrect(args[0], one) && isVar(args[1], one)));
    if (!against) return custom();
    const points = assigned(set!, max);
    if (points === null) return custom();
    return conditional(cond, points);
  }

  // SCORE = 0; then for each position i: if RESPONSE[i] = item, SCORE = SCORE + w.
  const positions = one ? positionsOf(body, one, max) : null;
  if (positions) return { kind: 'positions', positions };
  return custom();
}

/**
 * `SCORE = 0`, then for each position i `if RESPONSE[i] = item: SCORE = SCORE + w`
 * (the match's arguments either way round); null for anything else.
 */
function positionsOf(body: XElement[], one: string, max: number | null): Array<{ index: number; id: string; weight: number }> | null {
  if (!setsScore(body[0]) || assigned(body[0]!, max) !== 0 || body.length < 2) return null;
  const positions: Array<{ index: number; id: string; weight: number }> = [];
  for (const c of body.slice(1)) {
    const ifEl = c.name === 'qti-response-condition' ? elements(c) : [];
    if (ifEl.length !== 1 || ifEl[0]!.name !== 'qti-response-if') return null;
    const [cond, set, ...rest] = elements(ifEl[0]!);
    if (cond?.name !== 'qti-match' || !setsScore(set) || rest.length > 0) return null;
    const args = elements(cond);
    const idx = args.find((a) => a.name === 'qti-index');
    const base = args.find((a) => a.name === 'qti-base-value');
    if (args.length !== 2 || !idx || !base || !isVar(elements(idx)[0], one)) return null;
    const sum = elements(set!)[0];
    const parts = sum?.name === 'qti-sum' ? elements(sum) : [];
    if (parts.length !== 2 || !isVar(parts[0], 'SCORE') || parts[1]!.name !== 'qti-base-value') return null;
    const index = num(idx.attrs['n']);
    const weight = num(text(parts[1]));
    if (index === null || weight === null) return null;
    positions.push({ index, id: text(base).trim(), weight });
  }
  return positions;
}

/** The branches of a condition that only tests the response with stringMatch or patternMatch and sets SCORE to a number; null for any other condition. */
function textBranches(condition: XElement, id: string): TextBranch[] | null {
  const parts = elements(condition);
  const out: TextBranch[] = [];
  for (const [k, part] of parts.entries()) {
    const kids = elements(part);
    if (part.name === 'qti-response-else' && k === parts.length - 1 && k > 0) {
      // An else that sets SCORE to 0 changes nothing (SCORE starts at 0 and only one branch runs).
      if (kids.length === 1 && setsScore(kids[0]) && assigned(kids[0]!, null) === 0) continue;
      return null;
    }
    if (part.name !== (k === 0 ? 'qti-response-if' : 'qti-response-else-if') || kids.length !== 2) return null;
    const [cond, set] = kids as [XElement, XElement];
    const points = setsScore(set) ? assigned(set, null) : null;
    if (points === null) return null;
    const args = elements(cond);
    const pattern = (e: XElement | undefined) => (e?.name === 'qti-pattern-match' && elements(e).length === 1 && isVar(elements(e)[0], id) ? (e.attrs['pattern'] ?? null) : null);
    const exact = (e: XElement | undefined) => {
      const a = e?.name === 'qti-string-match' && e.attrs['case-sensitive'] !== 'false' && e.attrs['substring'] !== 'true' ? elements(e) : [];
      return a.length === 2 && isVar(a[0], id) && a[1]!.name === 'qti-base-value' ? text(a[1]).trim() : null;
    };
    if (pattern(cond) !== null) {
      out.push({ points, text: null, caseSensitive: true, pattern: pattern(cond)! });
    } else if (cond.name === 'qti-or' && args.length === 2 && pattern(args[0]) !== null && exact(args[1]) !== null) {
      // The export's form: the pattern, or its sample answer exactly.
      out.push({ points, text: exact(args[1])!, caseSensitive: true, pattern: pattern(args[0])! });
    } else if (cond.name === 'qti-string-match' && args.length === 2 && isVar(args[0], id) && args[1]!.name === 'qti-base-value' && cond.attrs['substring'] !== 'true') {
      // case-sensitive is required by QTI; a missing one is read as true (exact comparison).
      out.push({ points, text: text(args[1]).trim(), caseSensitive: cond.attrs['case-sensitive'] !== 'false', pattern: null });
    } else return null;
  }
  return out.length > 0 ? out : null;
}

/** `if RESPONSE matches (or equals, with its tolerance) the correct response: SCORE = points`, read from the comparison element. */
export function conditional(cond: XElement, points: number): Extract<Processing, { kind: 'conditional' }> {
  return {
    kind: 'conditional',
    op: cond.name === 'qti-match' ? 'match' : 'equal',
    points,
    toleranceMode: cond.attrs['tolerance-mode'] ?? 'exact',
    tolerance: (cond.attrs['tolerance'] ?? '').trim().split(/\s+/).filter(Boolean).map(Number),
    includeLower: cond.attrs['include-lower-bound'] !== 'false',
    includeUpper: cond.attrs['include-upper-bound'] !== 'false',
  };
}

const custom = (): Processing => ({ kind: 'custom', why: 'custom response processing that is not one of the standard templates' });

/** What QTI's mapResponse gives for a set of distinct response values (each counted once), bounds applied. */
export function mapResponse(mapping: Mapping, values: readonly string[]): number {
  let sum = 0;
  for (const v of new Set(values)) {
    const entry = mapping.entries.find((e) => (e.caseSensitive ? e.key === v : e.key.toLowerCase() === v.toLowerCase()));
    sum += entry ? entry.value : mapping.defaultValue;
  }
  if (mapping.lowerBound !== null) sum = Math.max(mapping.lowerBound, sum);
  if (mapping.upperBound !== null) sum = Math.min(mapping.upperBound, sum);
  return sum;
}
