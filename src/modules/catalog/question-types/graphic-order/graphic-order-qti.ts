import { exactWeights, weightText } from '../../interchange/exact-weights.js';
import { allEqual, allOrNothing as pointsIfAllOrNothing, declOf, promptOf, round, rpReason } from '../../interchange/qti-item-context.js';
import { allOrNothing, base, score } from '../../interchange/qti-writer.js';
import { elements, esc } from '../../interchange/xml.js';
import type { QtiMapping } from '../definition.js';
import { choiceXml, imageOf, imageXml, regionsOf } from '../image-regions/qti-regions.js';
import type { GraphicOrderQuestion } from './graphic-order-schema.js';

/**
 * graphic_order ⇄ `qti-graphic-order-interaction`, scored as ordering is:
 * all or nothing (match_correct, or its body with the points), or with
 * partialCredit SCORE = 0 then + an equal share for each position holding
 * its region (the `positions` form the importer reads).
 */
export const graphicOrderQti: QtiMapping<GraphicOrderQuestion> = {
  interactions: ['qti-graphic-order-interaction'],

  read(ctx, it) {
    const decl = declOf(ctx, it);
    if (typeof decl === 'string') return decl;
    const image = imageOf(ctx, it);
    if (typeof image === 'string') return image;
    const choices = elements(it, 'qti-hotspot-choice');
    if (choices.length < 2) return 'a graphic order interaction needs at least two hotspots';
    const found = regionsOf(choices, ctx.notes);
    if (typeof found === 'string') return found;
    const { regions, ids } = found;
    if (decl.correct.length !== choices.length || new Set(decl.correct).size !== choices.length || decl.correct.some((v) => !ids.has(v))) {
      return 'the correct order must list every hotspot once';
    }
    const byId = new Map(regions.map((r) => [r.id, r]));
    const ordered = decl.correct.map((v) => byId.get(ids.get(v)!)!);
    const question = (points: number, partialCredit: boolean): Omit<GraphicOrderQuestion, 'id'> => ({
      type: 'graphic_order',
      prompt: promptOf(ctx, it),
      points,
      ...image,
      regions: ordered,
      partialCredit,
    });
    const aon = pointsIfAllOrNothing(ctx.rp);
    if (aon !== null) return question(aon as number, false);
    const rp = ctx.rp;
    if (rp.kind !== 'positions') return rpReason(rp);
    const ok =
      rp.positions.length === choices.length &&
      allEqual(rp.positions.map((p) => p.weight)) &&
      rp.positions.every((p, i) => p.index === i + 1 && p.id === decl.correct[i]) &&
      rp.positions[0]!.weight > 0;
    if (!ok) return 'position scoring that is not equal points for each hotspot in its correct place cannot be expressed';
    return question(round(rp.positions[0]!.weight * choices.length), true);
  },

  write(q, resp, w) {
    const r = esc(resp);
    const body =
      w.block(q.prompt) +
      `<qti-graphic-order-interaction response-identifier="${r}">${imageXml(q)}${q.regions.map((region) => choiceXml(region)).join('')}</qti-graphic-order-interaction>`;
    const decls = [{ id: resp, cardinality: 'ordered' as const, baseType: 'identifier', correct: q.regions.map((region) => region.id) }];
    if (!q.partialCredit) return { decls, body, rp: allOrNothing(q.points) };
    // Points × regions in their correct place ÷ regions: one condition per position.
    const rp = `  <qti-response-processing>\n    ${score(base('float', 0))}\n${positionRules(q, resp).map((c) => `    ${c}\n`).join('')}  </qti-response-processing>\n`;
    return { decls, body, rp };
  },

  summed(q, resp) {
    if (q.partialCredit) return positionRules(q, resp);
    const add = score(`<qti-sum><qti-variable identifier="SCORE"/><qti-base-value base-type="float">${weightText(q.points)}</qti-base-value></qti-sum>`);
    return [`<qti-response-condition><qti-response-if><qti-match><qti-variable identifier="${esc(resp)}"/><qti-correct identifier="${esc(resp)}"/></qti-match>${add}</qti-response-if></qti-response-condition>`];
  },
};

/** SCORE = SCORE + a share, for each position holding its region (the shares sum to exactly the points). */
function positionRules(q: GraphicOrderQuestion, resp: string): string[] {
  const shares = exactWeights(q.points, q.regions.length);
  return q.regions.map(
    (region, i) =>
      `<qti-response-condition><qti-response-if><qti-match><qti-index n="${i + 1}"><qti-variable identifier="${esc(resp)}"/></qti-index>${base('identifier', region.id)}</qti-match>` +
      `${score(`<qti-sum><qti-variable identifier="SCORE"/><qti-base-value base-type="float">${weightText(shares[i]!)}</qti-base-value></qti-sum>`)}</qti-response-if></qti-response-condition>`,
  );
}
