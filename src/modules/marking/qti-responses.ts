import type { AnswerValue } from '../attempts/answer-values.js';
import type { CompiledQtiProcessing, QtiData, QtiDeclaration } from '../catalog/qti-processing/index.js';
import type { ScorableQuestion } from '../catalog/qti-scoring.js';
import { parseNumericAnswer } from './numeric-answer.js';

/**
 * A saved answer as the QTI responses an item's processing reads, pure.
 * The shapes are the ones the authoring check (catalog/qti-scoring.ts)
 * holds each response to:
 * - single_choice: the option id (identifier);
 * - multiple_choice: the option ids (multiple identifier);
 * - short_text: the text (string), trimmed at both ends;
 * - numeric: the number (float, or integer: a text that is no whole number is NULL);
 * - ordering: the item ids in the candidate's order (ordered identifier);
 * - matching: one [stemId, choiceId] per matched stem (multiple directedPair),
 *   in stem order, as import maps a match interaction's two sets;
 * - hot_text: the chosen hotspot ids (multiple identifier), or the one
 *   chosen (single identifier, when the question allows one pick);
 * - slider: the value set (float, or integer: a value that is no whole number is NULL);
 * - associate: the pairs made, each [itemId, itemId] (pair, unordered), all
 *   of them (multiple) or the one made (single, when one pair is allowed);
 * - select_point: each placed point as [x, y] in whole pixels (point), all
 *   of them (multiple) or the first (single, when one point is allowed);
 * - fill_blanks: one response per blank, named by the blank's id;
 * - composite: each response reads its part's value (`partId`) as that
 *   part's type reads it (a fill_blanks part by its blank ids); an
 *   unanswered part is NULL;
 * - not answered, an empty container or a text that is no number: NULL.
 * Ids are passed as they are: a question keeps its item's identifiers
 * (import refuses `scoring` when it would have to rename one).
 */
export function qtiResponses(q: ScorableQuestion, value: AnswerValue | undefined, compiled: CompiledQtiProcessing): Record<string, QtiData> {
  const declOf = new Map(compiled.responses.map((d) => [d.identifier, d]));
  const out: Record<string, QtiData> = {};
  const parts = q.type === 'composite' ? new Map(q.parts.map((p) => [p.id, p])) : null;
  const given = isRecord(value) ? (value as Readonly<Record<string, AnswerValue>>) : {};
  for (const r of q.scoring?.responses ?? []) {
    const decl = declOf.get(r.identifier);
    if (!decl) continue;
    if (parts) {
      // A composite answer is { partId: value }: each response takes its part's value, read as that part's type reads it.
      const part = parts.get(r.partId ?? '');
      out[r.identifier] = part ? responseOf(part as ScorableQuestion, r.identifier, given[part.id] ?? null, decl) : null;
    } else out[r.identifier] = responseOf(q, r.identifier, value, decl);
  }
  return out;
}

function responseOf(q: ScorableQuestion, identifier: string, value: AnswerValue | undefined, decl: QtiDeclaration): QtiData {
  if (q.type === 'composite') return null;
  return q.type === 'fill_blanks' ? blankResponse(q, identifier, value, decl) : wholeResponse(q, value, decl);
}

const isRecord = (v: unknown): v is Readonly<Record<string, string>> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isPoint = (v: unknown): v is { x: number; y: number } =>
  typeof v === 'object' && v !== null && typeof (v as { x?: unknown }).x === 'number' && typeof (v as { y?: unknown }).y === 'number';
const isPair = (v: unknown): v is readonly [string, string] => Array.isArray(v) && v.length === 2 && typeof v[0] === 'string' && typeof v[1] === 'string';
const orNull = <T>(list: T[]): T[] | null => (list.length > 0 ? list : null);

function text(value: string, decl: QtiDeclaration): QtiData {
  const t = value.trim();
  if (t === '') return null;
  if (decl.baseType === 'float' || decl.baseType === 'integer') return number(t, decl);
  return t;
}

function number(value: string, decl: QtiDeclaration): QtiData {
  const n = parseNumericAnswer(value);
  if (n === null) return null;
  return decl.baseType === 'integer' && !Number.isInteger(n) ? null : n;
}

function wholeResponse(q: Exclude<ScorableQuestion, { type: 'fill_blanks' | 'composite' }>, value: AnswerValue | undefined, decl: QtiDeclaration): QtiData {
  if (value === null || value === undefined) return null;
  switch (q.type) {
    case 'single_choice':
      return typeof value === 'string' ? value : null;
    case 'multiple_choice':
    case 'ordering':
    case 'graphic_order':
      return Array.isArray(value) ? orNull([...value]) : null;
    case 'hotspot':
      if (!Array.isArray(value)) return null;
      return q.maxChoices === 1 ? (value[0] ?? null) : orNull([...value]);
    case 'short_text':
      return typeof value === 'string' ? text(value, decl) : null;
    case 'numeric':
      return typeof value === 'string' ? number(value, decl) : null;
    case 'hot_text':
    case 'associate': {
      // Hotspot ids, or [a, b] pairs: a single response takes the one chosen, a multiple one all of them.
      if (!Array.isArray(value)) return null;
      const list = value as readonly unknown[];
      const chosen: Array<string | [string, string]> =
        q.type === 'hot_text' ? list.filter((v): v is string => typeof v === 'string') : list.filter(isPair).map((p) => [p[0], p[1]]);
      return decl.cardinality === 'single' ? (chosen[0] ?? null) : orNull(chosen);
    }
    case 'slider':
      if (typeof value !== 'number' || !Number.isFinite(value)) return null;
      return decl.baseType === 'integer' && !Number.isInteger(value) ? null : value;
    case 'select_point': {
      if (!Array.isArray(value)) return null;
      const placed: Array<[number, number]> = (value as readonly unknown[]).filter(isPoint).map((p) => [p.x, p.y]);
      return decl.cardinality === 'single' ? (placed[0] ?? null) : orNull(placed);
    }
    case 'matching': {
      if (!isRecord(value)) return null;
      const pairs: Array<[string, string]> = q.stems.filter((s) => typeof value[s.id] === 'string').map((s) => [s.id, value[s.id]!]);
      return orNull(pairs);
    }
  }
}

function blankResponse(q: Extract<ScorableQuestion, { type: 'fill_blanks' }>, blankId: string, value: AnswerValue | undefined, decl: QtiDeclaration): QtiData {
  if (!isRecord(value)) return null;
  const given = value[blankId];
  const blank = q.blanks.find((b) => b.id === blankId);
  if (typeof given !== 'string' || !blank) return null;
  if (blank.kind === 'choice') return given === '' ? null : given;
  return text(given, decl);
}
