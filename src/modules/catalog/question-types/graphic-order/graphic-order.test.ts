import { describe, expect, it } from 'vitest';
import type { ErrorDetail } from '../../../../platform/errors.js';
import { plainTexts } from '../../content/page-texts.js';
import { graphicOrderType } from './graphic-order.js';
import type { GraphicOrderQuestion } from './graphic-order-schema.js';
import { route } from './graphic-order-example.js';

const points = (q: GraphicOrderQuestion, value: string[]) => (graphicOrderType.mark!(q, value) as { points: number }).points;

describe('graphic_order marking', () => {
  it('is all or nothing by default', () => {
    expect(points(route(), ['car', 'mill', 'ford', 'hill'])).toBe(4);
    expect(points(route(), ['car', 'mill', 'hill', 'ford'])).toBe(0);
  });
  it('with partialCredit gives points × regions in place ÷ regions', () => {
    const q = route({ partialCredit: true });
    expect(points(q, ['car', 'mill', 'hill', 'ford'])).toBe(2); // car and mill in place: 4 × 2 ÷ 4
    expect(points(q, ['mill', 'car', 'ford', 'hill'])).toBe(2);
    expect(points(q, ['hill', 'ford', 'mill', 'car'])).toBe(0);
    expect(points(route({ partialCredit: true, points: 1 }), ['car', 'ford', 'mill', 'hill'])).toBe(0.5);
  });
  it('simulates a correct and a wrong order', () => {
    const q = route();
    expect(points(q, graphicOrderType.simulate.correct(q) as string[])).toBe(4);
    expect(points(q, graphicOrderType.simulate.wrong!(q) as string[])).toBe(0);
  });
});

describe('graphic_order checks and answers', () => {
  it('names the field of a region problem', () => {
    const details: ErrorDetail[] = [];
    graphicOrderType.check!(route({ regions: [route().regions[0]!, { id: 'car', label: 'Car park 2', shape: 'poly', coords: [1, 1, 2, 2, 3, 3] }] }), 'questions.2', details);
    expect(details).toEqual([
      { field: 'questions.2.regions.1.id', message: 'region id "car" is used twice' },
      { field: 'questions.2.regions.1.coords', message: 'a poly must enclose an area (its points are all on one line)' },
    ]);
  });
  it('takes a permutation of the regions, kept in the candidate\'s order', () => {
    const check = (v: unknown) => graphicOrderType.answer.check(route(), v as never);
    expect(check(['hill', 'car', 'mill', 'ford'])).toEqual({ ok: true, value: ['hill', 'car', 'mill', 'ford'] });
    expect(check([])).toEqual({ ok: true, value: null });
    expect(check(['car', 'mill'])).toEqual({ ok: false, message: 'must list each of the 4 region ids exactly once (a permutation)' });
    expect(check(['car', 'car', 'mill', 'ford'])).toEqual({ ok: false, message: 'names a region twice' });
    expect(check({ car: 1 })).toEqual({ ok: false, message: 'must be an array of region ids or null' });
  });
  it('fills in partialCredit', () => expect(graphicOrderType.withDefaults!(route()).partialCredit).toBe(false));
});

describe('graphic_order page', () => {
  const ctx = (value: string[] | null, itemOrder: Record<string, string[]> = {}) => ({ id: 'q1', where: 'question 1', value, texts: plainTexts, shown: { optionOrder: {}, itemOrder } });
  it('lists the regions in the shown order with Move up / Move down buttons named by label, numbering them on the image', () => {
    const page = graphicOrderType.page(route(), ctx(null, { q1: ['ford', 'car', 'hill', 'mill'] })).toString();
    const labels = [...page.matchAll(/<li class="order-item" data-item-id="([a-z]+)">/g)].map((m) => m[1]);
    expect(labels).toEqual(['ford', 'car', 'hill', 'mill']);
    expect(page).toContain('data-ordered="no"');
    expect(page).toContain('aria-label="Move up: Ford" aria-disabled="true"');
    expect(page).toContain('aria-label="Move down: Old mill" aria-disabled="true"');
    expect(page).toContain('<g class="region-outline" data-region-id="ford"><circle cx="250" cy="160" r="20" class="region-shape"/><text x="250" y="160" font-size="24" class="region-mark">1</text></g>');
  });
  it('shows a saved order as the answer', () => {
    const page = graphicOrderType.page(route(), ctx(['car', 'mill', 'ford', 'hill'], { q1: ['ford', 'car', 'hill', 'mill'] })).toString();
    expect(page).toContain('data-ordered="yes"');
    expect([...page.matchAll(/data-item-id="([a-z]+)"/g)].map((m) => m[1])).toEqual(['car', 'mill', 'ford', 'hill']);
  });
  it('says in words which regions are in place for staff', () => {
    const review = graphicOrderType.review(route(), ['mill', 'car', 'ford', 'hill'], { texts: plainTexts }).toString();
    expect(review).toContain('<li>Old mill <span class="badge badge-wrong">not in place</span> <span class="hint">(belongs at 2)</span></li>');
    expect(review).toContain('<li>Ford <span class="badge badge-right">in its correct place</span></li>');
    expect(graphicOrderType.answerText(route(), ['mill', 'car'])).toBe('Old mill; Car park');
  });
  it("numbers the regions for staff on the image at its own size when the question gives no image size (the answer view runs no script to read it)", () => {
    const review = graphicOrderType.review(route(), ['mill', 'car', 'ford', 'hill'], { texts: plainTexts }).toString();
    expect(review).toContain('<div class="region-picture-scroll" tabindex="0" role="group" aria-label="The image at its own size"><div class="region-picture region-picture-natural"><img src="/a/content-assets/ast_walk1" alt="A map of a circular walk"><svg class="region-overlay" aria-hidden="true" focusable="false" preserveAspectRatio="none"><g');
    expect(review).toContain('<g class="region-outline" data-region-id="mill"><circle cx="150" cy="80" r="20" class="region-shape"/><text x="150" y="80" font-size="24" class="region-mark">1</text></g>');
    const sized = graphicOrderType.review(route({ imageWidth: 300, imageHeight: 240 }), ['mill'], { texts: plainTexts }).toString();
    expect(sized).toContain('<div class="region-picture"><img src="/a/content-assets/ast_walk1" alt="A map of a circular walk" width="300" height="240"><svg class="region-overlay" aria-hidden="true" focusable="false" preserveAspectRatio="none" viewBox="0 0 300 240">');
  });
});

