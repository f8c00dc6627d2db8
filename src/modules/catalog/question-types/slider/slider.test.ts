import { describe, expect, it } from 'vitest';
import type { ErrorDetail } from '../../../../platform/errors.js';
import { plainTexts } from '../../content/page-texts.js';
import type { Ctx } from '../../interchange/qti-item-context.js';
import { declXml, PLAIN, QTI3_NS } from '../../interchange/qti-writer.js';
import { readDeclarations, readProcessing } from '../../interchange/response-processing.js';
import { descendants, first, parseXml } from '../../interchange/xml.js';
import { sliderType } from './slider.js';
import type { SliderQuestion } from './slider-schema.js';

const question = (over: Partial<SliderQuestion> = {}): SliderQuestion => ({
  type: 'slider',
  id: 'q1',
  prompt: 'At what temperature, in °C, does water boil at sea level?',
  points: 2,
  min: 0,
  max: 150,
  step: 5,
  correct: 100,
  ...over,
});
const problems = (q: SliderQuestion) => {
  const details: ErrorDetail[] = [];
  sliderType.check!(q, 'questions.0', details);
  return details;
};

describe('slider authoring checks', () => {
  it('accepts a scale whose step divides the range, within float slack', () => {
    expect(problems(question())).toEqual([]);
    expect(problems(question({ min: 0, max: 0.3, step: 0.1, correct: 0.2 }))).toEqual([]);
  });
  it('names min not below max, a step that does not divide the range, and a key off the scale', () => {
    expect(problems(question({ min: 10, max: 10 }))).toEqual([{ field: 'questions.0.max', message: 'is 10; it must be more than min (10)' }]);
    expect(problems(question({ step: 7 }))).toEqual([{ field: 'questions.0.step', message: '7 does not divide the range 0 to 150 into whole steps' }]);
    expect(problems(question({ correct: 101 }))).toEqual([{ field: 'questions.0.correct', message: '101 is not on the scale: 0 to 150 in steps of 5' }]);
    expect(problems(question({ correct: 155 }))).toEqual([{ field: 'questions.0.correct', message: '155 is not on the scale: 0 to 150 in steps of 5' }]);
    expect(problems(question({ max: 1e9, step: 1 }))).toEqual([{ field: 'questions.0.step', message: 'makes 1000000000 steps from 0 to 1000000000; at most 100000' }]);
  });
});

describe('slider answers and marking', () => {
  const check = (value: unknown, q = question()) => sliderType.answer.check(q, value as never);
  it('keeps a point of the scale (float noise removed) and refuses anything else', () => {
    expect(check(95)).toEqual({ ok: true, value: 95 });
    expect(check(0.1 + 0.2, question({ min: 0, max: 1, step: 0.1, correct: 0.3 }))).toEqual({ ok: true, value: 0.3 });
    expect(check(null)).toEqual({ ok: true, value: null });
    expect(check('95')).toEqual({ ok: false, message: 'a slider answer is a number' });
    expect(check(96)).toEqual({ ok: false, message: '96 is not on the scale: 0 to 150 in steps of 5' });
    expect(check(200)).toEqual({ ok: false, message: '200 is not on the scale: 0 to 150 in steps of 5' });
  });
  it('exact without a tolerance; within the tolerance inclusive with one; all or nothing', () => {
    expect(sliderType.mark!(question(), 100)).toEqual({ kind: 'auto', points: 2 });
    expect(sliderType.mark!(question(), 95)).toEqual({ kind: 'auto', points: 0 });
    expect(sliderType.mark!(question({ tolerance: 5 }), 95)).toEqual({ kind: 'auto', points: 2 });
    expect(sliderType.mark!(question({ tolerance: 5 }), 90)).toEqual({ kind: 'auto', points: 0 });
    expect(sliderType.mark!(question({ min: 0, max: 1, step: 0.1, correct: 0.3 }), 0.1 + 0.2)).toEqual({ kind: 'auto', points: 2 });
  });
  it('simulate gives the correct value and the farther end', () => {
    expect(sliderType.simulate.correct(question())).toBe(100);
    expect(sliderType.simulate.wrong!(question())).toBe(0);
    expect(sliderType.simulate.wrong!(question({ tolerance: 150 }))).toBeNull();
  });
});

