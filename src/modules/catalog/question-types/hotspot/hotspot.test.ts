import { describe, expect, it } from 'vitest';
import type { ErrorDetail } from '../../../../platform/errors.js';
import { plainTexts } from '../../content/page-texts.js';
import { hotspotType } from './hotspot.js';
import type { HotspotQuestion } from './hotspot-schema.js';

const heart = (over: Partial<HotspotQuestion> = {}): HotspotQuestion => ({
  type: 'hotspot',
  id: 'q1',
  prompt: 'Choose the chambers that pump blood to the body and the lungs.',
  points: 4,
  image: 'asset:ast_heart1',
  imageAlt: 'A diagram of the heart',
  regions: [
    { id: 'la', label: 'Left atrium', shape: 'rect', coords: [200, 40, 300, 120] },
    { id: 'lv', label: 'Left ventricle', shape: 'circle', coords: [250, 220, 60] },
    { id: 'rv', label: 'Right ventricle', shape: 'poly', coords: [60, 160, 160, 160, 150, 300, 70, 300] },
    { id: 'ao', label: 'Aorta', shape: 'rect', coords: [180, 0, 240, 40] },
  ],
  correctRegionIds: ['lv', 'rv'],
  ...over,
});

const points = (q: HotspotQuestion, value: string[]) => {
  const m = hotspotType.mark!(q, value);
  return m.kind === 'auto' ? m.points : NaN;
};
const problems = (q: HotspotQuestion) => {
  const details: ErrorDetail[] = [];
  hotspotType.check!(q, 'questions.0', details);
  return details;
};

describe('hotspot marking', () => {
  it('several correct regions: points × (right − wrong) ÷ correct, never below 0', () => {
    const q = heart();
    expect(points(q, ['lv', 'rv'])).toBe(4);
    expect(points(q, ['lv'])).toBe(2); // 4 × (1 − 0) ÷ 2
    expect(points(q, ['lv', 'rv', 'la'])).toBe(2); // 4 × (2 − 1) ÷ 2
    expect(points(q, ['lv', 'la'])).toBe(0); // 4 × (1 − 1) ÷ 2
    expect(points(q, ['la', 'ao'])).toBe(0); // 4 × (0 − 2) ÷ 2, held at 0
  });

  it('one correct region is all or nothing', () => {
    const q = heart({ correctRegionIds: ['lv'], maxChoices: 1, points: 3 });
    expect(points(q, ['lv'])).toBe(3);
    expect(points(q, ['la'])).toBe(0);
    expect(points({ ...q, maxChoices: undefined }, ['lv', 'la'])).toBe(0);
  });

  it('thirds are rounded as other questions round points', () => {
    const q = heart({ points: 1, correctRegionIds: ['la', 'lv', 'rv'] });
    expect(points(q, ['la'])).toBe(0.3333);
  });
});

describe('hotspot checks', () => {
  it('accepts the example', () => expect(problems(heart())).toEqual([]));

  it('names the field of each problem', () => {
    const q = heart({
      regions: [
        { id: 'a', label: 'One', shape: 'rect', coords: [10, 10, 5, 20] },
        { id: 'a', label: 'one', shape: 'circle', coords: [10, 10, 5] },
      ],
      correctRegionIds: ['a', 'zz'],
      maxChoices: 1,
    });
    expect(problems(q)).toEqual([
      { field: 'questions.0.regions.0.coords', message: 'a rect needs right > left and bottom > top' },
      { field: 'questions.0.regions.1.id', message: 'region id "a" is used twice' },
      { field: 'questions.0.regions.1.label', message: 'two regions are labelled "one": each names its own control' },
      { field: 'questions.0.correctRegionIds.1', message: '"zz" is not a region of this question' },
      { field: 'questions.0.maxChoices', message: 'must be at least the 2 correct regions' },
    ]);
  });

  it('checks regions against the image size when it is given', () => {
    expect(problems(heart({ imageWidth: 280, imageHeight: 400 }))).toEqual([
      { field: 'questions.0.regions.0.coords', message: 'the region reaches outside the 280 × 400 image' },
      { field: 'questions.0.regions.1.coords', message: 'the region reaches outside the 280 × 400 image' },
    ]);
    expect(problems(heart({ imageWidth: 400 }))).toEqual([{ field: 'questions.0.imageHeight', message: 'give both imageWidth and imageHeight, or neither' }]);
  });
});

