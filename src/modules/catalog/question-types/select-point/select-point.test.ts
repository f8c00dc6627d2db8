import { describe, expect, it } from 'vitest';
import type { ErrorDetail } from '../../../../platform/errors.js';
import { plainTexts } from '../../content/page-texts.js';
import { heart } from './example-question.js';
import { selectPointType, type SelectPointQuestion } from './select-point.js';

const mark = (points: Array<{ x: number; y: number }>, q = heart) => {
  const m = selectPointType.mark!(q, points);
  return m.kind === 'auto' ? m.points : 'manual';
};

describe('select_point marking (mapResponsePoint: each area once, the first listed area takes a point)', () => {
  it('a point inside an area earns its points; a point in no area earns nothing', () => {
    expect(mark([{ x: 150, y: 150 }])).toBe(2);
    expect(mark([{ x: 10, y: 10 }])).toBe(0);
    expect(mark([{ x: 260, y: 170 }])).toBe(1); // inside the triangle
  });
  it('edges count as inside: a rectangle\'s corner and side, a circle\'s rim, a polygon\'s edge; one pixel out does not', () => {
    expect(mark([{ x: 100, y: 100 }])).toBe(2);
    expect(mark([{ x: 200, y: 150 }])).toBe(2);
    expect(mark([{ x: 99, y: 150 }])).toBe(0);
    expect(mark([{ x: 280, y: 80 }])).toBe(1); // 30 from the centre: on the rim
    expect(mark([{ x: 281, y: 80 }])).toBe(0);
    expect(mark([{ x: 280, y: 150 }])).toBe(1); // on the triangle's top edge
    expect(mark([{ x: 300, y: 151 }])).toBe(0);
  });
  it('an area counts once however many points fall in it', () => {
    expect(mark([{ x: 150, y: 150 }, { x: 120, y: 120 }, { x: 110, y: 190 }])).toBe(2);
  });
  it('a point in two overlapping areas counts for the one listed first, not both', () => {
    // (190, 190) lies in the left ventricle (2) and the valve (3): 2, not 5 and not 3.
    expect(mark([{ x: 190, y: 190 }])).toBe(2);
    // In the overlap and then the valve alone: 2 + 3 = 5, capped at the question's 4.
    expect(mark([{ x: 190, y: 190 }, { x: 230, y: 235 }])).toBe(4);
    // Listed the other way round, the same point counts for the valve.
    const valveFirst = { ...heart, areas: [heart.areas[3]!, ...heart.areas.slice(0, 3)] };
    expect(mark([{ x: 190, y: 190 }], valveFirst)).toBe(3);
  });
  it('areas hit are summed and capped at the question\'s points (partial credit)', () => {
    expect(mark([{ x: 150, y: 150 }, { x: 250, y: 80 }])).toBe(3);
    expect(mark([{ x: 150, y: 150 }, { x: 250, y: 80 }, { x: 10, y: 10 }])).toBe(3);
    expect(mark([{ x: 250, y: 80 }, { x: 230, y: 235 }])).toBe(4); // 1 + 3
  });
  it('points past maxPoints are not counted even if one reached the marking', () => {
    expect(mark([{ x: 10, y: 10 }, { x: 11, y: 11 }, { x: 12, y: 12 }, { x: 150, y: 150 }])).toBe(0);
  });
});

