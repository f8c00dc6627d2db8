import type { QuestionInput } from '../schemas.js';
import { descendants, elements, first, type XElement } from './xml.js';
import { textIn, INLINE, allEqual, allOrNothing, capped, declOf, idMap, mappingOf, round, rpReason, valueOf, type Ctx } from './qti-item-context.js';

/** Text entries and inline choices: one blank each, the body's text with {{id}} where each stands. */
export function fillBlanks(ctx: Ctx, interactions: XElement[]): QuestionInput | string {
  const respIds = interactions.map((i) => i.attrs['response-identifier'] ?? '');
  const blankIds = idMap(respIds, 'b');
  const rp = ctx.rp;
  const single = interactions.length === 1;
  let weights: number[] = [];
  const blanks: Extract<QuestionInput, { type: 'fill_blanks' }>['blanks'] = [];
  const byMap = rp.kind === 'sum_map' || (rp.kind === 'map_response' && single);
  if (rp.kind === 'sum_map' && (rp.responseIds.length !== respIds.length || new Set(rp.responseIds).size !== respIds.length || rp.responseIds.some((id) => !respIds.includes(id)))) {
    return 'the response processing must sum the mapping of each blank once';
  }
  // Built from the key alone (the item keeps its own processing), every blank takes its declared correct response.
  const aon = single || ctx.keyOnly ? allOrNothing(rp) : null;
  if (!byMap && aon === null) {
    return rp.kind === 'match_correct' || rp.kind === 'conditional' || rp.kind === 'map_response'
      ? 'all-or-nothing scoring across several blanks cannot be expressed (Assay splits the points equally across blanks)'
      : rpReason(rp);
  }
  for (const it of interactions) {
    const decl = declOf(ctx, it);
    if (typeof decl === 'string') return decl;
    const id = blankIds.get(decl.identifier)!;
    if (it.name === 'qti-inline-choice-interaction') {
      const opts = elements(it, 'qti-inline-choice');
      if (opts.length < 2) return 'an inline choice needs at least two choices';
      const optIds = idMap(opts.map((o) => o.attrs['identifier'] ?? ''), 'o');
      let correctKey: string | undefined;
      if (byMap) {
        const m = decl.mapping;
        if (!m) return `blank "${decl.identifier}" has no mapping`;
        const pos = opts.filter((o) => valueOf(m, o.attrs['identifier'] ?? '') > 0);
        if (pos.length !== 1 || opts.some((o) => valueOf(m, o.attrs['identifier'] ?? '') < 0)) return `blank "${decl.identifier}" scores several choices, which cannot be expressed`;
        correctKey = pos[0]!.attrs['identifier'];
        weights.push(capped(m, valueOf(m, correctKey!)));
      } else {
        correctKey = decl.correct[0];
        weights = [aon as number];
      }
      if (!correctKey || !optIds.has(correctKey)) return `blank "${decl.identifier}" has no correct choice`;
      blanks.push({ id, kind: 'choice', options: opts.map((o) => ({ id: optIds.get(o.attrs['identifier'] ?? '')!, text: textIn(ctx, o) || '(empty)' })), correctOptionId: optIds.get(correctKey)! });
    } else {
      let accepted: string[];
      let caseSensitive = true;
      if (byMap) {
        const m = decl.mapping;
        if (!m) return `blank "${decl.identifier}" has no mapping`;
        const pos = m.entries.filter((e) => e.value > 0);
        if (pos.length === 0 || !allEqual(pos.map((e) => e.value)) || m.defaultValue !== 0 || m.entries.some((e) => e.value < 0)) {
          return `blank "${decl.identifier}" has a mapping with unequal or negative points, which cannot be expressed`;
        }
        if (new Set(pos.map((e) => e.caseSensitive)).size > 1) return `blank "${decl.identifier}" mixes case-sensitive and case-insensitive answers`;
        accepted = pos.map((e) => e.key);
        caseSensitive = pos[0]!.caseSensitive;
        weights.push(capped(m, pos[0]!.value));
      } else {
        accepted = decl.correct;
        weights = [aon as number];
      }
      if (accepted.length === 0) return `blank "${decl.identifier}" accepts no answer`;
      blanks.push({ id, kind: 'text', acceptedAnswers: accepted, caseSensitive });
    }
  }
  if (!allEqual(weights)) return 'blanks worth different points cannot be expressed (Assay splits the points equally across blanks)';
  return withText(ctx, blanks, round(weights[0]! * blanks.length), (e) =>
    INLINE.has(e.name) ? `{{${blankIds.get(e.attrs['response-identifier'] ?? '')!}}}` : undefined,
  );
}

