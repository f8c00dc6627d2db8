import { describe, expect, it } from 'vitest';
import type { CompiledQtiProcessing, QtiDeclaration } from '../catalog/qti-processing/index.js';
import type { ScorableQuestion } from '../catalog/qti-scoring.js';
import { qtiResponses } from './qti-responses.js';

/** Only the declarations are read by the conversion; the processing is never run here. */
const compiled = (...responses: QtiDeclaration[]) => ({ responses, outcomes: [] }) as unknown as CompiledQtiProcessing;
const decl = (identifier: string, cardinality: QtiDeclaration['cardinality'], baseType: QtiDeclaration['baseType']): QtiDeclaration => ({ identifier, cardinality, baseType });
const scoring = (...ids: string[]) => ({ format: 'qti' as const, declarations: '-', responseProcessing: '-', responses: ids.map((identifier) => ({ identifier })) });
const parts = (...ids: string[]) => ids.map((id) => ({ id, text: id }));

describe('an answer as QTI responses', () => {
  it('single and multiple choice: the option id, the option ids; nothing chosen is NULL', () => {
    const single = { id: 'q', type: 'single_choice', prompt: 'p', points: 1, options: parts('a', 'b'), correctOptionId: 'a', scoring: scoring('R') } as ScorableQuestion;
    const c = compiled(decl('R', 'single', 'identifier'));
    expect(qtiResponses(single, 'b', c)).toEqual({ R: 'b' });
    expect(qtiResponses(single, null, c)).toEqual({ R: null });
    expect(qtiResponses(single, undefined, c)).toEqual({ R: null });
    const multi = { id: 'q', type: 'multiple_choice', prompt: 'p', points: 1, options: parts('a', 'b'), correctOptionIds: ['a'], scoring: scoring('R') } as ScorableQuestion;
    const m = compiled(decl('R', 'multiple', 'identifier'));
    expect(qtiResponses(multi, ['a', 'b'], m)).toEqual({ R: ['a', 'b'] });
    expect(qtiResponses(multi, [], m)).toEqual({ R: null });
  });

  it('short text is trimmed; numeric is a number, NULL when not one, and NULL for a fraction given to an integer', () => {
    const text = { id: 'q', type: 'short_text', prompt: 'p', points: 1, acceptedAnswers: ['x'], scoring: scoring('R') } as ScorableQuestion;
    expect(qtiResponses(text, '  Paris ', compiled(decl('R', 'single', 'string')))).toEqual({ R: 'Paris' });
    const num = { id: 'q', type: 'numeric', prompt: 'p', points: 1, answer: 1, scoring: scoring('R') } as ScorableQuestion;
    expect(qtiResponses(num, '9,81', compiled(decl('R', 'single', 'float')))).toEqual({ R: 9.81 });
    expect(qtiResponses(num, 'nine', compiled(decl('R', 'single', 'float')))).toEqual({ R: null });
    expect(qtiResponses(num, '3.5', compiled(decl('R', 'single', 'integer')))).toEqual({ R: null });
    expect(qtiResponses(num, '4', compiled(decl('R', 'single', 'integer')))).toEqual({ R: 4 });
  });

  it('ordering: the ids in the candidate order; matching: [stem, choice] pairs in stem order, unmatched stems left out', () => {
    const order = { id: 'q', type: 'ordering', prompt: 'p', points: 1, items: parts('x', 'y', 'z'), scoring: scoring('R') } as ScorableQuestion;
    expect(qtiResponses(order, ['z', 'x', 'y'], compiled(decl('R', 'ordered', 'identifier')))).toEqual({ R: ['z', 'x', 'y'] });
    const match = { id: 'q', type: 'matching', prompt: 'p', points: 1, stems: parts('s1', 's2', 's3'), choices: parts('c1', 'c2'), correct: { s1: 'c1', s2: 'c2', s3: 'c1' }, scoring: scoring('R') } as ScorableQuestion;
    const c = compiled(decl('R', 'multiple', 'directedPair'));
    expect(qtiResponses(match, { s3: 'c2', s1: 'c1' }, c)).toEqual({ R: [['s1', 'c1'], ['s3', 'c2']] });
    expect(qtiResponses(match, {}, c)).toEqual({ R: null });
  });

  it('fill in the blanks: one response per blank, by its declared base type; an empty blank is NULL', () => {
    const q = {
      id: 'q',
      type: 'fill_blanks',
      prompt: 'p',
      points: 1,
      text: '{{word}} {{n}} {{pick}}',
      blanks: [
        { id: 'word', kind: 'text', acceptedAnswers: ['a'] },
        { id: 'n', kind: 'text', acceptedAnswers: ['1'] },
        { id: 'pick', kind: 'choice', options: parts('o1', 'o2'), correctOptionId: 'o1' },
      ],
      scoring: scoring('word', 'n', 'pick'),
    } as ScorableQuestion;
    const c = compiled(decl('word', 'single', 'string'), decl('n', 'single', 'integer'), decl('pick', 'single', 'identifier'));
    expect(qtiResponses(q, { word: ' water ', n: '7', pick: 'o2' }, c)).toEqual({ word: 'water', n: 7, pick: 'o2' });
    expect(qtiResponses(q, { word: '   ' }, c)).toEqual({ word: null, n: null, pick: null });
    expect(qtiResponses(q, null, c)).toEqual({ word: null, n: null, pick: null });
  });

  it('hot text and associate: ids or unordered pairs, all of them for a multiple response, the first for a single one', () => {
    const hot = { id: 'q', type: 'hot_text', prompt: 'p', points: 1, text: '{{a}} {{b}}', hotspots: [{ id: 'a', phrase: 'a' }, { id: 'b', phrase: 'b' }], correct: ['a'], scoring: scoring('R') } as ScorableQuestion;
    expect(qtiResponses(hot, ['a', 'b'], compiled(decl('R', 'multiple', 'identifier')))).toEqual({ R: ['a', 'b'] });
    expect(qtiResponses(hot, ['b'], compiled(decl('R', 'single', 'identifier')))).toEqual({ R: 'b' });
    expect(qtiResponses(hot, null, compiled(decl('R', 'single', 'identifier')))).toEqual({ R: null });
    const assoc = { id: 'q', type: 'associate', prompt: 'p', points: 1, items: parts('x', 'y', 'z'), pairs: [{ a: 'x', b: 'y' }], scoring: scoring('R') } as ScorableQuestion;
    expect(qtiResponses(assoc, [['x', 'y'], ['y', 'z']], compiled(decl('R', 'multiple', 'pair')))).toEqual({ R: [['x', 'y'], ['y', 'z']] });
    expect(qtiResponses(assoc, [['x', 'z']], compiled(decl('R', 'single', 'pair')))).toEqual({ R: ['x', 'z'] });
    expect(qtiResponses(assoc, [], compiled(decl('R', 'multiple', 'pair')))).toEqual({ R: null });
  });

  it('slider: the number (NULL for a fraction given to an integer); select point: [x, y] points, the first for a single response', () => {
    const slider = { id: 'q', type: 'slider', prompt: 'p', points: 1, min: 0, max: 1, step: 0.5, correct: 1, scoring: scoring('R') } as ScorableQuestion;
    expect(qtiResponses(slider, 0.5, compiled(decl('R', 'single', 'float')))).toEqual({ R: 0.5 });
    expect(qtiResponses(slider, 0.5, compiled(decl('R', 'single', 'integer')))).toEqual({ R: null });
    expect(qtiResponses(slider, 1, compiled(decl('R', 'single', 'integer')))).toEqual({ R: 1 });
    const point = { id: 'q', type: 'select_point', prompt: 'p', points: 1, image: 'asset:ast_a', imageAlt: 'a', areas: [], maxPoints: 2, scoring: scoring('R') } as unknown as ScorableQuestion;
    const placed = [{ x: 3, y: 4 }, { x: 10, y: 0 }];
    expect(qtiResponses(point, placed, compiled(decl('R', 'multiple', 'point')))).toEqual({ R: [[3, 4], [10, 0]] });
    expect(qtiResponses(point, placed, compiled(decl('R', 'single', 'point')))).toEqual({ R: [3, 4] });
    expect(qtiResponses(point, null, compiled(decl('R', 'multiple', 'point')))).toEqual({ R: null });
  });
});
