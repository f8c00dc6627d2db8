import type { Question } from './schemas.js';
import { sectionsOf, type StoredSection } from './sections.js';

/**
 * What changed from one version of a test to the next, as a list the editor
 * can show: the test's own fields, sections added, removed, renamed or
 * otherwise changed (instructions, shuffle, pool size, question order), and
 * questions added, removed, moved to another section or changed (with the
 * fields that changed). Sections and questions are matched by id, which a
 * draft keeps from the version it started from. A flat test reads as one
 * unnamed section (`main`). A change of fields carries each field's value
 * before and after (`values`, in the order of `fields`), so the editor can
 * say "Duration 20 → 25 min" rather than only "durationMinutes".
 */
export interface FieldChange {
  field: string;
  /** The value before (undefined: the field was absent). */
  from: unknown;
  to: unknown;
}

export type VersionChange =
  | { kind: 'test_changed'; fields: string[]; values: FieldChange[] }
  | { kind: 'section_added'; sectionId: string; title: string }
  | { kind: 'section_removed'; sectionId: string; title: string }
  | { kind: 'section_renamed'; sectionId: string; from: string; to: string }
  | { kind: 'section_changed'; sectionId: string; fields: string[]; values: FieldChange[] }
  | { kind: 'question_added'; questionId: string; sectionId: string }
  | { kind: 'question_removed'; questionId: string; sectionId: string }
  | { kind: 'question_moved'; questionId: string; from: string; to: string }
  | { kind: 'question_changed'; questionId: string; fields: string[]; values: FieldChange[] };

/** The parts of a version the diff compares. */
export interface DiffableVersion {
  title: string;
  description: string;
  durationMinutes: number;
  proctoring: string;
  marking: string;
  resultVisibility: string;
  passPercent: number | null;
  proctoringRules: unknown;
  contentFormat: string;
  /** The shared passages ([] or absent: none); a question's passageId is one of its fields. */
  passages?: readonly unknown[];
  questions: readonly Question[];
  sections: StoredSection[] | null;
  /** The declared language (null or absent: none) and the translations, compared by their texts (a source hash is no change of its own). */
  language?: string | null;
  translations?: Readonly<Record<string, Readonly<Record<string, { text: string }>>>>;
}

const TEST_FIELDS = [
  'title',
  'description',
  'durationMinutes',
  'proctoring',
  'marking',
  'resultVisibility',
  'passPercent',
  'proctoringRules',
  'contentFormat',
  'passages',
  'language',
  'translations',
] as const;

/** A test field as compared: an empty list or map and an absent one are the same, and translations are their texts. */
function comparable(v: DiffableVersion, f: (typeof TEST_FIELDS)[number]): unknown {
  if (f === 'passages') return (v.passages?.length ?? 0) === 0 ? undefined : v.passages;
  if (f === 'language') return v.language ?? undefined;
  if (f === 'translations') {
    const t = v.translations ?? {};
    return Object.keys(t).length === 0 ? undefined : Object.fromEntries(Object.entries(t).map(([l, texts]) => [l, Object.fromEntries(Object.entries(texts).map(([p, x]) => [p, x.text]))]));
  }
  return v[f];
}

/** Structural equality of JSON values (key order ignored). */
function same(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return a === b || (a == null && b == null);
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) return a.length === (b as unknown[]).length && a.every((x, i) => same(x, (b as unknown[])[i]));
  const ka = Object.keys(a).filter((k) => (a as Record<string, unknown>)[k] !== undefined);
  const kb = Object.keys(b).filter((k) => (b as Record<string, unknown>)[k] !== undefined);
  return ka.length === kb.length && ka.every((k) => same((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

/** The fields (top-level keys) whose values differ, sorted. */
function changedFields(a: object, b: object, skip: readonly string[] = []): string[] {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  return [...keys].filter((k) => !skip.includes(k) && !same((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k])).sort();
}

/** Each field's value before and after. */
function valuesOf(fields: readonly string[], before: (field: string) => unknown, after: (field: string) => unknown): FieldChange[] {
  return fields.map((field) => ({ field, from: before(field), to: after(field) }));
}
const fieldOf = (o: object) => (field: string) => (o as Record<string, unknown>)[field];

export function diffVersions(before: DiffableVersion, after: DiffableVersion): VersionChange[] {
  const changes: VersionChange[] = [];
  // A version stored without passages reads as [] (none), the same as an absent list.
  const testFields = TEST_FIELDS.filter((f) => !same(comparable(before, f), comparable(after, f)));
  if (testFields.length > 0) {
    const at = (v: DiffableVersion) => (f: string) => comparable(v, f as (typeof TEST_FIELDS)[number]);
    changes.push({ kind: 'test_changed', fields: [...testFields], values: valuesOf(testFields, at(before), at(after)) });
  }

  const beforeSections = sectionsOf(before);
  const afterSections = sectionsOf(after);
  const oldSections = new Map(beforeSections.map((s) => [s.id, s]));
  const newSections = new Map(afterSections.map((s) => [s.id, s]));
  for (const s of beforeSections) if (!newSections.has(s.id)) changes.push({ kind: 'section_removed', sectionId: s.id, title: s.title });
  for (const s of afterSections) {
    const old = oldSections.get(s.id);
    if (!old) {
      changes.push({ kind: 'section_added', sectionId: s.id, title: s.title });
      continue;
    }
    if (old.title !== s.title) changes.push({ kind: 'section_renamed', sectionId: s.id, from: old.title, to: s.title });
    const fields = changedFields(old, s, ['id', 'title', 'questionIds']);
    // The order of the questions both versions hold in this section (added and removed ones are reported on their own).
    const kept = (list: string[], other: string[]) => list.filter((id) => other.includes(id));
    const order = { from: kept(old.questionIds, s.questionIds), to: kept(s.questionIds, old.questionIds) };
    if (!same(order.from, order.to)) fields.push('questionOrder');
    const value = (section: StoredSection, end: 'from' | 'to') => (f: string) => (f === 'questionOrder' ? order[end] : fieldOf(section)(f));
    if (fields.length > 0) changes.push({ kind: 'section_changed', sectionId: s.id, fields, values: valuesOf(fields, value(old, 'from'), value(s, 'to')) });
  }

  const sectionOf = (sections: StoredSection[]) => new Map(sections.flatMap((s) => s.questionIds.map((id) => [id, s.id] as const)));
  const oldHome = sectionOf(beforeSections);
  const newHome = sectionOf(afterSections);
  const oldQuestions = new Map(before.questions.map((q) => [q.id, q]));
  const newQuestions = new Map(after.questions.map((q) => [q.id, q]));
  for (const q of before.questions) {
    if (!newQuestions.has(q.id)) changes.push({ kind: 'question_removed', questionId: q.id, sectionId: oldHome.get(q.id) ?? '' });
  }
  for (const q of after.questions) {
    const old = oldQuestions.get(q.id);
    if (!old) {
      changes.push({ kind: 'question_added', questionId: q.id, sectionId: newHome.get(q.id) ?? '' });
      continue;
    }
    const from = oldHome.get(q.id) ?? '';
    const to = newHome.get(q.id) ?? '';
    if (from !== to) changes.push({ kind: 'question_moved', questionId: q.id, from, to });
    const fields = changedFields(old, q, ['id']);
    if (fields.length > 0) changes.push({ kind: 'question_changed', questionId: q.id, fields, values: valuesOf(fields, fieldOf(old), fieldOf(q)) });
  }
  return changes;
}
