import { exactWeights } from '../../interchange/exact-weights.js';
import { allOrNothing, declOf, idMap, mappingOf, promptOf, round, rpReason, textIn, type Ctx } from '../../interchange/qti-item-context.js';
import { score, template, type Decl, type TextWriter } from '../../interchange/qti-writer.js';
import { escapeMarkdown } from '../../interchange/xhtml-markdown.js';
import { elements, esc, type XElement } from '../../interchange/xml.js';
import type { QtiMapping } from '../definition.js';
import type { ResponseDeclaration } from '../../interchange/response-processing.js';
import { pairKey, type AssociateQuestion } from './rules.js';

/**
 * QTI's associateInteraction both ways. Written: a `pair` response of
 * multiple cardinality, every keyed pair in the correct response and in a
 * mapping worth its points (lower bound 0, upper bound the question's
 * points), scored by the map_response template; each item's match-max is 0
 * (no limit), as Assay lets an item be in any number of pairs.
 *
 * Read: map_response with a default of 0 and no negative entries is the
 * native rule exactly (each mapped pair made earns its value, the sum capped
 * by the upper bound). All or nothing (match_correct) is exact only for one
 * keyed pair with max-associations 1; otherwise the item is skipped with the
 * reason. Per-choice match-max and min-associations limit what a candidate
 * may submit, not the marking of what they do: they are not kept, and a
 * note says so.
 *
 * A graphic associate interaction (pairs of hotspots on an image) is read
 * as the same question when every hotspot has a `hotspot-label`: the items
 * are the labels and the image is shown after the prompt. Its scoring is
 * the same rule over the same pairs; what changes is that the candidate
 * pairs labels rather than places (noted). Without labels there is nothing
 * to name an item by, and the item is skipped saying so.
 *
 * Any other processing is kept (`scoring`) when it can be: read with
 * `ctx.keyOnly`, the question's key is the declared correct pairs (or,
 * when none are declared, the pairs the mapping gives points), each worth
 * its share, and max-associations is raised to hold them all (a single
 * response holds one pair).
 */
export const associateQti: QtiMapping<AssociateQuestion> = {
  interactions: ['qti-associate-interaction', 'qti-graphic-associate-interaction'],
  read: readAssociate,
  write: writeAssociate,
  summed: (_q, resp) => [score(`<qti-sum><qti-variable identifier="SCORE"/><qti-map-response identifier="${esc(resp)}"/></qti-sum>`)],
};

/** Each keyed pair's mapped value: given points as they are, the rest shares of the points that sum exactly when all are shares. */
function mappedValues(q: AssociateQuestion): number[] {
  const shares = exactWeights(q.points, q.pairs.length);
  return q.pairs.map((p, i) => p.points ?? shares[i]!);
}

function writeAssociate(q: AssociateQuestion, resp: string, w: TextWriter): { decls: Decl[]; body: string; rp: string } {
  const values = mappedValues(q);
  const keys = q.pairs.map((p) => `${p.a} ${p.b}`);
  const decl: Decl = {
    id: resp,
    cardinality: 'multiple',
    baseType: 'pair',
    correct: keys,
    mapping: { entries: keys.map((key, i) => ({ key, value: values[i]! })), lower: 0, upper: q.points },
  };
  const items = q.items.map((it) => `<qti-simple-associable-choice identifier="${esc(it.id)}" match-max="0">${w.inline(it.text)}</qti-simple-associable-choice>`).join('');
  const body = `${w.block(q.prompt)}<qti-associate-interaction response-identifier="${esc(resp)}" max-associations="${q.maxAssociations ?? 0}" shuffle="false">${items}</qti-associate-interaction>`;
  return { decls: [decl], body, rp: template('map_response') };
}

