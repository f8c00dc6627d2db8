import { exactWeights } from '../../interchange/exact-weights.js';
import { allEqual, allOrNothing as aonPoints, capped, declOf, idMap, mappingOf, promptOf, round, rpReason, textIn, valueOf, type Ctx } from '../../interchange/qti-item-context.js';
import { allOrNothing, base, template, type Decl, type TextWriter } from '../../interchange/qti-writer.js';
import { descendants, esc, type XElement } from '../../interchange/xml.js';
import type { ResponseDeclaration } from '../../interchange/response-processing.js';
import type { QtiMapping } from '../definition.js';
import { HOTSPOT_PLACEHOLDER, type HotTextQuestion } from './hot-text-schema.js';

/**
 * hot_text as QTI's hottextInteraction: the text inside the interaction
 * with each phrase a `qti-hottext` where its `{{id}}` stands.
 *
 * Marking both ways: one correct hotspot is all or nothing (match_correct,
 * or its body with the points). Several are map_response with each correct
 * hotspot worth w = points ÷ correct, each other −w, bounded to 0 … points:
 * exactly points × (right − wrong) ÷ correct, never below 0, Assay's rule.
 * An item scored otherwise keeps its processing (`scoring`) when it can:
 * read with `ctx.keyOnly`, the question's key is the declared correct
 * hottexts (or, when none are declared, those the mapping gives points),
 * and a single response allows one pick.
 */
export const hotTextQti: QtiMapping<HotTextQuestion> = {
  interactions: ['qti-hottext-interaction'],

  read(ctx: Ctx, it: XElement): Omit<HotTextQuestion, 'id'> | string {
    const decl = declOf(ctx, it);
    if (typeof decl === 'string') return decl;
    const spots = descendants(it).filter((e) => e.name === 'qti-hottext');
    if (spots.length === 0) return 'a hottext interaction needs at least one hottext';
    const qtiIds = spots.map((s) => s.attrs['identifier'] ?? '');
    if (new Set(qtiIds).size !== qtiIds.length) return 'two hottexts share an identifier';
    const ids = idMap(qtiIds, 'h');
    const hotspots = spots.map((s) => ({ id: ids.get(s.attrs['identifier'] ?? '')!, phrase: textIn(ctx, s).replace(/\s+/g, ' ').trim() || '(empty)' }));
    // QTI's max-choices defaults to 1; 0 is "any number".
    const maxAttr = Number(it.attrs['max-choices'] ?? '1');
    if (!Number.isInteger(maxAttr) || maxAttr < 0) return `max-choices "${it.attrs['max-choices']}" is not a whole number`;
    // Kept processing reads a single response as one hottext, whatever max-choices says.
    const maxChoices = ctx.keyOnly && decl.cardinality === 'single' ? 1 : maxAttr === 0 ? undefined : Math.min(maxAttr, hotspots.length);
    if (it.attrs['min-choices'] && Number(it.attrs['min-choices']) > 1) ctx.notes.push('min-choices is not enforced: any number up to max-choices may be chosen');
    const text = textIn(ctx, it, {
      skip: (e) => e.name === 'qti-prompt',
      inline: (e) => (e.name === 'qti-hottext' ? `{{${ids.get(e.attrs['identifier'] ?? '')}}}` : ctx.imageInline(e)),
    });
    const base = { type: 'hot_text' as const, prompt: promptOf(ctx, it), text, hotspots, ...(maxChoices !== undefined ? { maxChoices } : {}) };

    if (ctx.keyOnly) {
      const key = keyOf(decl);
      if (key.length === 0) return 'the item declares no correct response and its mapping gives no hottext points, so the question has no key';
      if (key.some((v) => !ids.has(v))) return 'the correct response names a hottext that does not exist';
      if (decl.cardinality === 'single' && key.length > 1) return 'a single response declares several correct hottexts';
      return { ...base, points: 1, correct: key.map((v) => ids.get(v)!), ...fitMax(maxChoices, key.length) };
    }
    const aon = aonPoints(ctx.rp);
    if (aon !== null && typeof aon === 'number') {
      if (decl.correct.length === 0) return 'the item declares no correct response';
      if (decl.correct.some((v) => !ids.has(v))) return 'the correct response names a hottext that does not exist';
      // All or nothing over several hotspots is not Assay's rule.
      if (decl.correct.length > 1) return 'all-or-nothing scoring of several correct hottexts cannot be expressed (Assay gives partial credit for each)';
      return { ...base, points: aon, correct: decl.correct.map((v) => ids.get(v)!), ...fitMax(maxChoices, decl.correct.length) };
    }
    if (ctx.rp.kind !== 'map_response') return rpReason(ctx.rp);
    const m = mappingOf(ctx, decl);
    if (typeof m === 'string') return m;
    const values = qtiIds.map((id) => valueOf(m, id));
    const right = qtiIds.filter((_, i) => values[i]! > 0);
    if (right.length === 0) return 'the mapping gives no hottext any points';
    const w = values.find((v) => v > 0)!;
    const wrong = qtiIds.filter((_, i) => values[i]! <= 0);
    // A single pick (max-choices 1) never sums a wrong value with a right one: a wrong one needs only to give nothing.
    const single = maxChoices === 1 && right.length === 1;
    const weightsOk = allEqual(right.map((id) => valueOf(m, id))) && wrong.every((id) => (single ? valueOf(m, id) <= 0 : Math.abs(valueOf(m, id) + w) < 1e-9));
    const boundsOk = wrong.length === 0 || m.lowerBound === 0 || (single && wrong.every((id) => valueOf(m, id) === 0));
    const total = round(w * right.length);
    if (!weightsOk || !boundsOk || (m.upperBound !== null && m.upperBound < total - 1e-9)) {
      return "map_response weights that Assay's hot text marking cannot reproduce (Assay: each correct hottext w, each other −w, never below 0)";
    }
    return { ...base, points: round(capped(m, total)), correct: right.map((id) => ids.get(id)!), ...fitMax(maxChoices, right.length) };
  },

  write(q, resp, w) {
    const decls: Decl[] = [hotTextDecl(q, resp)];
    const body = w.block(q.prompt) + `<qti-hottext-interaction response-identifier="${esc(resp)}" max-choices="${q.maxChoices ?? 0}">${hotTextBody(q, w)}</qti-hottext-interaction>`;
    const rp = q.correct.length > 1 ? template('map_response') : allOrNothing(q.points);
    return { decls, body, rp };
  },

  summed(q, resp) {
    const add = (v: string) => `<qti-set-outcome-value identifier="SCORE"><qti-sum><qti-variable identifier="SCORE"/>${v}</qti-sum></qti-set-outcome-value>`;
    if (q.correct.length > 1) return [add(`<qti-map-response identifier="${esc(resp)}"/>`)];
    return [
      `<qti-response-condition><qti-response-if><qti-match><qti-variable identifier="${esc(resp)}"/><qti-correct identifier="${esc(resp)}"/></qti-match>${add(base('float', q.points))}</qti-response-if></qti-response-condition>`,
    ];
  },
};

