import { declOf, idMap, promptOf, textIn, type Ctx } from '../../interchange/qti-item-context.js';
import { escapeMarkdown } from '../../interchange/xhtml-markdown.js';
import { descendants, elements, textOf, type XElement } from '../../interchange/xml.js';
import { matchingByRule } from './qti.js';
import type { MatchingQuestion } from './schema.js';

/**
 * A graphic gap match interaction (gap texts or gap images dragged onto
 * hotspots of an image) read as a matching question: each hotspot is a stem
 * named by its `hotspot-label`, each gap a choice named by its text (a gap
 * image by its `object-label`, else its image's alt text), and the image is
 * shown after the prompt. QTI's response is a `directedPair` "gap hotspot";
 * a matching key is `{ hotspot: gap }`, so each pair is read the other way
 * round, and the item is marked by match (all or nothing) or a mapping of
 * equal points per pair, as a match interaction is.
 *
 * Refused, with the reason: a hotspot without a label (a stem needs words;
 * the page does not draw the hotspots), a gap image without a text
 * alternative, a hotspot that takes several gaps (a stem takes one choice),
 * fewer associations allowed than hotspots, and processing no matching rule
 * reproduces: a matching question's kept processing would be given its
 * pairs as "hotspot gap", the reverse of what the item's processing reads,
 * so it is not kept.
 */
export function readGraphicGapMatch(ctx: Ctx, it: XElement): Omit<MatchingQuestion, 'id'> | string {
  if (ctx.keyOnly) {
    return "a graphic gap match whose processing no matching rule reproduces cannot keep it: its pairs run gap to hotspot, the reverse of a matching answer's, so the processing would read them wrongly";
  }
  const decl = declOf(ctx, it);
  if (typeof decl === 'string') return decl;
  if (decl.baseType !== 'directedPair') return `a graphic gap match's response must be of base type directedPair, not "${decl.baseType}"`;
  const hotspotEls = elements(it, 'qti-associable-hotspot');
  const gapEls = elements(it).filter((e) => e.name === 'qti-gap-text' || e.name === 'qti-gap-img');
  if (hotspotEls.length < 1 || gapEls.length < 2) return 'a graphic gap match needs at least one hotspot and two gaps';
  if (hotspotEls.length > 50 || gapEls.length > 50) return 'a graphic gap match with more than 50 hotspots or gaps cannot be expressed';
  if (hotspotEls.some((h) => !h.attrs['hotspot-label']?.trim())) {
    return 'a graphic gap match whose hotspots have no hotspot-label cannot be expressed: Assay names each place in words, and an unlabelled hotspot has none';
  }
  // A hotspot that takes several gaps (match-max 0 is any number) would need several choices on one stem.
  const several = hotspotEls.find((h) => (h.attrs['match-max'] ?? '1').trim() !== '1');
  if (several) return `hotspot "${several.attrs['identifier'] ?? ''}" takes ${several.attrs['match-max'] === '0' ? 'any number of' : several.attrs['match-max']} gaps; a matching question puts one choice on each place`;
  const maxAssoc = Number(it.attrs['max-associations'] ?? '0');
  if (Number.isInteger(maxAssoc) && maxAssoc > 0 && maxAssoc < hotspotEls.length) {
    return `max-associations ${maxAssoc} is fewer than the ${hotspotEls.length} hotspots, which Assay cannot express (every place takes a gap)`;
  }
  const label = (t: string) => (ctx.markdown ? escapeMarkdown(t) : t);
  const gapText = (g: XElement): string | null => {
    if (g.name === 'qti-gap-text') return textIn(ctx, g).replace(/\s+/g, ' ').trim() || '(empty)';
    const img = descendants(g).find((e) => e.name === 'img' || e.name === 'object');
    const alt = (g.attrs['object-label'] ?? '').trim() || (img?.attrs['alt'] ?? '').trim() || (img?.name === 'object' ? textOf(img).trim() : '');
    return alt ? label(alt.replace(/\s+/g, ' ').slice(0, 2_000)) : null;
  };
  const unnamed = gapEls.find((g) => gapText(g) === null);
  if (unnamed) return `gap image "${unnamed.attrs['identifier'] ?? ''}" has no text alternative (object-label, or its image's alt), so it cannot be a choice in words`;
  const stemIds = idMap(hotspotEls.map((h) => h.attrs['identifier'] ?? ''), 's');
  const choiceIds = idMap(gapEls.map((g) => g.attrs['identifier'] ?? ''), 'c');
  const stems = hotspotEls.map((h) => ({ id: stemIds.get(h.attrs['identifier'] ?? '')!, text: label(h.attrs['hotspot-label']!.trim().slice(0, 2_000)) }));
  const choices = gapEls.map((g) => ({ id: choiceIds.get(g.attrs['identifier'] ?? '')!, text: gapText(g)! }));
  if (gapEls.some((g) => (g.attrs['match-max'] ?? '1').trim() !== '0')) {
    ctx.notes.push("the gaps' match-max is not kept: a gap may be placed on several hotspots (the marking of each answer is unchanged)");
  }
  // The background image: the interaction's own, not a gap's.
  const image = elements(it).find((e) => e.name === 'img' || e.name === 'object');
  const shown = image && ctx.imageInline(image);
  const prompt = shown ? `${promptOf(ctx, it)}\n\n${shown}` : promptOf(ctx, it);
  ctx.notes.push("the graphic gap match is asked as a matching of its hotspots' labels to the gaps, with the image shown after the prompt");
  const pairsToCorrect = (pairs: string[]): Record<string, string> | string => {
    const correct: Record<string, string> = {};
    for (const p of pairs) {
      const [g, h] = p.trim().split(/\s+/);
      if (!g || !h || !choiceIds.has(g) || !stemIds.has(h)) return `the pair "${p}" does not name a gap and a hotspot`;
      if (correct[stemIds.get(h)!]) return 'a hotspot with several correct gaps cannot be expressed (Assay matches each place to one choice)';
      correct[stemIds.get(h)!] = choiceIds.get(g)!;
    }
    if (Object.keys(correct).length !== stems.length) return 'every hotspot needs exactly one correct gap';
    return correct;
  };
  return matchingByRule(ctx, decl, { prompt, stems, choices }, pairsToCorrect);
}
