import { Type, type Static } from '@sinclair/typebox';
import type { ErrorDetail } from '../../../../platform/errors.js';
import { common, PartId as Id, PartRef as Ref, scoring } from '../common-fields.js';
import type { AnswerJson, CheckedValue, QuestionMark } from '../definition.js';

/**
 * The associate question (QTI associateInteraction): one list of items, and
 * the candidate makes unordered pairs of them. Glossary: an *item* is one of
 * the things paired; a *pair* is two different items, either way round
 * ([a, b] is [b, a]); the *key* is the question's `pairs`, each worth its
 * `points` (default: the question's points ÷ the number of pairs).
 *
 * An item may be in any number of pairs (QTI's per-choice match-max is not
 * kept: the fields are fixed as items, pairs, maxAssociations); the
 * candidate makes at most `maxAssociations` pairs (absent: no limit but the
 * answer's bound). Marking is QTI's map_response over pairs: each keyed
 * pair made earns its points, any other pair nothing, the sum capped at the
 * question's points.
 */

/** The most items, keyed pairs and pairs in an answer. */
export const MAX_ITEMS = 50;
export const MAX_PAIRS = 100;

const Item = Type.Object(
  { id: Id, text: Type.String({ minLength: 1, maxLength: 2_000 }) },
  { additionalProperties: false, title: 'AssociateItem' },
);
const Pair = Type.Object(
  {
    a: Ref,
    b: Ref,
    points: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 10_000, description: "What making this pair earns, at most the question's points; absent: the question's points ÷ the number of pairs" })),
  },
  { additionalProperties: false, title: 'AssociatePair', description: 'Two different items, either way round' },
);

export const Associate = Type.Object(
  {
    type: Type.Literal('associate'),
    ...common,
    items: Type.Array(Item, { minItems: 2, maxItems: MAX_ITEMS, description: 'The things to pair, in the order shown; an item may be in several pairs' }),
    pairs: Type.Array(Pair, { minItems: 1, maxItems: MAX_PAIRS, description: 'The key: the pairs that earn points' }),
    maxAssociations: Type.Optional(
      Type.Integer({ minimum: 1, maximum: MAX_PAIRS, description: 'The most pairs a candidate may make, at least the number of keyed pairs; absent: no limit' }),
    ),
    ...scoring,
  },
  { additionalProperties: false, title: 'AssociateQuestion' },
);

export type AssociateQuestion = Static<typeof Associate> & { id: string };

/** A stored answer: the pairs made, each `[a, b]` with a before b in item order, the pairs in item order. */
export const AssociateAnswer = Type.Array(Type.Array(Ref, { minItems: 2, maxItems: 2 }), {
  maxItems: MAX_PAIRS,
  title: 'AssociateAnswer',
  description: 'associate: the pairs made, [[itemId, itemId], …], either way round',
});

const quoted = (v: unknown) => {
  const text = typeof v === 'string' ? v : (JSON.stringify(v) ?? String(v));
  return JSON.stringify(text.length > 64 ? `${text.slice(0, 64)}…` : text);
};
const EPS = 1e-9;

/** A pair's key, the same either way round: its two ids in item order. */
export function pairKey(q: AssociateQuestion, a: string, b: string): string {
  const at = itemIndex(q);
  return (at.get(a) ?? 0) <= (at.get(b) ?? 0) ? `${a}+${b}` : `${b}+${a}`;
}
const itemIndex = (q: AssociateQuestion) => new Map(q.items.map((it, i) => [it.id, i]));

/** Each keyed pair's points, defaults filled in. */
export const pairPoints = (q: AssociateQuestion): number[] => q.pairs.map((p) => p.points ?? q.points / q.pairs.length);

