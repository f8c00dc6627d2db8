import { describe, expect, it } from 'vitest';
import type { Question } from './schemas.js';
import type { StoredSection } from './sections.js';
import { diffVersions, type DiffableVersion } from './version-diff.js';

const q = (id: string, extra: Partial<Question> = {}): Question =>
  ({ id, type: 'short_text', prompt: `Prompt ${id}`, points: 1, acceptedAnswers: ['x'], caseSensitive: false, ...extra }) as Question;

const section = (id: string, title: string, questionIds: string[], extra: Partial<StoredSection> = {}): StoredSection => ({
  id,
  title,
  instructions: null,
  shuffleQuestions: false,
  draw: null,
  questionIds,
  ...extra,
});

const base: DiffableVersion = {
  title: 'Algebra',
  description: 'd',
  durationMinutes: 30,
  proctoring: 'none',
  marking: 'auto',
  resultVisibility: 'immediate',
  passPercent: 50,
  proctoringRules: null,
  contentFormat: 'plain',
  questions: [q('q1'), q('q2'), q('q3')],
  sections: [section('s1', 'Part A', ['q1', 'q2']), section('s2', 'Part B', ['q3'])],
};

describe('diffVersions', () => {
  it('finds nothing between equal versions, whatever the key order', () => {
    const reordered = { ...base, questions: base.questions.map((x) => Object.fromEntries(Object.entries(x).reverse()) as Question) };
    expect(diffVersions(base, reordered)).toEqual([]);
  });

  it('names the test fields that changed, each with its value before and after', () => {
    expect(diffVersions(base, { ...base, title: 'Algebra II', passPercent: null })).toEqual([
      {
        kind: 'test_changed',
        fields: ['title', 'passPercent'],
        values: [
          { field: 'title', from: 'Algebra', to: 'Algebra II' },
          { field: 'passPercent', from: 50, to: null },
        ],
      },
    ]);
  });

  it('names passages among the test fields when they change, and a question whose passage changed', () => {
    const withPassage = { ...base, passages: [{ id: 'p1', text: 'A reading' }] };
    expect(diffVersions(base, { ...base, passages: [] })).toEqual([]);
    expect(diffVersions(base, withPassage)).toEqual([{ kind: 'test_changed', fields: ['passages'], values: [{ field: 'passages', from: undefined, to: withPassage.passages }] }]);
    const named = { ...withPassage, questions: [q('q1', { passageId: 'p1' }), q('q2'), q('q3')] };
    expect(diffVersions(withPassage, named)).toEqual([{ kind: 'question_changed', questionId: 'q1', fields: ['passageId'], values: [{ field: 'passageId', from: undefined, to: 'p1' }] }]);
  });

  it('reports sections added, removed, renamed and otherwise changed', () => {
    const after = {
      ...base,
      questions: [q('q1'), q('q2'), q('q4')],
      sections: [section('s1', 'Part One', ['q2', 'q1'], { draw: 1 }), section('s3', 'Part C', ['q4'])],
    };
    expect(diffVersions(base, after)).toEqual([
      { kind: 'section_removed', sectionId: 's2', title: 'Part B' },
      { kind: 'section_renamed', sectionId: 's1', from: 'Part A', to: 'Part One' },
      {
        kind: 'section_changed',
        sectionId: 's1',
        fields: ['draw', 'questionOrder'],
        values: [
          { field: 'draw', from: null, to: 1 },
          { field: 'questionOrder', from: ['q1', 'q2'], to: ['q2', 'q1'] },
        ],
      },
      { kind: 'section_added', sectionId: 's3', title: 'Part C' },
      { kind: 'question_removed', questionId: 'q3', sectionId: 's2' },
      { kind: 'question_added', questionId: 'q4', sectionId: 's3' },
    ]);
  });

  it('reports a question moved between sections and the fields of a changed question', () => {
    const after = {
      ...base,
      questions: [q('q1', { points: 2, prompt: 'New' }), q('q2'), q('q3')],
      sections: [section('s1', 'Part A', ['q1']), section('s2', 'Part B', ['q2', 'q3'])],
    };
    expect(diffVersions(base, after)).toEqual([
      {
        kind: 'question_changed',
        questionId: 'q1',
        fields: ['points', 'prompt'],
        values: [
          { field: 'points', from: 1, to: 2 },
          { field: 'prompt', from: 'Prompt q1', to: 'New' },
        ],
      },
      { kind: 'question_moved', questionId: 'q2', from: 's1', to: 's2' },
    ]);
  });

  it('reads a flat test as one section, so turning it into sections is a section change', () => {
    const flat = { ...base, sections: null };
    const changes = diffVersions(flat, base);
    expect(changes).toContainEqual({ kind: 'section_removed', sectionId: 'main', title: '' });
    expect(changes).toContainEqual({ kind: 'section_added', sectionId: 's1', title: 'Part A' });
    expect(changes).toContainEqual({ kind: 'question_moved', questionId: 'q3', from: 'main', to: 's2' });
  });

  it('reports a change of type as a change of the type and its fields', () => {
    const numeric = { id: 'q1', type: 'numeric', prompt: 'Prompt q1', points: 1, answer: 3, tolerance: 0 } as Question;
    const after = { ...base, questions: [numeric, q('q2'), q('q3')] };
    const [change] = diffVersions(base, after);
    expect(change).toMatchObject({ kind: 'question_changed', questionId: 'q1', fields: ['acceptedAnswers', 'answer', 'caseSensitive', 'tolerance', 'type'] });
    expect(change).toHaveProperty('values.4', { field: 'type', from: 'short_text', to: 'numeric' });
  });
});
