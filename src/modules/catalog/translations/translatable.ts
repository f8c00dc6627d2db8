import type { TSchema } from '@sinclair/typebox';
import { COMPOSITE_PART_TYPES, PASSAGE_MAX_CHARS } from '../schemas.js';
import { questionType } from '../question-types/registry.js';
import type { BaseQuestion } from '../question-types/definition.js';

/**
 * The texts of a test a translation may give, each by a flat path built
 * from ids (docs/test-format.md "Languages"): `title`, `description`,
 * `sections.<sectionId>.title|instructions`, `passages.<passageId>.title|text`
 * and `questions.<questionId>.<field path>`. A question's field paths are
 * `prompt` and those its type lists in `translatableFields` (by default its
 * `contentFields`), with each list index replaced by the element's id when
 * the element has one (`options.0.text` → `options.a.text`), so a
 * translation survives reordering the options; a composite's parts are
 * `parts.<partId>.<path>`. A field path that names no string of the question
 * (an image type's drawn `image`) is not a text to translate.
 *
 * Ids never contain a dot, so a flat path splits unambiguously.
 */

export interface SourceText {
  text: string;
  /** The source field's own bound: a translation is held to it. */
  max: number;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);

/** The element of an array a path segment names: by its `id` when the elements have ids, else by index. */
function elementAt(list: readonly unknown[], segment: string): { value: unknown; index: number } | null {
  const byId = list.findIndex((e) => isObj(e) && e['id'] === segment);
  if (byId >= 0) return { value: list[byId], index: byId };
  if (!/^\d+$/.test(segment) || list.some((e) => isObj(e) && typeof e['id'] === 'string')) return null;
  const index = Number(segment);
  return index < list.length ? { value: list[index], index } : null;
}

/** The value at a path (segments), array elements named by id or index; undefined when it names nothing. */
export function valueAt(root: unknown, segments: readonly string[]): unknown {
  let at: unknown = root;
  for (const seg of segments) {
    if (Array.isArray(at)) at = elementAt(at, seg)?.value;
    else if (isObj(at)) at = Object.hasOwn(at, seg) ? at[seg] : undefined;
    else return undefined;
  }
  return at;
}

/** A copy of `root` with the string at the path replaced (the path must name a string: valueAt says). */
export function withValueAt<T>(root: T, segments: readonly string[], value: string): T {
  if (segments.length === 0) return value as T;
  const [seg, ...rest] = segments as [string, ...string[]];
  if (Array.isArray(root)) {
    const found = elementAt(root, seg);
    if (!found) return root;
    const copy = [...root];
    copy[found.index] = withValueAt(found.value, rest, value);
    return copy as T;
  }
  if (isObj(root) && Object.hasOwn(root, seg)) return { ...root, [seg]: withValueAt(root[seg], rest, value) } as T;
  return root;
}

/** The path with each index of an element that has an id replaced by that id; null when it does not lead to a string. */
function idPath(q: unknown, path: string): string | null {
  let at: unknown = q;
  const out: string[] = [];
  for (const seg of path.split('.')) {
    if (Array.isArray(at)) {
      const found = elementAt(at, seg) ?? (/^\d+$/.test(seg) && Number(seg) < at.length ? { value: at[Number(seg)], index: Number(seg) } : null);
      if (!found) return null;
      const id = isObj(found.value) ? found.value['id'] : undefined;
      out.push(typeof id === 'string' ? id : String(found.index));
      at = found.value;
    } else if (isObj(at) && Object.hasOwn(at, seg)) {
      out.push(seg);
      at = at[seg];
    } else return null;
  }
  return typeof at === 'string' ? out.join('.') : null;
}

/** The string schema a path leads to in a type's schema (array elements by any segment), for its maxLength. */
function schemaMax(schema: TSchema | undefined, segments: readonly string[]): number | null {
  if (!schema) return null;
  for (const alt of [...((schema['anyOf'] as TSchema[] | undefined) ?? []), ...((schema['oneOf'] as TSchema[] | undefined) ?? [])]) {
    const found = schemaMax(alt, segments);
    if (found !== null) return found;
  }
  if (segments.length === 0) return schema['type'] === 'string' ? ((schema['maxLength'] as number | undefined) ?? 10_000) : null;
  const [seg, ...rest] = segments as [string, ...string[]];
  if (schema['type'] === 'array') return schemaMax(schema['items'] as TSchema, rest);
  if (schema['type'] === 'object') return schemaMax((schema['properties'] as Record<string, TSchema> | undefined)?.[seg], rest);
  return null;
}