/** The key of an item that keeps its processing: the declared correct hottexts, else the ones its mapping gives points, each once. */
function keyOf(decl: ResponseDeclaration): string[] {
  const key = decl.correct.length > 0 ? decl.correct : (decl.mapping?.entries ?? []).filter((e) => e.value > 0).map((e) => e.key);
  return [...new Set(key)];
}

/** An imported max-choices below the correct count could never earn full points: it is raised to the count. */
function fitMax(maxChoices: number | undefined, correct: number): { maxChoices?: number } {
  return maxChoices === undefined ? {} : { maxChoices: Math.max(maxChoices, correct) };
}

/** The response: the correct hotspots, and with several a mapping that gives Assay's partial credit exactly. */
function hotTextDecl(q: HotTextQuestion, resp: string): Decl {
  const cardinality = q.maxChoices === 1 ? 'single' : 'multiple';
  if (q.correct.length === 1) return { id: resp, cardinality, baseType: 'identifier', correct: q.correct };
  // Shares whose sum, in the order the correct hotspots are listed, is exactly the points.
  const shares = exactWeights(q.points, q.correct.length);
  const share = new Map(q.correct.map((id, i) => [id, shares[i]!]));
  const entries = q.hotspots.map((h) => ({ key: h.id, value: share.get(h.id) ?? -shares[0]! }));
  return { id: resp, cardinality, baseType: 'identifier', correct: q.correct, mapping: { entries, lower: 0, upper: q.points } };
}

/** The text as block content, each placeholder a qti-hottext holding its phrase. */
function hotTextBody(q: HotTextQuestion, w: TextWriter): string {
  const byId = new Map(q.hotspots.map((h) => [h.id, h]));
  return w.block(q.text).replace(new RegExp(HOTSPOT_PLACEHOLDER.source, 'g'), (whole: string, id: string) => {
    const h = byId.get(id);
    return h ? `<qti-hottext identifier="${esc(h.id)}">${w.inline(h.phrase)}</qti-hottext>` : whole;
  });
}