describe('select_point answers', () => {
  const check = (v: unknown) => selectPointType.answer.check(heart, v as never);
  it('keeps the points in the order placed, in whole pixels; none is null', () => {
    expect(check([{ x: 150, y: 150.5 }, { x: 0, y: 0.2 }])).toEqual({ ok: true, value: [{ x: 150, y: 151 }, { x: 0, y: 0 }] });
    expect(check([])).toEqual({ ok: true, value: null });
    expect(check(null)).toEqual({ ok: true, value: null });
  });
  it('more points than maxPoints are refused at save', () => {
    const r = check([{ x: 1, y: 1 }, { x: 2, y: 2 }, { x: 3, y: 3 }, { x: 4, y: 4 }]);
    expect(r).toEqual({ ok: false, message: 'has 4 points; at most 3 may be placed' });
  });
  it('a wrong shape or a number out of bounds gets a clear message', () => {
    expect(check('lv')).toMatchObject({ ok: false, message: expect.stringMatching(/list of points/) });
    expect(check([{ x: 1 }])).toMatchObject({ ok: false, message: 'point 1 must be { x, y }' });
    expect(check([{ x: 1, y: 2, z: 3 }])).toMatchObject({ ok: false, message: 'point 1 must be { x, y }' });
    expect(check([{ x: 1, y: 2 }, { x: -1, y: 2 }])).toMatchObject({ ok: false, message: expect.stringMatching(/^point 2's x and y must be numbers from 0 to 100000/) });
    expect(check([{ x: 100_001, y: 2 }])).toMatchObject({ ok: false });
    expect(check([{ x: '1', y: 2 }])).toMatchObject({ ok: false });
  });
});

describe('select_point authoring checks', () => {
  const problems = (q: SelectPointQuestion) => {
    const details: ErrorDetail[] = [];
    selectPointType.check!({ ...q, id: 'sp1' }, 'questions.0', details);
    return details;
  };
  it('a sound question has none', () => expect(problems(heart)).toEqual([]));
  it('names a repeated area id and coordinates that make no shape', () => {
    const areas = [...heart.areas.slice(0, 3), { id: 'lv', label: 'Again', shape: 'rect' as const, coords: [10, 10, 5, 20], points: 1 }];
    expect(problems({ ...heart, areas })).toEqual([
      { field: 'questions.0.areas.3.id', message: 'repeats the area id "lv"' },
      { field: 'questions.0.areas.3.coords', message: 'a rect needs right > left and bottom > top' },
    ]);
  });
  it('full marks out of reach with maxPoints points is named at points', () => {
    // One point earns at most the valve's 3 of the question's 4.
    expect(problems({ ...heart, maxPoints: 1 })).toEqual([
      { field: 'questions.0.points', message: 'is 4, but one point can earn at most 3 from the areas: raise an area\'s points or maxPoints, or lower the points' },
    ]);
  });
});

describe('select_point simulate, statistics, words', () => {
  it('the simulated correct answer earns full points and the wrong one none', () => {
    const correct = selectPointType.simulate.correct(heart);
    expect(selectPointType.answer.check(heart, correct)).toEqual({ ok: true, value: correct });
    expect(mark(correct as never)).toBe(4);
    expect(mark(selectPointType.simulate.wrong!(heart) as never)).toBe(0);
  });
  it('a point is placed where it counts for its area even when the centre belongs to an earlier one', () => {
    // Inner's centre (165, 165) lies in the ventricle, listed first: its point goes where only Inner holds it.
    const q = { ...heart, points: 3, areas: [heart.areas[0]!, { id: 'in', label: 'Inner', shape: 'rect' as const, coords: [120, 120, 210, 210], points: 3 }] };
    const correct = selectPointType.simulate.correct(q) as Array<{ x: number; y: number }>;
    expect(correct).toHaveLength(1);
    expect(correct[0]!.x > 200 || correct[0]!.y > 200).toBe(true);
    expect(mark(correct, q)).toBe(3);
  });
  it('staff read where each point fell and which areas were hit and missed', () => {
    const out = selectPointType.review(heart, [{ x: 190, y: 190 }, { x: 10, y: 10 }], { texts: plainTexts }).toString();
    expect(out).toContain('Point 1 at 190, 190 — in Left ventricle');
    expect(out).toContain('Point 2 at 10, 10 — near Left ventricle');
    expect(out).toContain('Areas hit: Left ventricle (2 points).');
    expect(out).toContain('Areas missed: Aorta (1 point), Right atrium (1 point), Valve (3 points).');
    expect(out).toContain('src="/portal/content-assets/ast_heart"');
    // The image at its own size scrolls in its box on a narrow screen: the box takes the focus so the keyboard can scroll it.
    expect(out).toContain('<div class="sp-review-figure" tabindex="0" role="group" aria-label="The image at its own size">');
    expect(selectPointType.answerText(heart, [{ x: 190, y: 190 }, { x: 250, y: 80 }])).toBe('(190, 190); (250, 80) in Left ventricle, Aorta');
  });
  it('the page names every control and carries the saved points', () => {
    const out = selectPointType.page(heart, { id: 'q1', where: 'question 1', value: [{ x: 250, y: 80 }], texts: plainTexts, shown: { optionOrder: {}, itemOrder: {} } }).toString();
    expect(out).toContain('alt="A diagram of the heart"');
    expect(out).toContain('>Add point</button>');
    expect(out).toContain('Point 1 at 250, 80 — in Aorta');
    expect(out).toContain('>Remove point 1</button>');
    expect(out).toContain('aria-label="Points placed on question 1"');
    expect(out).not.toContain('&quot;points&quot;'); // the areas' points stay off the page
  });
});
