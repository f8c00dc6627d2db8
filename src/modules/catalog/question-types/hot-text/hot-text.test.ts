import { describe, expect, it } from 'vitest';
import type { ErrorDetail } from '../../../../platform/errors.js';
import { plainTexts } from '../../content/page-texts.js';
import type { Ctx } from '../../interchange/qti-item-context.js';
import { declXml, PLAIN, QTI3_NS } from '../../interchange/qti-writer.js';
import { readDeclarations, readProcessing } from '../../interchange/response-processing.js';
import { descendants, first, parseXml } from '../../interchange/xml.js';
import { hotTextType } from './hot-text.js';
import type { HotTextQuestion } from './hot-text-schema.js';

const question = (over: Partial<HotTextQuestion> = {}): HotTextQuestion => ({
  type: 'hot_text',
  id: 'q1',
  prompt: 'Choose the verbs.',
  points: 2,
  text: 'The cat {{h1}} on the {{h2}} and {{h3}} loudly.',
  hotspots: [
    { id: 'h1', phrase: 'sat' },
    { id: 'h2', phrase: 'mat' },
    { id: 'h3', phrase: 'purred' },
  ],
  correct: ['h1', 'h3'],
  ...over,
});

const problems = (q: HotTextQuestion) => {
  const details: ErrorDetail[] = [];
  hotTextType.check!(q, 'questions.0', details);
  return details;
};
const mark = (q: HotTextQuestion, value: string[]) => hotTextType.mark!(q, value);

describe('hot_text authoring checks', () => {
  it('accepts a well-formed question', () => {
    expect(problems(question())).toEqual([]);
  });

  it('names a placeholder without a hotspot, one placed twice and a hotspot never placed', () => {
    expect(problems(question({ text: 'The cat {{h1}} on the {{h9}} and {{h1}}.' }))).toEqual([
      { field: 'questions.0.text', message: 'places hotspot "{{h9}}", which has no definition in hotspots' },
      { field: 'questions.0.text', message: 'places hotspot "{{h1}}" twice' },
      { field: 'questions.0.hotspots.1.id', message: 'hotspot "h2" is not placed in text (write {{h2}} where its phrase goes)' },
      { field: 'questions.0.hotspots.2.id', message: 'hotspot "h3" is not placed in text (write {{h3}} where its phrase goes)' },
    ]);
  });

  it('names duplicate ids, a key naming no hotspot or repeating one, and a maxChoices the key cannot fit', () => {
    const q = question({ hotspots: [{ id: 'h1', phrase: 'sat' }, { id: 'h1', phrase: 'mat' }, { id: 'h3', phrase: 'purred' }], text: '{{h1}} {{h3}}', correct: ['h1', 'hx', 'h1'], maxChoices: 1 });
    expect(problems(q)).toEqual([
      { field: 'questions.0.hotspots.1.id', message: 'duplicates hotspot id "h1"' },
      { field: 'questions.0.correct.1', message: '"hx" is not one of the hotspots' },
      { field: 'questions.0.correct.2', message: 'repeats "h1"' },
    ]);
    expect(problems(question({ maxChoices: 1 }))).toEqual([{ field: 'questions.0.maxChoices', message: 'is 1, fewer than the 2 correct hotspots: no answer could earn full points' }]);
    expect(problems(question({ maxChoices: 4 }))).toEqual([{ field: 'questions.0.maxChoices', message: 'is 4, more than the 3 hotspots' }]);
  });
});

describe('hot_text answers', () => {
  const check = (value: unknown, q = question()) => hotTextType.answer.check(q, value as never);
  it('keeps ids in the hotspots’ order and stores an empty choice as null', () => {
    expect(check(['h3', 'h1'])).toEqual({ ok: true, value: ['h1', 'h3'] });
    expect(check([])).toEqual({ ok: true, value: null });
    expect(check(null)).toEqual({ ok: true, value: null });
  });
  it('refuses a wrong shape, an unknown or repeated id, and more than maxChoices', () => {
    expect(check('h1')).toEqual({ ok: false, message: 'a hot_text answer is an array of hotspot ids' });
    expect(check(['h9'])).toEqual({ ok: false, message: '"h9" is not one of the question\'s hotspots' });
    expect(check(['h1', 'h1'])).toEqual({ ok: false, message: 'names a hotspot twice' });
    expect(check(['h1', 'h2', 'h3'], question({ maxChoices: 2 }))).toEqual({ ok: false, message: 'chooses 3 hotspots; at most 2 may be chosen' });
  });
});

describe('hot_text marking', () => {
  it('several correct: points × (right − wrong) ÷ correct, never below 0', () => {
    const q = question(); // 2 points, h1 and h3 correct
    expect(mark(q, ['h1', 'h3'])).toEqual({ kind: 'auto', points: 2 });
    expect(mark(q, ['h1'])).toEqual({ kind: 'auto', points: 1 }); // 2 × (1 − 0) ÷ 2
    expect(mark(q, ['h1', 'h2'])).toEqual({ kind: 'auto', points: 0 }); // 2 × (1 − 1) ÷ 2
    expect(mark(q, ['h1', 'h2', 'h3'])).toEqual({ kind: 'auto', points: 1 }); // 2 × (2 − 1) ÷ 2
    expect(mark(q, ['h2'])).toEqual({ kind: 'auto', points: 0 }); // 2 × (0 − 1) ÷ 2 → 0
  });
  it('one correct: all or nothing', () => {
    const q = question({ correct: ['h2'], points: 3 });
    expect(mark(q, ['h2'])).toEqual({ kind: 'auto', points: 3 });
    expect(mark(q, ['h2', 'h1'])).toEqual({ kind: 'auto', points: 0 });
    expect(mark(q, ['h1'])).toEqual({ kind: 'auto', points: 0 });
  });
  it('simulate gives an answer worth full points and one that is not', () => {
    const q = question();
    expect(mark(q, hotTextType.simulate.correct(q) as string[])).toEqual({ kind: 'auto', points: 2 });
    expect(mark(q, hotTextType.simulate.wrong!(q) as string[])).toEqual({ kind: 'auto', points: 0 });
  });
});

