import type { AnswerJson } from '../definition.js';
import type { Region } from './geometry.js';

/** A value quoted in a message, cut short: a refusal never echoes a long text back. */
export function quoted(value: unknown): string {
  const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));
  return JSON.stringify(text.length > 64 ? `${text.slice(0, 64)}…` : text);
}

/** An answer that is a list of region ids: each a region of the question, none twice; why not, or the ids. */
export function regionIdList(regions: readonly Region[], value: AnswerJson): string[] | string {
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string')) return 'must be an array of region ids or null';
  const ids = value as string[];
  const known = new Set(regions.map((r) => r.id));
  const unknown = ids.find((id) => !known.has(id));
  if (unknown !== undefined) return `${quoted(unknown)} is not a region of this question`;
  if (new Set(ids).size !== ids.length) return 'names a region twice';
  return ids;
}

/** The answer's words for staff and the CSV: region labels, in the answer's order. */
export function regionLabels(regions: readonly Region[], value: AnswerJson): string {
  if (!Array.isArray(value)) return '';
  const label = new Map(regions.map((r) => [r.id, r.label]));
  return value.map((id) => label.get(String(id)) ?? String(id)).join('; ');
}
