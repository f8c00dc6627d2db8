import { exactWeights } from '../../interchange/exact-weights.js';
import { textIn, INLINE, allEqual, allOrNothing, capped, declOf, idMap, mappingOf, round, rpReason, valueOf, type Ctx } from '../../interchange/qti-item-context.js';
import { score, type Decl, type TextWriter } from '../../interchange/qti-writer.js';
import { descendants, elements, esc, first, type XElement } from '../../interchange/xml.js';
import { BLANK_PLACEHOLDER, type Blank, type FillBlanksQuestion } from './schema.js';

type FillBlanksInput = Omit<FillBlanksQuestion, 'id'>;

/**
 * QTI both ways. A fill_blanks question is several interactions of one item
 * (a text entry or an inline choice per blank, or one gap match whose gaps
 * are the blanks), each blank its own response named by the blank's id, so
 * the registry's reading of one interaction (`qti.read`) cannot decide it:
 * qti-items.ts looks at all of an item's interactions and hands inline ones
 * to readBlanks, a lone gap match to readGapMatch. The type therefore claims
 * no interaction of its own (a claim would also make the inline choice and
 * the gap match composite parts on import, which they are not).
 */

/** One interaction alone as a fill_blanks question: a gap match's gaps, or a single text entry's or inline choice's blank. */
export function readOneInteraction(ctx: Ctx, it: XElement): FillBlanksInput | string {
  return it.name === 'qti-gap-match-interaction' ? readGapMatch(ctx, it) : readBlanks(ctx, [it]);
}

/** Text entries and inline choices: one blank each, the body's text with {{id}} where each stands. */
export function readBlanks(ctx: Ctx, interactions: XElement[]): FillBlanksInput | string {
  const respIds = interactions.map((i) => i.attrs['response-identifier'] ?? '');
  const blankIds = idMap(respIds, 'b');
  const rp = ctx.rp;
  const single = interactions.length === 1;
  let weights: number[] = [];
  const blanks: Blank[] = [];
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
function withText(ctx: Ctx, blanks: Blank[], points: number, inline: (e: XElement) => string | undefined): FillBlanksInput | string {
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
export function readGapMatch(ctx: Ctx, it: XElement): FillBlanksInput | string {
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
  if (typeof res !== 'string' && prompt) {
    const p = textIn(ctx, prompt);
    res.prompt = res.prompt === (ctx.title || 'Fill in the blanks.') ? p : [res.prompt, p].join('\n\n');
  }
  return res;
}


/**
 * A text entry (a text blank: a mapping of its accepted answers) or an inline
 * choice (a choice blank: its correct option mapped) where each blank stands,
 * each worth its share of the points, SCORE their sum. The blanks' responses
 * are named `<resp>_<blankId>`, or by their ids alone when `resp` is empty (a
 * question of its own, or a composite's part under its kept processing, which
 * names them so; qti-export-items.ts decides which).
 */
export function writeFillBlanks(q: FillBlanksQuestion, resp: string, w: TextWriter): { decls: Decl[]; body: string; rp: string } {
  const blankId = (id: string) => (resp ? `${resp}_${id}` : id);
  const prompt = w.block(q.prompt);
  const decls: Decl[] = [];
  // Each blank's share; the shares sum, in the blanks' order, to exactly the points.
  const shares = exactWeights(q.points, q.blanks.length);
  const byId = new Map(q.blanks.map((b) => [b.id, b]));
  for (const [i, b] of q.blanks.entries()) {
    const share = shares[i]!;
    if (b.kind === 'text') {
      const cs = b.caseSensitive ?? false;
      decls.push({ id: blankId(b.id), cardinality: 'single', baseType: 'string', correct: [b.acceptedAnswers[0]!], mapping: { entries: b.acceptedAnswers.map((a) => ({ key: a, value: share, caseSensitive: cs })) } });
    } else {
      decls.push({ id: blankId(b.id), cardinality: 'single', baseType: 'identifier', correct: [b.correctOptionId], mapping: { entries: [{ key: b.correctOptionId, value: share }] } });
    }
  }
  const text = w.block(q.text).replace(new RegExp(BLANK_PLACEHOLDER.source, 'g'), (_m, id: string) => {
    const b = byId.get(id)!;
    return b.kind === 'text'
      ? `<qti-text-entry-interaction response-identifier="${esc(blankId(id))}"/>`
      : `<qti-inline-choice-interaction response-identifier="${esc(blankId(id))}">${b.options.map((o) => `<qti-inline-choice identifier="${esc(o.id)}">${w.pure(o.text)}</qti-inline-choice>`).join('')}</qti-inline-choice-interaction>`;
  });
  // One block for the text, so every paragraph of it stays in the text (blocks without a blank before it are the prompt).
  const body = `${prompt}<div>${text}</div>`;
  const rp = `  <qti-response-processing>\n    ${score(`<qti-sum>${q.blanks.map((b) => `<qti-map-response identifier="${esc(blankId(b.id))}"/>`).join('')}</qti-sum>`)}\n  </qti-response-processing>\n`;
  return { decls, body, rp };
}

/** As a composite's part: each blank's mapped share added to SCORE, its response named `<resp>_<blankId>`. */
export function summedFillBlanks(q: FillBlanksQuestion, resp: string): string[] {
  return q.blanks.map((b) => score(`<qti-sum><qti-variable identifier="SCORE"/><qti-map-response identifier="${esc(`${resp}_${b.id}`)}"/></qti-sum>`));
}
