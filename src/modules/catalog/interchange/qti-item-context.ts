import { first, textOf, type XElement } from './xml.js';
import { escapeMarkdown, toMarkdown } from './xhtml-markdown.js';
import type { Mapping, Processing, ResponseDeclaration } from './response-processing.js';

/** What mapping one item's interactions share (qti-items.ts and the question types' qti.ts): the item, its declarations and processing, and small helpers. */
export interface Ctx {
  item: XElement;
  body: XElement;
  decls: Map<string, ResponseDeclaration>;
  rp: Processing;
  max: number | null;
  title: string;
  notes: string[];
  imageInline: (e: XElement) => string | undefined;
  /**
   * An image element (`img`, `object`) as a question field holds it (a graphic
   * interaction's picture): `asset:ast_…` once the package's images are
   * stored, the package path before (that first reading only counts the
   * item's images), with its alt text. Undefined for any other element.
   */
  imageRef?: (e: XElement) => { src: string; alt: string } | undefined;
  /** The texts are read as Markdown (the package is a Markdown test): formatting and MathML kept. */
  markdown: boolean;
  /** Why the item's formulas cannot be kept (it is then skipped). */
  problems: string[];
  /** The question is built from the declared correct responses only: the item keeps its processing as `scoring` (qti-scoring-import.ts). */
  keyOnly?: boolean;
}

type TextOptions = { skip?: (e: XElement) => boolean; inline?: (e: XElement) => string | undefined };

/** An element's text in the test's format: Markdown (xhtml-markdown.ts) or plain text. */
export function textIn(ctx: Ctx, el: XElement, opts: TextOptions = {}): string {
  return ctx.markdown ? toMarkdown(el, { ...opts, notes: ctx.notes, problems: ctx.problems }) : textOf(el, opts);
}

export const PART_ID = /^[A-Za-z0-9_-]{1,64}$/;
export const isPartId = (s: string) => PART_ID.test(s);

/** Ids for options, stems, items, blanks: the QTI identifier when Assay accepts it, else `prefix` + position. */
export function idMap(ids: string[], prefix: string): Map<string, string> {
  const out = new Map<string, string>();
  const used = new Set<string>();
  ids.forEach((id, i) => {
    let mine = isPartId(id) && !used.has(id) ? id : `${prefix}${i + 1}`;
    while (used.has(mine)) mine = `${mine}_`;
    used.add(mine);
    out.set(id, mine);
  });
  return out;
}

export const INLINE = new Set(['qti-text-entry-interaction', 'qti-inline-choice-interaction']);
export const round = (n: number) => Math.round(n * 1e9) / 1e9;
export const allEqual = (xs: number[]) => xs.length > 0 && xs.every((x) => Math.abs(x - xs[0]!) < 1e-9);
export const isInteraction = (e: XElement) => e.name.endsWith('-interaction');

/** The prompt: the body's text outside interactions, then the interaction's own prompt. */
export function promptOf(ctx: Ctx, it?: XElement): string {
  const outside = textIn(ctx, ctx.body, {
    skip: (e) => isInteraction(e) || e.name === 'qti-rubric-block' || e.name.startsWith('qti-feedback'),
    inline: ctx.imageInline,
  });
  const own = it && first(it, 'qti-prompt') ? textIn(ctx, first(it, 'qti-prompt')!) : '';
  return [outside, own].filter(Boolean).join('\n\n') || (ctx.markdown ? escapeMarkdown(ctx.title) : ctx.title) || 'Question';
}

export function declOf(ctx: Ctx, it: XElement): ResponseDeclaration | string {
  const id = it.attrs['response-identifier'] ?? '';
  return ctx.decls.get(id) ?? `the interaction's response "${id}" has no response declaration`;
}

/** Points of an all-or-nothing item: match_correct gives 1; the written-out form gives its value. */
export function allOrNothing(rp: Processing): number | string | null {
  if (rp.kind === 'match_correct') return 1;
  if (rp.kind === 'conditional' && rp.op === 'match') return rp.points;
  return null;
}

export function rpReason(rp: Processing): string {
  if (rp.kind === 'none') return 'the item has no response processing, so it gives no score to reproduce';
  if (rp.kind === 'custom') return rp.why;
  if (rp.kind === 'template') return `response processing template ${rp.uri} is not one of the standard templates Assay reproduces`;
  if (rp.kind === 'map_response_point') return 'map_response_point (area mapping) is not supported';
  return `${rp.kind} response processing cannot be expressed for this interaction`;
}

export function mappingOf(ctx: Ctx, decl: ResponseDeclaration): Mapping | string {
  if (ctx.rp.kind === 'map_response' && ctx.rp.responseId !== decl.identifier) return `map_response names "${ctx.rp.responseId}", not this interaction's response`;
  if (!decl.mapping) return 'map_response without a mapping';
  if (decl.mapping.entries.some((e) => !Number.isFinite(e.value))) return 'a mapped value is not a number';
  if (decl.mapping.lowerBound !== null && decl.mapping.lowerBound > 0) return 'a mapping lower bound above 0 cannot be expressed';
  return decl.mapping;
}

export const valueOf = (m: Mapping, key: string) => m.entries.find((e) => e.key === key)?.value ?? m.defaultValue;
export const capped = (m: Mapping, total: number) => (m.upperBound !== null ? Math.min(m.upperBound, total) : total);