describe('hot_text views', () => {
  const ctx = { id: 'q1', where: 'question 1', value: ['h3'], texts: plainTexts, shown: { optionOrder: {}, itemOrder: {} } };
  it('the page puts each phrase as a toggle button inside the text, pressed as saved', () => {
    const page = hotTextType.page(question({ maxChoices: 2 }), ctx).toString();
    expect(page).toContain('The cat <button type="button" class="hot-phrase" data-hotspot-id="h1" aria-pressed="false">sat</button> on the');
    expect(page).toContain('data-hotspot-id="h3" aria-pressed="true">purred</button> loudly.');
    expect(page).toContain('Choose up to 2 phrases.');
    expect(page).toContain('1 phrase chosen of at most 2.');
    expect(page).toContain('role="status" aria-live="polite"');
  });
  it('the review says in words what was chosen, right or wrong, and the correct phrase missed', () => {
    const review = hotTextType.review(question(), ['h1', 'h2'], { texts: plainTexts }).toString();
    expect(review).toContain('<mark>sat</mark> <span class="hint">(chosen, <span class="badge badge-right">right</span>)</span>');
    expect(review).toContain('<mark>mat</mark> <span class="hint">(chosen, <span class="badge badge-wrong">wrong</span>)</span>');
    expect(review).toContain('<u>purred</u> <span class="hint">(not chosen; a correct phrase)</span>');
    expect(hotTextType.review(question(), null, { texts: plainTexts }).toString()).toContain('Not answered.');
    expect(hotTextType.answerText(question(), ['h1', 'h2'])).toBe('sat; mat');
  });
  it('statistics count each hotspot as an option', () => {
    expect(hotTextType.statistics!.options(question())).toEqual([
      { id: 'h1', text: 'sat', correct: true },
      { id: 'h2', text: 'mat', correct: false },
      { id: 'h3', text: 'purred', correct: true },
    ]);
  });
});

/** The question written as a QTI item by the type's mapping, parsed and read back as the importer reads an item. */
function roundTrip(q: HotTextQuestion) {
  const { decls, body, rp } = hotTextType.qti!.write(q, 'RESPONSE', PLAIN);
  const xml =
    `<qti-assessment-item xmlns="${QTI3_NS}" identifier="i" title="T" adaptive="false" time-dependent="false">${decls.map(declXml).join('')}` +
    `<qti-outcome-declaration identifier="SCORE" cardinality="single" base-type="float"/><qti-item-body>${body}</qti-item-body>${rp}</qti-assessment-item>`;
  const item = parseXml(xml, 'item.xml');
  const itemBody = first(item, 'qti-item-body')!;
  const ctx: Ctx = { item, body: itemBody, decls: readDeclarations(item), rp: readProcessing(item, ['RESPONSE']), max: null, title: 'T', notes: [], imageInline: () => undefined, markdown: false, problems: [] };
  return { xml, read: hotTextType.qti!.read(ctx, descendants(itemBody).find((e) => e.name === 'qti-hottext-interaction')!) };
}

describe('hot_text QTI', () => {
  it('several correct round-trip through map_response with ±w weights bounded to 0 … points', () => {
    const q = question({ maxChoices: 3 });
    const { xml, read } = roundTrip(q);
    expect(xml).toContain('<qti-hottext identifier="h1">sat</qti-hottext>');
    expect(xml).toContain('<qti-map-entry map-key="h2" mapped-value="-1"/>');
    expect(xml).toContain('rptemplates/map_response.xml');
    const { id: _id, ...rest } = q;
    expect(read).toEqual({ ...rest, prompt: 'Choose the verbs.' });
  });
  it('one correct round-trips as all or nothing, with its points and no limit', () => {
    const q = question({ correct: ['h2'], points: 3 });
    const { xml, read } = roundTrip(q);
    expect(xml).toContain('max-choices="0"');
    const { id: _id, ...rest } = q;
    expect(read).toEqual(rest);
  });
  it('all or nothing over several correct hottexts is not read as partial credit', () => {
    const q = question();
    const { xml } = roundTrip(q);
    const aon = xml.replace(/<qti-mapping.*?<\/qti-mapping>/, '').replace(/<qti-response-processing[^>]*\/>/, '<qti-response-processing template="https://purl.imsglobal.org/spec/qti/v3p0/rptemplates/match_correct.xml"/>');
    const item = parseXml(aon, 'item.xml');
    const itemBody = first(item, 'qti-item-body')!;
    const ctx: Ctx = { item, body: itemBody, decls: readDeclarations(item), rp: readProcessing(item, ['RESPONSE']), max: null, title: 'T', notes: [], imageInline: () => undefined, markdown: false, problems: [] };
    expect(hotTextType.qti!.read(ctx, descendants(itemBody).find((e) => e.name === 'qti-hottext-interaction')!)).toBe(
      'all-or-nothing scoring of several correct hottexts cannot be expressed (Assay gives partial credit for each)',
    );
  });
});
