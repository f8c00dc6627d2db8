import { describe, expect, it } from 'vitest';
import { itemsPackage } from '../../../../test/helpers/qti.js';
import { checkTestInput } from '../../catalog/authoring.js';
import type { CompositeQuestion } from '../../catalog/composite.js';
import { importQtiPackage } from '../../catalog/interchange/qti-package.js';
import { html } from '../../../platform/web/html.js';
import { plainTexts } from './page-content.js';
import { compositeInput } from './question-parts.js';

const legends = (markup: string) => [...markup.matchAll(/<legend class="part-legend">(.*?)<\/legend>/gs)].map((m) => m[1]!.replace(/<[^>]+>/g, '').trim());

describe("a composite question's parts on the test page", () => {
  it('a composite that keeps its QTI processing names its parts without points (the processing marks them together); a native one shows each part\'s', async () => {
    const { input } = await importQtiPackage(itemsPackage(['composite-bonus.xml', 'composite.xml']));
    const [kept, native] = checkTestInput(input!).questions as CompositeQuestion[];
    const render = (q: CompositeQuestion) => compositeInput(q, 'q1', 'question 1', null, plainTexts, () => html``).value;
    expect(legends(render(kept!))).toEqual(['Part 1', 'Part 2']);
    expect(legends(render(native!))).toEqual(['Part 1 (1 point)', 'Part 2 (3 points)', 'Part 3 (2 points)', 'Part 4 (2 points)']);
  });
});