export function checkAssociate(q: AssociateQuestion, at: string, details: ErrorDetail[]): void {
  const ids = new Set<string>();
  q.items.forEach((it, i) => {
    if (ids.has(it.id)) details.push({ field: `${at}.items.${i}.id`, message: `${quoted(it.id)} is already the id of another item` });
    ids.add(it.id);
  });
  const seen = new Set<string>();
  q.pairs.forEach((p, i) => {
    const where = `${at}.pairs.${i}`;
    if (!ids.has(p.a)) details.push({ field: `${where}.a`, message: `${quoted(p.a)} is not an item of this question` });
    if (!ids.has(p.b)) details.push({ field: `${where}.b`, message: `${quoted(p.b)} is not an item of this question` });
    if (!ids.has(p.a) || !ids.has(p.b)) return;
    if (p.a === p.b) details.push({ field: `${where}.b`, message: 'pairs an item with itself; a pair is two different items' });
    const key = pairKey(q, p.a, p.b);
    if (seen.has(key)) details.push({ field: where, message: `pairs ${quoted(p.a)} and ${quoted(p.b)}, as an earlier pair does` });
    seen.add(key);
    if (p.points !== undefined && p.points > q.points + EPS) details.push({ field: `${where}.points`, message: `is more than the question's ${q.points} points` });
  });
  const total = pairPoints(q).reduce((s, v) => s + v, 0);
  if (total < q.points - EPS) {
    details.push({ field: `${at}.pairs`, message: `the pairs' points add up to ${round(total)}, less than the question's ${q.points}: no answer could earn full marks` });
  }
  if (q.maxAssociations !== undefined && q.maxAssociations < q.pairs.length) {
    details.push({ field: `${at}.maxAssociations`, message: `must be at least the number of keyed pairs (${q.pairs.length}), or no answer could hold the whole key` });
  }
}

/**
 * A value from the page or simulate, checked and normalised: each pair's
 * ids in item order, the pairs sorted by item order; an empty list is null.
 */
export function checkAnswer(q: AssociateQuestion, value: AnswerJson): CheckedValue {
  if (value === null) return { ok: true, value: null };
  if (!Array.isArray(value) || value.some((p) => !Array.isArray(p) || p.length !== 2 || p.some((v) => typeof v !== 'string'))) {
    return { ok: false, message: 'must be an array of pairs of item ids, [["a", "b"], …], or null' };
  }
  const index = itemIndex(q);
  const pairs: Array<[string, string]> = [];
  const seen = new Set<string>();
  for (const p of value as ReadonlyArray<readonly [string, string]>) {
    for (const id of p) if (!index.has(id)) return { ok: false, message: `${quoted(id)} is not an item of this question` };
    const [a, b] = index.get(p[0])! <= index.get(p[1])! ? [p[0], p[1]] : [p[1], p[0]];
    if (a === b) return { ok: false, message: `pairs ${quoted(a)} with itself; a pair is two different items` };
    if (seen.has(`${a}+${b}`)) return { ok: false, message: `pairs ${quoted(a)} and ${quoted(b)} twice` };
    seen.add(`${a}+${b}`);
    pairs.push([a, b]);
  }
  const limit = q.maxAssociations ?? MAX_PAIRS;
  if (pairs.length > limit) return { ok: false, message: `holds ${pairs.length} pairs; this question takes at most ${limit}` };
  if (pairs.length === 0) return { ok: true, value: null };
  pairs.sort((x, y) => index.get(x[0])! - index.get(y[0])! || index.get(x[1])! - index.get(y[1])!);
  return { ok: true, value: pairs };
}

/** The answer's pairs as keys (`a+b`, ids in item order); nothing for a value of another shape. */
export function chosenKeys(q: AssociateQuestion, value: AnswerJson): string[] {
  if (!Array.isArray(value)) return [];
  const out: string[] = [];
  for (const p of value) if (Array.isArray(p) && p.length === 2 && typeof p[0] === 'string' && typeof p[1] === 'string') out.push(pairKey(q, p[0], p[1]));
  return [...new Set(out)];
}

/** Each keyed pair made earns its points; other pairs earn nothing; the sum is capped at the question's points. */
export function markAssociate(q: AssociateQuestion, value: AnswerJson): QuestionMark {
  const made = new Set(chosenKeys(q, value));
  const points = pairPoints(q);
  const sum = q.pairs.reduce((s, p, i) => (made.has(pairKey(q, p.a, p.b)) ? s + points[i]! : s), 0);
  return { kind: 'auto', points: round(Math.min(q.points, sum)) };
}

/** Points to four decimals, as marks are stored. */
export const round = (n: number) => Math.round(n * 10_000) / 10_000;
