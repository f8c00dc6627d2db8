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
  | { kind: 'custom'; why: string }
  | { kind: 'template'; uri: string };

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
              caseSensitive: e.attrs['case-sensitive'] === 'true',
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

const TEMPLATES = ['match_correct', 'map_response', 'map_response_point'] as const;

/** The standard template a URI names (QTI 3 `…/rptemplates/match_correct.xml`, QTI 2 `…/rptemplates/match_correct`). */
export function templateName(uri: string): (typeof TEMPLATES)[number] | null {
  const last = uri.trim().split('/').pop()!.replace(/\.xml$/, '');
  return (TEMPLATES as readonly string[]).includes(last) ? (last as (typeof TEMPLATES)[number]) : null;
}

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

export function readProcessing(item: XElement, responseIds: string[]): Processing {
  const rp = first(item, 'qti-response-processing');
  if (!rp) return { kind: 'none' };
  const uri = rp.attrs['template'] ?? rp.attrs['template-location'];
  const body = elements(rp);
  if (uri && body.length === 0) {
    const name = templateName(uri);
    if (name === 'map_response') return { kind: 'map_response', responseId: 'RESPONSE' };
    return name ? { kind: name } : { kind: 'template', uri };
  }
  if (body.length === 0) return { kind: 'none' };
  const max = maxScore(item);
  const one = responseIds.length === 1 ? responseIds[0]! : null;

  // SCORE = mapResponse(X) or SCORE = sum(mapResponse(X), …)
  if (body.length === 1 && setsScore(body[0])) {
    const v = elements(body[0]!)[0];
    const maps = v?.name === 'qti-map-response' ? [v] : v?.name === 'qti-sum' ? elements(v) : [];
    if (maps.length > 0 && maps.every((m) => m.name === 'qti-map-response')) return { kind: 'sum_map', responseIds: maps.map((m) => m.attrs['identifier'] ?? '') };
  }

  if (body.length === 1 && body[0]!.name === 'qti-response-condition' && one) {
    const [ifEl, elseEl, ...more] = elements(body[0]!);
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

  // SCORE = 0; then for each position i: if RESPONSE[i] = item, SCORE = SCORE + w.
  if (one && setsScore(body[0]) && assigned(body[0]!, max) === 0 && body.length > 1) {
    const positions: Array<{ index: number; id: string; weight: number }> = [];
    for (const c of body.slice(1)) {
      const ifEl = c.name === 'qti-response-condition' ? elements(c) : [];
      if (ifEl.length !== 1 || ifEl[0]!.name !== 'qti-response-if') return custom();
      const [cond, set, ...rest] = elements(ifEl[0]!);
      if (cond?.name !== 'qti-match' || !setsScore(set) || rest.length > 0) return custom();
      const [idx, base] = elements(cond);
      if (idx?.name !== 'qti-index' || !isVar(elements(idx)[0], one) || base?.name !== 'qti-base-value') return custom();
      const sum = elements(set!)[0];
      const parts = sum?.name === 'qti-sum' ? elements(sum) : [];
      if (parts.length !== 2 || !isVar(parts[0], 'SCORE') || parts[1]!.name !== 'qti-base-value') return custom();
      const index = num(idx.attrs['n']);
      const weight = num(text(parts[1]));
      if (index === null || weight === null) return custom();
      positions.push({ index, id: text(base).trim(), weight });
    }
    return { kind: 'positions', positions };
  }
  return custom();
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