/** The prompt's bound (common-fields.ts `Prompt`), also a composite's. */
const PROMPT_MAX = 10_000;

/** A question's translatable texts, by field path under the question, with their bounds. */
export function questionTexts(q: unknown): Array<[string, SourceText]> {
  if (!isObj(q) || typeof q['type'] !== 'string') return [];
  const out: Array<[string, SourceText]> = [];
  const prompt = str(q['prompt']);
  if (prompt) out.push(['prompt', { text: prompt, max: PROMPT_MAX }]);
  if (q['type'] === 'composite') {
    for (const part of Array.isArray(q['parts']) ? q['parts'] : []) {
      if (!isObj(part) || typeof part['id'] !== 'string' || !COMPOSITE_PART_TYPES.includes(String(part['type']))) continue;
      for (const [path, source] of questionTexts(part)) out.push([`parts.${part['id']}.${path}`, source]);
    }
    return out;
  }
  const def = questionType(q['type']);
  if (!def) return out;
  let fields: Array<[string, string]>;
  try {
    fields = (def.translatableFields ?? def.contentFields)(q as unknown as BaseQuestion);
  } catch {
    // A draft's unfinished question may lack what its type reads: it has no texts to translate yet.
    return out;
  }
  for (const [field, text] of fields) {
    if (field === 'prompt' || !text) continue;
    const path = idPath(q, field);
    if (path === null || out.some(([p]) => p === path)) continue;
    out.push([path, { text, max: schemaMax(def.schema, path.split('.')) ?? PROMPT_MAX }]);
  }
  return out;
}

/** A test read either way: as written (TestInput, a draft) or as stored (a version, whose sections name their questions). */
export interface TestTexts {
  title?: unknown;
  description?: unknown;
  sections?: unknown;
  passages?: unknown;
  questions?: unknown;
}

/** Every question of the test, whether in `questions` or inside `sections` as written. */
function questionsOf(test: TestTexts): unknown[] {
  const flat = Array.isArray(test.questions) ? test.questions : [];
  const sections = Array.isArray(test.sections) ? test.sections : [];
  const nested = sections.flatMap((s) => (isObj(s) && Array.isArray(s['questions']) ? s['questions'] : []));
  return flat.length > 0 ? flat : nested;
}

/** Every translatable text of a test by flat path, in the test's order. Texts without an id to name them (not saved yet) are left out. */
export function sourceTexts(test: TestTexts): Map<string, SourceText> {
  const out = new Map<string, SourceText>();
  const add = (path: string, text: unknown, max: number) => {
    const s = str(text);
    if (s) out.set(path, { text: s, max });
  };
  add('title', test.title, 200);
  add('description', test.description, 2_000);
  for (const s of Array.isArray(test.sections) ? test.sections : []) {
    if (!isObj(s) || typeof s['id'] !== 'string') continue;
    add(`sections.${s['id']}.title`, s['title'], 200);
    add(`sections.${s['id']}.instructions`, s['instructions'], 10_000);
  }
  for (const p of Array.isArray(test.passages) ? test.passages : []) {
    if (!isObj(p) || typeof p['id'] !== 'string') continue;
    add(`passages.${p['id']}.title`, p['title'], 200);
    add(`passages.${p['id']}.text`, p['text'], PASSAGE_MAX_CHARS);
  }
  for (const q of questionsOf(test)) {
    if (!isObj(q) || typeof q['id'] !== 'string') continue;
    for (const [path, source] of questionTexts(q)) out.set(`questions.${q['id']}.${path}`, source);
  }
  return out;
}

/** A flat path split into where it points: the test's own field, a section's, a passage's or a question's (with the path under it). */
export function splitPath(path: string): { kind: 'test' | 'sections' | 'passages' | 'questions'; id: string; field: string } {
  const [head = '', id = '', ...rest] = path.split('.');
  if (head === 'sections' || head === 'passages' || head === 'questions') return { kind: head, id, field: rest.join('.') };
  return { kind: 'test', id: '', field: path };
}
