import { allEqual, allOrNothing, declOf, idMap, promptOf, round, rpReason, textIn, type Ctx } from '../../interchange/qti-item-context.js';
import { exactWeights, weightText } from '../../interchange/exact-weights.js';
import { allOrNothing as allOrNothingRp, base, score, type Decl, type TextWriter } from '../../interchange/qti-writer.js';
import { elements, esc, type XElement } from '../../interchange/xml.js';
import type { OrderingQuestion } from './schema.js';

/**
 * An order interaction as an ordering question: its choices the items, the
 * declared correct order their order. Marked by match (all or nothing), or
 * one condition per position worth the same for each item in its correct
 * place (partial credit).
 */
export function readOrdering(ctx: Ctx, it: XElement): Omit<OrderingQuestion, 'id'> | string {
  const decl = declOf(ctx, it);
  if (typeof decl === 'string') return decl;
  const els = elements(it, 'qti-simple-choice');
  const ids = idMap(els.map((c) => c.attrs['identifier'] ?? ''), 'i');
  const textById = new Map(els.map((c) => [c.attrs['identifier'] ?? '', textIn(ctx, c) || '(empty)']));
  if (els.length < 2) return 'an order interaction needs at least two items';
  if (decl.correct.length !== els.length || new Set(decl.correct).size !== els.length || decl.correct.some((v) => !ids.has(v))) {
    return 'the correct order must list every item once';
  }
  const items = decl.correct.map((v) => ({ id: ids.get(v)!, text: textById.get(v)! }));
  const prompt = promptOf(ctx, it);
  const aon = allOrNothing(ctx.rp);
  if (aon !== null) return { type: 'ordering', prompt, points: aon as number, items, partialCredit: false };
  const rp = ctx.rp;
  if (rp.kind === 'positions') {
    const ok =
      rp.positions.length === els.length &&
      allEqual(rp.positions.map((p) => p.weight)) &&
      rp.positions.every((p, i) => p.index === i + 1 && p.id === decl.correct[i]) &&
      rp.positions[0]!.weight > 0;
    if (!ok) return 'position scoring that is not equal points for each item in its correct place cannot be expressed';
    return { type: 'ordering', prompt, points: round(rp.positions[0]!.weight * els.length), items, partialCredit: true };
  }
  return rpReason(rp);
}

/** One condition per position adding that item's share (the shares sum, in the items' order, to exactly the points). */
const positionRules = (q: OrderingQuestion, resp: string, add: (share: string) => string): string[] => {
  const shares = exactWeights(q.points, q.items.length);
  return q.items.map(
    (item, i) =>
      `<qti-response-condition><qti-response-if><qti-match><qti-index n="${i + 1}"><qti-variable identifier="${resp}"/></qti-index>${base('identifier', item.id)}</qti-match>${add(`<qti-base-value base-type="float">${weightText(shares[i]!)}</qti-base-value>`)}</qti-response-if></qti-response-condition>`,
  );
};

/** An order interaction declaring the correct order; with partial credit SCORE = 0 and a share per item in its place, else all or nothing. */
export function writeOrdering(q: OrderingQuestion, resp: string, w: TextWriter): { decls: Decl[]; body: string; rp: string } {
  const decls: Decl[] = [{ id: resp, cardinality: 'ordered', baseType: 'identifier', correct: q.items.map((i) => i.id) }];
  const body = `${w.block(q.prompt)}<qti-order-interaction response-identifier="${resp}" shuffle="true">${q.items.map((i) => `<qti-simple-choice identifier="${esc(i.id)}">${w.inline(i.text)}</qti-simple-choice>`).join('')}</qti-order-interaction>`;
  if (!q.partialCredit) return { decls, body, rp: allOrNothingRp(q.points) };
  // Points × items in their correct place ÷ items: one condition per position.
  const rules = positionRules(q, resp, (share) => score(`<qti-sum><qti-variable identifier="SCORE"/>${share}</qti-sum>`));
  const rp = `  <qti-response-processing>\n    ${score(base('float', 0))}\n` + rules.map((r) => `    ${r}\n`).join('') + `  </qti-response-processing>\n`;
  return { decls, body, rp };
}

/** As a composite's part: one condition per position (partial credit), else the points when the whole order is right. */
export function summedOrdering(q: OrderingQuestion, resp: string): string[] {
  const add = (v: string) => score(`<qti-sum><qti-variable identifier="SCORE"/>${v}</qti-sum>`);
  if (q.partialCredit) return positionRules(q, esc(resp), add);
  const cond = `<qti-match><qti-variable identifier="${esc(resp)}"/><qti-correct identifier="${esc(resp)}"/></qti-match>`;
  return [`<qti-response-condition><qti-response-if>${cond}${add(base('float', q.points))}</qti-response-if></qti-response-condition>`];
}
