import { describe, expect, it } from 'vitest';
import type { Question } from '../../catalog/schemas.js';
import { answerView, scoreFacts, sectionGroups } from './answer-view.js';
import { html } from '../../../platform/web/html.js';

/** The page's text as a reader hears it: tags dropped, whitespace collapsed. */
const text = (h: { value: string }) => h.value.replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ').trim();

const matching: Question = {
  id: 'm',
  type: 'matching',
  prompt: 'Match each capital to its country',
  points: 3,
  stems: [
    { id: 's1', text: 'Paris' },
    { id: 's2', text: 'Rome' },
    { id: 's3', text: 'Bern' },
  ],
  choices: [
    { id: 'fr', text: 'France' },
    { id: 'it', text: 'Italy' },
    { id: 'ch', text: 'Switzerland' },
  ],
  correct: { s1: 'fr', s2: 'it', s3: 'ch' },
};
const ordering: Question = {
  id: 'o',
  type: 'ordering',
  prompt: 'Order the planets from the Sun',
  points: 3,
  items: [
    { id: 'me', text: 'Mercury' },
    { id: 've', text: 'Venus' },
    { id: 'ea', text: 'Earth' },
  ],
};
const blanks: Question = {
  id: 'f',
  type: 'fill_blanks',
  prompt: 'Complete the sentence',
  points: 2,
  text: 'Water boils at {{t}} degrees at {{p}} pressure & <sea> level.',
  blanks: [
    { id: 't', kind: 'text', acceptedAnswers: ['100'] },
    { id: 'p', kind: 'choice', options: [{ id: 'lo', text: 'low' }, { id: 'std', text: 'standard' }], correctOptionId: 'std' },
  ],
};

describe('answers in words', () => {
  it('shows matching as stem → choice pairs by text, unmatched stems said so, each right or wrong', () => {
    const out = text(answerView(matching, { s1: 'fr', s2: 'ch' }));
    expect(out).toContain('Paris → matched to France right');
    expect(out).toContain('Rome → matched to Switzerland wrong (correct: Italy)');
    expect(out).toContain('Bern → matched to not matched wrong (correct: Switzerland)');
    expect(out).not.toMatch(/\bs1\b|\bfr\b/);
    expect(text(answerView(matching, null))).toBe('Not answered.');
    expect(text(answerView(matching, {}))).toBe('Not answered.');
  });

  it('shows ordering as a numbered list of the texts in the student order, each in its correct place or not', () => {
    const h = answerView(ordering, ['ve', 'me', 'ea']).value;
    expect(h).toMatch(/^<ol class="answer-order">/);
    const items = [...h.matchAll(/<li>(.*?)<\/li>/g)].map((m) => text({ value: m[1]! }));
    expect(items).toEqual(['Venus not in place (belongs at 2)', 'Mercury not in place (belongs at 1)', 'Earth in its correct place']);
    expect(text(answerView(ordering, null))).toBe('Not answered.');
  });

  it('shows fill_blanks as the text with each blank filled in, choice blanks by option text, marked per blank', () => {
    const right = text(answerView(blanks, { t: ' 100 ', p: 'std' }));
    expect(right).toBe('Water boils at 100 (Blank 1, right) degrees at standard (Blank 2, right) pressure &amp; &lt;sea&gt; level.');
    const wrong = text(answerView(blanks, { p: 'lo' }));
    expect(wrong).toBe('Water boils at left empty (Blank 1, wrong; accepted: 100) degrees at low (Blank 2, wrong; correct: standard) pressure &amp; &lt;sea&gt; level.');
    expect(text(answerView(blanks, { t: '  ' }))).toBe('Not answered.');
  });

  it('escapes what students typed into a blank', () => {
    expect(answerView(blanks, { t: '<script>x</script>' }).value).toContain('&lt;script&gt;x&lt;/script&gt;');
  });

  it('shows a file_upload answer as the view of its file the caller gives, one no longer stored as such, and no answer as not answered', () => {
    const upload: Question = { id: 'u', type: 'file_upload', prompt: 'Upload your essay', points: 5, accept: ['application/pdf'] };
    expect(text(answerView(upload, { fileId: 'file_1' }, html`<p>essay.pdf</p>`))).toBe('essay.pdf');
    expect(text(answerView(upload, { fileId: 'file_1' }))).toBe('The file is no longer stored.');
    expect(text(answerView(upload, null))).toBe('Not answered.');
  });

  it('lists the score per section in words when the score has sections, and nothing more for a flat score', () => {
    const base = { points: 6, maxPoints: 8, percent: 75, passed: true, gradingStatus: 'final' as const, markedAt: '2026-01-01T00:00:00.000Z' };
    const sectioned = text(
      scoreFacts({
        ...base,
        sections: [
          { sectionId: 'a', title: 'Reading', points: 4, maxPoints: 4, percent: 100 },
          { sectionId: 'b', title: 'Writing', points: 2, maxPoints: 4, percent: 50 },
        ],
      }),
    );
    expect(sectioned).toContain('Score per section Reading: 4 of 4 points (100%) Writing: 2 of 4 points (50%)');
    expect(text(scoreFacts(base))).not.toContain('section');
  });

  it('groups items by the sections the candidate was given, numbered through the test, and a flat view as one untitled group', () => {
    const items = [{ questionId: 'q3' }, { questionId: 'q1' }, { questionId: 'q7' }];
    expect(sectionGroups({ items }).map((g) => [g.title, g.items.map((i) => i.index)])).toEqual([[null, [0, 1, 2]]]);
    const groups = sectionGroups({
      items,
      sections: [
        { sectionId: 'a', title: 'Part A', questionIds: ['q3', 'q1'] },
        { sectionId: 'b', title: 'Part B', questionIds: ['q7'] },
      ],
    });
    expect(groups.map((g) => [g.title, g.items.map((i) => `${i.index}:${i.item.questionId}`)])).toEqual([
      ['Part A', ['0:q3', '1:q1']],
      ['Part B', ['2:q7']],
    ]);
  });
});