describe('hotspot answers', () => {
  const check = (value: unknown, q = heart()) => hotspotType.answer.check(q, value as never);
  it('stores region ids in the question\'s order; none chosen is no answer', () => {
    expect(check(['rv', 'la'])).toEqual({ ok: true, value: ['la', 'rv'] });
    expect(check([])).toEqual({ ok: true, value: null });
    expect(check(null)).toEqual({ ok: true, value: null });
  });
  it('refuses what is not a list of its regions, a region twice, or more than maxChoices', () => {
    expect(check('la')).toEqual({ ok: false, message: 'must be an array of region ids or null' });
    expect(check(['la', 'nope'])).toEqual({ ok: false, message: '"nope" is not a region of this question' });
    expect(check(['la', 'la'])).toEqual({ ok: false, message: 'names a region twice' });
    expect(check(['la', 'lv'], heart({ correctRegionIds: ['lv'], maxChoices: 1 }))).toEqual({ ok: false, message: 'chooses 2 regions; at most 1 may be chosen' });
  });
  it('simulates a full-marks answer and a wrong one', () => {
    const q = heart();
    expect(points(q, hotspotType.simulate.correct(q) as string[])).toBe(4);
    expect(points(q, hotspotType.simulate.wrong!(q) as string[])).toBe(0);
  });
});

describe('hotspot page and review', () => {
  const ctx = { id: 'q1', where: 'question 1', value: ['lv'], texts: plainTexts, shown: { optionOrder: {}, itemOrder: {} } };
  it('names each region\'s toggle button by its label and says which are pressed', () => {
    const page = hotspotType.page(heart(), ctx).toString();
    expect(page).toContain('<img src="/a/content-assets/ast_heart1" alt="A diagram of the heart">');
    expect(page).toContain('<button type="button" class="region-toggle" data-region-id="lv" aria-pressed="true">Left ventricle</button>');
    expect(page).toContain('<button type="button" class="region-toggle" data-region-id="la" aria-pressed="false">Left atrium</button>');
    expect(page).toContain('<polygon points="60,160 160,160 150,300 70,300" class="region-shape"/>');
    expect(page).toContain('aria-hidden="true"');
  });
  it('shows staff what was chosen and what is correct, in words', () => {
    const review = hotspotType.review(heart(), ['lv', 'la'], { texts: plainTexts }).toString();
    expect(review).toContain('<li class="chosen">Left atrium <span class="badge">Chosen</span></li>');
    expect(review).toContain('<li class="chosen">Left ventricle <span class="badge">Chosen</span> <span class="hint">(correct answer)</span></li>');
    expect(review).toContain('<li>Right ventricle <span class="hint">(correct answer)</span></li>');
    expect(hotspotType.answerText(heart(), ['la', 'lv'])).toBe('Left atrium; Left ventricle');
  });
  // The answer view runs no script to read the image's size, and an overlay with no viewBox is hidden: without the
  // size the outlines are drawn on the image at its own size instead, in CSS pixels, which are then its pixels.
  it('outlines the regions for staff on the image at its own size when the question gives no image size', () => {
    const review = hotspotType.review(heart(), ['lv'], { texts: plainTexts }).toString();
    expect(review).toContain('<div class="region-picture-scroll" tabindex="0" role="group" aria-label="The image at its own size"><div class="region-picture region-picture-natural"><img src="/a/content-assets/ast_heart1" alt="A diagram of the heart"><svg class="region-overlay" aria-hidden="true" focusable="false" preserveAspectRatio="none"><g');
    expect(review).toContain('<g class="region-outline" data-region-id="lv" data-state="on"><circle cx="250" cy="220" r="60" class="region-shape"/>');
    // The test page keeps its script's way: the viewBox set from the loaded image, the image scaled to the column.
    const page = hotspotType.page(heart(), ctx).toString();
    expect(page).toContain('<div class="region-picture"><img src="/a/content-assets/ast_heart1" alt="A diagram of the heart"><svg class="region-overlay region-overlay-unfitted" aria-hidden="true" focusable="false" preserveAspectRatio="none"><g');
  });
  it('scales the picture for staff by its viewBox when the question gives the image size', () => {
    const review = hotspotType.review(heart({ imageWidth: 400, imageHeight: 360 }), ['lv'], { texts: plainTexts }).toString();
    expect(review).toContain('<div class="region-picture"><img src="/a/content-assets/ast_heart1" alt="A diagram of the heart" width="400" height="360"><svg class="region-overlay" aria-hidden="true" focusable="false" preserveAspectRatio="none" viewBox="0 0 400 360">');
    expect(review).not.toContain('region-picture-natural');
  });
});
