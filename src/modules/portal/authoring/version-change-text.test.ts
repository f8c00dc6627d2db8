import { describe, expect, it } from 'vitest';
import { portalTranslator } from '../ui/portal-text.js';
import { excerpts, fieldChangeText, versionChangeText } from './version-change-text.js';

const t = portalTranslator();
const field = (name: string, from: unknown, to: unknown) => fieldChangeText({ field: name, from, to }, t);

describe('a version change in words', () => {
  it('gives the test settings their names, values and units', () => {
    expect(field('durationMinutes', 20, 25)).toBe('Duration 20 → 25 min');
    expect(field('passPercent', 50, 60)).toBe('Pass mark 50 % → 60 %');
    expect(field('passPercent', 50, null)).toBe('Pass mark 50 % → none');
    expect(field('marking', 'auto', 'hybrid')).toBe('Marking Automatic → Hybrid');
    expect(field('proctoring', 'none', 'live_ai')).toBe('Proctoring None → Record with live warnings');
    expect(field('title', 'Algebra', 'Algebra II')).toBe('Title “Algebra” → “Algebra II”');
    expect(field('proctoringRules', null, { no_face: { criticalAfterSeconds: 5 } })).toBe('Proctoring rules changed');
  });

  it('gives a question’s points, answer and switches, and names lists as changed', () => {
    expect(field('points', 1, 2)).toBe('Points 1 → 2');
    expect(field('correctOptionId', 'a', 'b')).toBe('Correct option “a” → “b”');
    expect(field('caseSensitive', false, true)).toBe('Case-sensitive off → on');
    expect(field('passageId', undefined, 'p1')).toBe('Passage none → p1');
    expect(field('options', [{ id: 'a' }], [{ id: 'a' }, { id: 'b' }])).toBe('Options changed');
  });

  it('shows a long prompt as an excerpt around where it changed', () => {
    const before = 'A train leaves the station at nine and travels at 60 km/h; how far has it gone by noon?';
    const after = 'A train leaves the station at nine and travels at 80 km/h; how far has it gone by noon?';
    const text = field('prompt', before, after);
    expect(text).toBe('Prompt “… travels at 60 km/h; how far has it gone…” → “… travels at 80 km/h; how far has it gone…”');
    expect(excerpts('short', 'shorter')).toEqual(['short', 'shorter']);
    // A change at the very end still shows, and nothing is cut where nothing follows.
    const [, end] = excerpts('x'.repeat(60), `${'x'.repeat(60)}!`);
    expect(end).toBe(`…${'x'.repeat(39)}!`);
  });

  it('puts the fields of a change in one line, and says pools and order in words', () => {
    expect(
      versionChangeText(
        {
          kind: 'test_changed',
          fields: ['durationMinutes', 'passPercent'],
          values: [
            { field: 'durationMinutes', from: 20, to: 25 },
            { field: 'passPercent', from: 50, to: 60 },
          ],
        },
        t,
      ),
    ).toBe('Test settings changed: Duration 20 → 25 min; Pass mark 50 % → 60 %.');
    expect(
      versionChangeText(
        {
          kind: 'section_changed',
          sectionId: 's1',
          fields: ['draw', 'questionOrder'],
          values: [
            { field: 'draw', from: null, to: 2 },
            { field: 'questionOrder', from: ['q1', 'q2'], to: ['q2', 'q1'] },
          ],
        },
        t,
      ),
    ).toBe('Section s1 changed: Questions drawn all → 2; Question order changed.');
    expect(
      versionChangeText({ kind: 'question_changed', questionId: 'q1', fields: ['points', 'prompt'], values: [{ field: 'points', from: 1, to: 2 }, { field: 'prompt', from: 'What is 2 + 2?', to: 'What is 3 + 3?' }] }, t),
    ).toBe('Question q1 changed: Points 1 → 2; Prompt “What is 2 + 2?” → “What is 3 + 3?”.');
    expect(versionChangeText({ kind: 'section_renamed', sectionId: 's1', from: 'Part A', to: 'Part One' }, t)).toBe('Section renamed from "Part A" to "Part One".');
  });
});