/** Splits the body: blocks without a blank are the prompt, blocks with one are the text. */
export function withText(
  ctx: Ctx,
  blanks: Extract<QuestionInput, { type: 'fill_blanks' }>['blanks'],
  points: number,
  inline: (e: XElement) => string | undefined,
): QuestionInput | string {
  const holdsBlank = (e: XElement) => inline(e) !== undefined || descendants(e).some((d) => inline(d) !== undefined);
  const promptParts: string[] = [];
  const textParts: string[] = [];
  for (const c of ctx.body.children) {
    if (typeof c === 'string') {
      if (c.trim()) textParts.push(c.trim());
      continue;
    }
    if (c.name === 'qti-rubric-block' || c.name.startsWith('qti-feedback')) continue;
    const wrapper: XElement = { name: 'div', attrs: {}, children: [c] };
    if (holdsBlank(c)) textParts.push(textIn(ctx, wrapper, { inline: (e) => inline(e) ?? ctx.imageInline(e) }));
    else if (c.name === 'qti-gap-match-interaction') continue;
    else promptParts.push(textIn(ctx, wrapper, { inline: ctx.imageInline }));
  }
  const text = textParts.filter(Boolean).join('\n\n');
  if (!text) return 'the blanks are not placed in the text';
  return { type: 'fill_blanks', prompt: promptParts.filter(Boolean).join('\n\n') || ctx.title || 'Fill in the blanks.', points, text, blanks };
}

/** Gap match: each gap a choice blank offering every gap text. */
export function gapMatch(ctx: Ctx, it: XElement): QuestionInput | string {
  const decl = declOf(ctx, it);
  if (typeof decl === 'string') return decl;
  const texts = elements(it, 'qti-gap-text');
  const gaps = descendants(it).filter((e) => e.name === 'qti-gap');
  if (texts.length < 2 || gaps.length < 1) return 'a gap match needs at least two gap texts and one gap';
  const textIds = idMap(texts.map((t) => t.attrs['identifier'] ?? ''), 'o');
  const gapIds = idMap(gaps.map((g) => g.attrs['identifier'] ?? ''), 'b');
  const options = texts.map((t) => ({ id: textIds.get(t.attrs['identifier'] ?? '')!, text: textIn(ctx, t) || '(empty)' }));
  const rp = ctx.rp;
  let pairs: string[];
  let w: number;
  const aon = allOrNothing(rp);
  if (aon !== null) {
    if (gaps.length > 1) return 'all-or-nothing scoring across several gaps cannot be expressed (Assay splits the points equally across blanks)';
    pairs = decl.correct;
    w = aon as number;
  } else if (rp.kind === 'map_response') {
    const m = mappingOf(ctx, decl);
    if (typeof m === 'string') return m;
    const pos = m.entries.filter((e) => e.value > 0);
    if (m.defaultValue !== 0 || m.entries.some((e) => e.value < 0) || !allEqual(pos.map((e) => e.value))) return 'a gap mapping with unequal or negative points cannot be expressed';
    pairs = pos.map((e) => e.key);
    w = pos[0]!.value;
    if (m.upperBound !== null && m.upperBound < w * gaps.length - 1e-9) return 'a mapping upper bound below the sum of the gaps cannot be expressed';
  } else return rpReason(rp);
  const correct = new Map<string, string>();
  for (const p of pairs) {
    const [t, g] = p.split(/\s+/);
    if (!t || !g || !textIds.has(t) || !gapIds.has(g)) return `the pair "${p}" does not name a gap text and a gap`;
    if (correct.has(g)) return 'a gap with several correct texts cannot be expressed';
    correct.set(g, t);
  }
  if (correct.size !== gaps.length) return 'every gap needs exactly one correct text';
  const blanks = gaps.map((g) => ({ id: gapIds.get(g.attrs['identifier'] ?? '')!, kind: 'choice' as const, options, correctOptionId: textIds.get(correct.get(g.attrs['identifier'] ?? '')!)! }));
  const inline = (e: XElement) => (e.name === 'qti-gap' ? `{{${gapIds.get(e.attrs['identifier'] ?? '')!}}}` : e.name === 'qti-gap-text' || e.name === 'qti-prompt' ? '' : undefined);
  const prompt = first(it, 'qti-prompt');
  const inner: Ctx = { ...ctx, body: { name: 'qti-item-body', attrs: {}, children: [...ctx.body.children.filter((c) => c !== it), ...it.children] } };
  const res = withText(inner, blanks, round(w * gaps.length), inline);
  if (typeof res !== 'string' && prompt && res.type === 'fill_blanks') {
    const p = textIn(ctx, prompt);
    res.prompt = res.prompt === (ctx.title || 'Fill in the blanks.') ? p : [res.prompt, p].join('\n\n');
  }
  return res;
}

export { mapResponse } from './response-processing.js';