describe('slider views', () => {
  const ctx = (value: number | null, id = 'q3') => ({ id, where: 'question 3', value, texts: plainTexts, shown: { optionOrder: {}, itemOrder: {} } });
  it('the page is a range input named by the prompt, unanswered until moved', () => {
    const page = sliderType.page(question(), ctx(null)).toString();
    expect(page).toContain('<input type="range" class="slider-input" id="q3-range" min="0" max="150" step="5" value="75" aria-labelledby="question-3-prompt"');
    expect(page).toContain('<output class="slider-value" for="q3-range"></output>');
    expect(page).toContain('Not answered yet');
    expect(page).toContain('From 0 to 150, in steps of 5.');
    const saved = sliderType.page(question(), ctx(95, 'q3-p2')).toString();
    expect(saved).toContain('value="95" aria-labelledby="q3-p2-prompt"');
    expect(saved).toContain('<output class="slider-value" for="q3-p2-range">95</output>');
    expect(saved).toContain('data-answered="yes"');
  });
  it('the review sets the value against the correct one in words', () => {
    const review = sliderType.review(question({ tolerance: 5 }), 95, { texts: plainTexts }).toString();
    expect(review).toContain('95 <span class="badge badge-right">right</span>');
    expect(review).toContain('Correct: 100 ± 5 (95 to 105)');
    expect(sliderType.review(question(), null, { texts: plainTexts }).toString()).toContain('Not answered.');
    expect(sliderType.answerText(question(), 95)).toBe('95');
  });
});

function readItem(xml: string) {
  const item = parseXml(xml, 'item.xml');
  const itemBody = first(item, 'qti-item-body')!;
  const ctx: Ctx = { item, body: itemBody, decls: readDeclarations(item), rp: readProcessing(item, ['RESPONSE']), max: null, title: 'T', notes: [], imageInline: () => undefined, markdown: false, problems: [] };
  return { read: sliderType.qti!.read(ctx, descendants(itemBody).find((e) => e.name === 'qti-slider-interaction')!), notes: ctx.notes };
}
function roundTrip(q: SliderQuestion) {
  const { decls, body, rp } = sliderType.qti!.write(q, 'RESPONSE', PLAIN);
  const xml =
    `<qti-assessment-item xmlns="${QTI3_NS}" identifier="i" title="T" adaptive="false" time-dependent="false">${decls.map(declXml).join('')}` +
    `<qti-outcome-declaration identifier="SCORE" cardinality="single" base-type="float"/><qti-item-body>${body}</qti-item-body>${rp}</qti-assessment-item>`;
  return { xml, ...readItem(xml) };
}
const { id: _id, ...bare } = question();

describe('slider QTI', () => {
  it('an integer scale round-trips with match_correct', () => {
    const { xml, read } = roundTrip({ ...question(), points: 1 });
    expect(xml).toContain('<qti-slider-interaction response-identifier="RESPONSE" lower-bound="0" upper-bound="150" step="5"/>');
    expect(xml).toContain('base-type="integer"');
    expect(xml).toContain('rptemplates/match_correct.xml');
    expect(read).toEqual({ ...bare, points: 1 });
  });
  it('a float scale with a tolerance round-trips through qti-equal', () => {
    const q = question({ min: -1, max: 1, step: 0.25, correct: 0.5, tolerance: 0.25 });
    const { xml, read } = roundTrip(q);
    expect(xml).toContain('base-type="float"');
    expect(xml).toContain('tolerance="0.25 0.25"');
    const { id: _, ...rest } = q;
    expect(read).toEqual(rest);
  });
  it('reads QTI 2 names, a missing step and presentation attributes with notes', () => {
    const xml =
      `<assessmentItem xmlns="http://www.imsglobal.org/xsd/imsqti_v2p1" identifier="i" title="T" adaptive="false" timeDependent="false">` +
      `<responseDeclaration identifier="RESPONSE" cardinality="single" baseType="float"><correctResponse><value>2.5</value></correctResponse></responseDeclaration>` +
      `<outcomeDeclaration identifier="SCORE" cardinality="single" baseType="float"/><itemBody><sliderInteraction responseIdentifier="RESPONSE" lowerBound="0" upperBound="10" stepLabel="true" orientation="vertical"><prompt>Set it.</prompt></sliderInteraction></itemBody>` +
      `<responseProcessing template="http://www.imsglobal.org/question/qti_v2p1/rptemplates/match_correct"/></assessmentItem>`;
    const { read, notes } = readItem(xml);
    expect(read).toEqual({ type: 'slider', prompt: 'Set it.', points: 1, min: 0, max: 10, step: 0.1, correct: 2.5 });
    expect(notes).toEqual([
      "the slider's step-label is not shown: the page draws every slider the same way",
      "the slider's orientation is not shown: the page draws every slider the same way",
      'the float slider gives no step: it moves in steps of 0.1',
    ]);
  });
});
