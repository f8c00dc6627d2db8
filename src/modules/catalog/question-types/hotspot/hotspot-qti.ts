import { exactWeights, weightText } from '../../interchange/exact-weights.js';
import { allEqual, allOrNothing as pointsIfAllOrNothing, capped, declOf, mappingOf, promptOf, round, rpReason, valueOf } from '../../interchange/qti-item-context.js';
import { allOrNothing, score, template, type Decl } from '../../interchange/qti-writer.js';
import { elements, esc } from '../../interchange/xml.js';
import type { QtiMapping } from '../definition.js';
import { choiceXml, imageOf, imageXml, regionsOf } from '../image-regions/qti-regions.js';
import type { HotspotQuestion } from './hotspot-schema.js';

/**
 * hotspot ⇄ `qti-hotspot-interaction`. One correct region: all or nothing
 * (match_correct, or its body with the points). Several: Assay's partial
 * credit as a mapping — each correct region +w, each other region −w, the
 * sum bounded to [0, points] — under map_response, which is exactly
 * points × (right − wrong) ÷ correct, never below 0. An item read back must
 * score so, or it is skipped (or keeps its processing) naming why.
 */
export const hotspotQti: QtiMapping<HotspotQuestion> = {
  interactions: ['qti-hotspot-interaction'],

  read(ctx, it) {
    const decl = declOf(ctx, it);
    if (typeof decl === 'string') return decl;
    const image = imageOf(ctx, it);
    if (typeof image === 'string') return image;
    const choices = elements(it, 'qti-hotspot-choice');
    if (choices.length === 0) return 'a hotspot interaction needs at least one hotspot';
    const found = regionsOf(choices, ctx.notes);
    if (typeof found === 'string') return found;
    const { regions, ids } = found;
    const max = Number(it.attrs['max-choices'] ?? '1');
    const maxChoices = Number.isInteger(max) && max >= 1 && max < regions.length ? { maxChoices: max } : {};
    const prompt = promptOf(ctx, it);
    const question = (correct: string[], points: number): Omit<HotspotQuestion, 'id'> | string => {
      if (maxChoices.maxChoices !== undefined && maxChoices.maxChoices < correct.length) return `max-choices ${max} is fewer than the ${correct.length} correct hotspots`;
      return { type: 'hotspot', prompt, points, ...image, regions, correctRegionIds: correct.map((id) => ids.get(id)!), ...maxChoices };
    };
    const aon = pointsIfAllOrNothing(ctx.rp);
    if (aon !== null) {
      if (decl.correct.length === 0) return 'the item declares no correct response';
      if (decl.correct.some((v) => !ids.has(v))) return 'the correct response names a hotspot that does not exist';
      // Several correct regions are marked with partial credit; an item that gives all or nothing keeps its processing instead.
      if (decl.correct.length > 1 && !ctx.keyOnly) return 'all or nothing over several correct hotspots cannot be expressed (Assay gives partial credit for each)';
      return question(decl.correct, aon as number);
    }
    if (ctx.rp.kind !== 'map_response') return rpReason(ctx.rp);
    const m = mappingOf(ctx, decl);
    if (typeof m === 'string') return m;
    const qtiIds = choices.map((c) => c.attrs['identifier'] ?? '');
    const right = qtiIds.filter((id) => valueOf(m, id) > 0);
    const wrong = qtiIds.filter((id) => valueOf(m, id) <= 0);
    if (right.length === 0) return 'the mapping gives no hotspot any points';
    const w = valueOf(m, right[0]!);
    const total = round(w * right.length);
    // One region to choose: the others' weights never add to a single pick.
    if (max === 1 && right.length === 1) return question(right, round(capped(m, w)));
    const weightsOk = allEqual(right.map((id) => valueOf(m, id))) && wrong.every((id) => Math.abs(valueOf(m, id) + w) < 1e-9);
    if (!weightsOk || (wrong.length > 0 && m.lowerBound !== 0) || (m.upperBound !== null && m.upperBound < total - 1e-9)) {
      return "map_response weights that Assay's partial credit cannot reproduce (Assay: each correct hotspot w, each other hotspot −w, never below 0)";
    }
    return question(right, total);
  },

  write(q, resp, w) {
    const several = q.correctRegionIds.length > 1;
    const shares = exactWeights(q.points, q.correctRegionIds.length);
    const share = new Map(q.correctRegionIds.map((id, i) => [id, shares[i]!]));
    const decl: Decl = {
      id: resp,
      cardinality: q.maxChoices === 1 ? 'single' : 'multiple',
      baseType: 'identifier',
      correct: q.correctRegionIds,
      ...(several ? { mapping: { entries: q.regions.map((r) => ({ key: r.id, value: share.get(r.id) ?? -shares[0]! })), lower: 0, upper: q.points } } : {}),
    };
    const body =
      w.block(q.prompt) +
      `<qti-hotspot-interaction response-identifier="${esc(resp)}" max-choices="${q.maxChoices ?? 0}">${imageXml(q)}${q.regions.map((r) => choiceXml(r)).join('')}</qti-hotspot-interaction>`;
    return { decls: [decl], body, rp: several ? template('map_response') : allOrNothing(q.points) };
  },

  summed(q, resp) {
    const add = (v: string) => score(`<qti-sum><qti-variable identifier="SCORE"/>${v}</qti-sum>`);
    if (q.correctRegionIds.length > 1) return [add(`<qti-map-response identifier="${esc(resp)}"/>`)];
    const cond = `<qti-match><qti-variable identifier="${esc(resp)}"/><qti-correct identifier="${esc(resp)}"/></qti-match>`;
    return [`<qti-response-condition><qti-response-if>${cond}${add(`<qti-base-value base-type="float">${weightText(q.points)}</qti-base-value>`)}</qti-response-if></qti-response-condition>`];
  },
};