function readAssociate(ctx: Ctx, it: XElement): Omit<AssociateQuestion, 'id'> | string {
  const decl = declOf(ctx, it);
  if (typeof decl === 'string') return decl;
  if (decl.baseType !== 'pair') return `an associate interaction's response must be of base type pair, not "${decl.baseType}"`;
  const graphic = it.name === 'qti-graphic-associate-interaction';
  const els = elements(it, graphic ? 'qti-associable-hotspot' : 'qti-simple-associable-choice');
  if (els.length < 2) return `an associate interaction needs at least two ${graphic ? 'hotspots' : 'choices'}`;
  if (els.length > 50) return `an associate interaction with ${els.length} ${graphic ? 'hotspots' : 'choices'} cannot be expressed (at most 50)`;
  if (graphic && els.some((h) => !h.attrs['hotspot-label']?.trim())) {
    return 'a graphic associate interaction whose hotspots have no hotspot-label cannot be expressed: Assay names each item in words, and an unlabelled hotspot has none';
  }
  const qtiIds = els.map((c) => c.attrs['identifier'] ?? '');
  const ids = idMap(qtiIds, 'i');
  const label = (t: string) => (ctx.markdown ? escapeMarkdown(t) : t);
  const textOfChoice = (c: XElement) => (graphic ? label(c.attrs['hotspot-label']!.trim()) : textIn(ctx, c) || '(empty)');
  const items = els.map((c) => ({ id: ids.get(c.attrs['identifier'] ?? '')!, text: textOfChoice(c) }));
  // QTI's default is 1; 0 is no limit.
  const maxAttr = Number(it.attrs['max-associations'] ?? '1');
  if (!Number.isInteger(maxAttr) || maxAttr < 0) return `max-associations "${it.attrs['max-associations']}" is not a whole number`;
  const maxAssociations = maxAttr === 0 ? undefined : Math.min(maxAttr, 100);
  const limited = els.some((c) => {
    const m = Number(c.attrs['match-max'] ?? '1');
    return m !== 0 && m < els.length - 1;
  });
  if (limited || Number(it.attrs['min-associations'] ?? '0') > 0) {
    ctx.notes.push("the choices' match-max and min-associations are not kept: an item may be in any number of pairs (the marking of each answer is unchanged)");
  }
  const toPair = (value: string): { a: string; b: string } | string => {
    const parts = value.trim().split(/\s+/);
    if (parts.length !== 2 || !ids.has(parts[0]!) || !ids.has(parts[1]!)) return `the pair "${value}" does not name two choices`;
    if (parts[0] === parts[1]) return `the pair "${value}" pairs a choice with itself`;
    return { a: ids.get(parts[0]!)!, b: ids.get(parts[1]!)! };
  };
  let prompt = promptOf(ctx, it);
  if (graphic) {
    const image = elements(it).find((e) => e.name === 'img' || e.name === 'object');
    const shown = image && ctx.imageInline(image);
    if (shown) prompt = `${prompt}\n\n${shown}`;
    ctx.notes.push('the graphic associate interaction is asked as pairs of its hotspots\' labels, with the image shown after the prompt');
  }
  const shell = { type: 'associate' as const, prompt, items, ...(maxAssociations !== undefined ? { maxAssociations } : {}) };

  if (ctx.keyOnly) return keyedShell(shell, decl, toPair);
  const aon = allOrNothing(ctx.rp);
  if (aon !== null) {
    if (decl.correct.length !== 1 || maxAssociations !== 1) {
      return 'all-or-nothing scoring of several pairs cannot be expressed: an associate question gives each pair made its own points';
    }
    const pair = toPair(decl.correct[0]!);
    if (typeof pair === 'string') return pair;
    return { ...shell, points: aon as number, pairs: [pair] };
  }
  const rp = ctx.rp;
  const mapped = rp.kind === 'map_response' || (rp.kind === 'sum_map' && rp.responseIds.length === 1 && rp.responseIds[0] === decl.identifier);
  if (!mapped) return rpReason(rp);
  const m = mappingOf(ctx, decl);
  if (typeof m === 'string') return m;
  if (m.defaultValue !== 0 || m.entries.some((e) => e.value < 0)) return 'a mapping that scores or penalises pairs outside the key cannot be expressed';
  const keyed: Array<{ a: string; b: string; value: number }> = [];
  const seen = new Set<string>();
  for (const e of m.entries.filter((x) => x.value > 0)) {
    const pair = toPair(e.key);
    if (typeof pair === 'string') return pair;
    // mapResponse counts a pair once, by its first entry: a second entry for it would never be used.
    const key = pairKey({ items } as AssociateQuestion, pair.a, pair.b);
    if (seen.has(key)) return `the mapping lists the pair "${e.key}" twice`;
    seen.add(key);
    keyed.push({ ...pair, value: e.value });
  }
  if (keyed.length === 0) return 'the mapping gives no pair any points';
  if (keyed.length > 100) return `a mapping of ${keyed.length} pairs cannot be expressed (at most 100)`;
  if (maxAssociations !== undefined && maxAssociations < keyed.length) {
    return `max-associations ${maxAssociations} is less than the ${keyed.length} pairs the mapping scores, which Assay cannot express`;
  }
  const total = keyed.reduce((s, k) => s + k.value, 0);
  const points = round(m.upperBound !== null ? Math.min(m.upperBound, total) : total);
  if (!(points > 0)) return 'the mapping gives no points';
  // A value that is the default share (points ÷ pairs) needs no points of its own; any other keeps its value (no more than the points: the cap makes that the same mark).
  const share = points / keyed.length;
  return { ...shell, points, pairs: keyed.map(({ a, b, value }) => (Math.abs(value - share) < 1e-9 ? { a, b } : { a, b, points: round(Math.min(value, points)) })) };
}

type Shell = Pick<AssociateQuestion, 'type' | 'prompt' | 'items' | 'maxAssociations'>;

/** The question of an item that keeps its processing: the declared correct pairs (else the mapped ones) as the key, each once. */
function keyedShell(shell: Shell, decl: ResponseDeclaration, toPair: (v: string) => { a: string; b: string } | string): Omit<AssociateQuestion, 'id'> | string {
  const values = decl.correct.length > 0 ? decl.correct : (decl.mapping?.entries ?? []).filter((e) => e.value > 0).map((e) => e.key);
  if (values.length === 0) return 'the item declares no correct response and its mapping gives no pair points, so the question has no key';
  const pairs: Array<{ a: string; b: string }> = [];
  const seen = new Set<string>();
  for (const v of values) {
    const pair = toPair(v);
    if (typeof pair === 'string') return pair;
    const key = pairKey(shell as AssociateQuestion, pair.a, pair.b);
    if (!seen.has(key)) pairs.push(pair);
    seen.add(key);
  }
  if (pairs.length > 100) return `a key of ${pairs.length} pairs cannot be expressed (at most 100)`;
  if (decl.cardinality === 'single' && pairs.length > 1) return 'a single response declares several correct pairs';
  const limit = decl.cardinality === 'single' ? 1 : shell.maxAssociations;
  const { maxAssociations: _given, ...rest } = shell;
  return { ...rest, points: 1, pairs, ...(limit !== undefined ? { maxAssociations: Math.max(limit, pairs.length) } : {}) };
}
